// tile_module: reading and verifying modules in any of the three forms.
#include <cstring>
#include <string>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "capi/handles.h"
#include "capi/tile.h"
#include "frontends/io/module_io.h"
#include "tile_ir/text_syntax.h"
#include "tile_ir/verifier.h"

namespace tile_ir::capi {
namespace {

// What TILE_FORMAT_AUTO means for a string (tile.h).
io::ModuleFormat GuessFormat(std::string_view data) {
  size_t first = data.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && data[first] == '{') return io::ModuleFormat::kJson;
  if (data.find('\0') == std::string_view::npos) return io::ModuleFormat::kText;
  return io::ModuleFormat::kProto;
}

tile_status Finish(absl::StatusOr<Module> module, std::string_view source, tile_module** out) {
  if (!module.ok()) return Report(module.status());
  if (absl::Status status = Verify(*module); !status.ok()) {
    return Report(absl::InvalidArgumentError(
        absl::StrCat(std::string(source), ": invalid IR:\n", status.message())));
  }
  *out = new tile_module{*std::move(module)};
  return TILE_OK;
}

}  // namespace
}  // namespace tile_ir::capi

using tile_ir::capi::NullArgument;
using tile_ir::capi::Report;

extern "C" {

tile_status tile_module_load_file(const char* path, tile_module** out) {
  if (path == nullptr) return NullArgument("tile_module_load_file", "path");
  if (out == nullptr) return NullArgument("tile_module_load_file", "out");
  *out = nullptr;
  if (!tile_ir::io::ModuleFormatFromPath(path)) {
    return Report(absl::InvalidArgumentError(
        absl::StrCat(path,
                     ": unknown module extension; expected .tile, .tilepb or .json (or load the "
                     "contents with tile_module_load_string and a format)")));
  }
  return tile_ir::capi::Finish(tile_ir::io::ReadModuleFile(path), path, out);
}

tile_status tile_module_load_string(const char* data, size_t size, tile_format format,
                                    const char* source_name, tile_module** out) {
  if (data == nullptr && size > 0) return NullArgument("tile_module_load_string", "data");
  if (out == nullptr) return NullArgument("tile_module_load_string", "out");
  *out = nullptr;
  std::string_view contents(data == nullptr ? "" : data, size);
  const std::string source = source_name != nullptr ? source_name : "<string>";
  tile_ir::io::ModuleFormat chosen;
  switch (format) {
    case TILE_FORMAT_AUTO: chosen = tile_ir::capi::GuessFormat(contents); break;
    case TILE_FORMAT_TEXT: chosen = tile_ir::io::ModuleFormat::kText; break;
    case TILE_FORMAT_PROTO: chosen = tile_ir::io::ModuleFormat::kProto; break;
    case TILE_FORMAT_JSON: chosen = tile_ir::io::ModuleFormat::kJson; break;
    default:
      return Report(absl::InvalidArgumentError(
          absl::StrCat("tile_module_load_string: unknown format ", static_cast<int>(format),
                       " (TILE_FORMAT_AUTO, _TEXT, _PROTO or _JSON)")));
  }
  return tile_ir::capi::Finish(tile_ir::io::ReadModule(contents, chosen, source), source, out);
}

void tile_module_free(tile_module* module) { delete module; }

size_t tile_module_num_kernels(const tile_module* module) {
  return module == nullptr ? 0 : module->module.kernels.size();
}

const char* tile_module_kernel_name(const tile_module* module, size_t i) {
  if (module == nullptr || i >= module->module.kernels.size()) return nullptr;
  return module->module.kernels[i]->name.c_str();
}

int tile_is_identifier(const char* name) {
  return name != nullptr && tile_ir::IsValidIdentifier(name) ? 1 : 0;
}

}  // extern "C"
