// Context fields, their text form and the key.
#include "runtime/jit/cache_context.h"

#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "runtime/jit/sha256.h"

namespace tile_ir::runtime::jit {

std::string_view ProjectVersion() { return "0.1.0+jit2"; }

const std::vector<std::string>& CompileEnvironmentVariables() {
  // CUDA_HOME: where NVRTC and the CUDA headers the device library includes
  // are found (targets/cuda/nvrtc_compiler.h): which compiler and headers, not
  // what the pipeline does (no environment variable changes that; the target
  // string names it).
  static const std::vector<std::string> kVariables = {"CUDA_HOME"};
  return kVariables;
}

void CacheContext::Set(std::string_view field, std::string_view value) {
  std::string stored = absl::StrReplaceAll(absl::string_view(value.data(), value.size()), {{"\n", "\\n"}});
  for (auto& [name, old] : fields_) {
    if (name == field) {
      old = std::move(stored);
      return;
    }
  }
  fields_.emplace_back(std::string(field), std::move(stored));
}

std::optional<std::string> CacheContext::Get(std::string_view field) const {
  for (const auto& [name, value] : fields_) {
    if (name == field) return value;
  }
  return std::nullopt;
}

std::string CacheContext::Serialize() const {
  std::string text;
  for (const auto& [name, value] : fields_) absl::StrAppend(&text, name, "=", value, "\n");
  return text;
}

absl::StatusOr<CacheContext> CacheContext::Parse(std::string_view text) {
  CacheContext context;
  int line_number = 0;
  for (absl::string_view line : absl::StrSplit(absl::string_view(text.data(), text.size()), '\n',
                                               absl::SkipEmpty())) {
    ++line_number;
    size_t eq = line.find('=');
    if (eq == absl::string_view::npos || eq == 0) {
      return absl::DataLossError(
          absl::StrCat("context line ", line_number, " is not field=value: '", line, "'"));
    }
    for (char c : line.substr(0, eq)) {
      if (!(c >= 'a' && c <= 'z') && !(c >= '0' && c <= '9') && c != '_' && c != '.' &&
          !(c >= 'A' && c <= 'Z')) {
        return absl::DataLossError(
            absl::StrCat("context line ", line_number, " has a bad field name: '", line, "'"));
      }
    }
    context.fields_.emplace_back(std::string(line.substr(0, eq)), std::string(line.substr(eq + 1)));
  }
  return context;
}

std::string CacheContext::Key() const { return Sha256Hex(Serialize()).substr(0, 32); }

std::optional<std::string> FirstMismatch(const CacheContext& stored, const CacheContext& current) {
  auto show = [](const std::optional<std::string>& v) {
    return v ? absl::StrCat("'", *v, "'") : std::string("(absent)");
  };
  for (const auto& [name, value] : current.fields()) {
    std::optional<std::string> old = stored.Get(name);
    if (old != value) {
      return absl::StrCat(name, ": the entry has ", show(old), ", this process ", show(value));
    }
  }
  for (const auto& [name, value] : stored.fields()) {
    if (!current.Get(name)) {
      return absl::StrCat(name, ": the entry has '", value, "', this process (absent)");
    }
  }
  return std::nullopt;
}

void AddCompileEnvironment(CacheContext& context) {
  for (const std::string& name : CompileEnvironmentVariables()) {
    const char* value = std::getenv(name.c_str());
    context.Set(absl::StrCat("env.", name), value ? value : "");
  }
}

}  // namespace tile_ir::runtime::jit
