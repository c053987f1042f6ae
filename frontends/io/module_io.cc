#include "frontends/io/module_io.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "absl/strings/str_cat.h"
#include "frontends/io/bounded_file.h"
#include "frontends/text/parser.h"
#include "tile_ir/serialization.h"

namespace tile_ir::io {

std::optional<ModuleFormat> ParseModuleFormat(std::string_view name) {
  if (name == "tile" || name == "text") return ModuleFormat::kText;
  if (name == "tilepb" || name == "proto") return ModuleFormat::kProto;
  if (name == "json") return ModuleFormat::kJson;
  return std::nullopt;
}

std::optional<ModuleFormat> ModuleFormatFromPath(std::string_view path) {
  if (path.ends_with(".tile")) return ModuleFormat::kText;
  if (path.ends_with(".tilepb")) return ModuleFormat::kProto;
  if (path.ends_with(".json")) return ModuleFormat::kJson;
  return std::nullopt;
}

absl::StatusOr<Module> ReadModule(std::string_view contents, ModuleFormat format,
                                  std::string_view source_name) {
  switch (format) {
    case ModuleFormat::kText:
      return text::ParseModule(contents, source_name);
    case ModuleFormat::kProto:
      return ReadModuleProto(contents, source_name);
    case ModuleFormat::kJson:
      return ReadModuleJson(contents, source_name);
  }
  return absl::InternalError("unknown module format");
}

std::string WriteModule(const Module& module, ModuleFormat format, const PrintOptions& options) {
  switch (format) {
    case ModuleFormat::kText:
      return Print(module, options);
    case ModuleFormat::kProto:
      return WriteModuleProto(module);
    case ModuleFormat::kJson:
      return WriteModuleJson(module);
  }
  return "";
}

namespace {

struct FileCloser {
  void operator()(FILE* f) const { std::fclose(f); }
};

}  // namespace

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  return ReadBoundedFile(path, kMaxModuleBytes);
}

absl::Status WriteFile(const std::string& path, std::string_view contents) {
  std::unique_ptr<FILE, FileCloser> file(std::fopen(path.c_str(), "wb"));
  if (!file) {
    return absl::PermissionDeniedError(
        absl::StrCat(path, ": cannot open for writing: ", std::strerror(errno)));
  }
  if (std::fwrite(contents.data(), 1, contents.size(), file.get()) != contents.size() ||
      std::fflush(file.get()) != 0) {
    return absl::DataLossError(absl::StrCat(path, ": write failed: ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

absl::StatusOr<Module> ReadModuleFile(const std::string& path) {
  std::optional<ModuleFormat> format = ModuleFormatFromPath(path);
  if (!format) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": unknown extension; expected .tile, .tilepb or .json"));
  }
  absl::StatusOr<std::string> contents = ReadFile(path);
  if (!contents.ok()) return contents.status();
  return ReadModule(*contents, *format, path);
}

}  // namespace tile_ir::io
