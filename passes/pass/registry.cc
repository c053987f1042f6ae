// Pass registration with the checks that keep names and options well formed.
#include "passes/pass/registry.h"

#include <set>
#include <utility>

#include "absl/strings/str_cat.h"

namespace tile_ir::passes {
namespace {

absl::Status CheckOptions(const PassInfo& info) {
  std::set<std::string, std::less<>> seen;
  for (const OptionSpec& spec : info.options) {
    std::string where = absl::StrCat("option '", spec.name, "' of pass '", info.name, "'");
    if (!IsKebabCase(spec.name)) {
      return absl::InvalidArgumentError(absl::StrCat(where, ": the name must be kebab-case"));
    }
    if (!seen.insert(spec.name).second) {
      return absl::InvalidArgumentError(absl::StrCat(where, " is declared twice"));
    }
    absl::Status valid = CheckOptionValue(spec.type, spec.default_value);
    if (!valid.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": the default value ", valid.message()));
    }
  }
  return absl::OkStatus();
}

}  // namespace

bool IsKebabCase(std::string_view name) {
  if (name.empty() || name.front() < 'a' || name.front() > 'z' || name.back() == '-') {
    return false;
  }
  char previous = 0;
  for (char c : name) {
    bool word_char = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    if (!word_char && !(c == '-' && previous != '-')) return false;
    previous = c;
  }
  return true;
}

absl::Status PassRegistry::Register(PassInfo info) {
  if (!IsKebabCase(info.name)) {
    return absl::InvalidArgumentError(
        absl::StrCat("pass name '", info.name, "' is not kebab-case (like 'lower-tile-ops')"));
  }
  if (passes_.count(info.name) > 0) {
    return absl::AlreadyExistsError(absl::StrCat("pass '", info.name, "' is already registered"));
  }
  if (info.description.empty() || info.description.find('\n') != std::string::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat("pass '", info.name, "' needs a one-line description"));
  }
  if (!info.run && !info.run_kernel) {
    return absl::InvalidArgumentError(absl::StrCat("pass '", info.name, "' has no run function"));
  }
  if (info.run && info.run_kernel) {
    return absl::InvalidArgumentError(
        absl::StrCat("pass '", info.name, "' has both a module and a kernel run function"));
  }
  if (absl::Status options = CheckOptions(info); !options.ok()) return options;
  std::string name = info.name;
  passes_.emplace(std::move(name), std::move(info));
  return absl::OkStatus();
}

const PassInfo* PassRegistry::Find(std::string_view name) const {
  auto it = passes_.find(name);
  return it == passes_.end() ? nullptr : &it->second;
}

std::vector<const PassInfo*> PassRegistry::All() const {
  std::vector<const PassInfo*> all;
  for (const auto& [name, info] : passes_) all.push_back(&info);
  return all;
}

std::vector<std::string> PassRegistry::Names() const {
  std::vector<std::string> names;
  for (const auto& [name, info] : passes_) names.push_back(name);
  return names;
}

}  // namespace tile_ir::passes
