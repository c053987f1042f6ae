// Resolving target names against the linked families.
#include "targets/target_registry.h"

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <string>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace tile_ir::targets {

void TargetRegistry::Add(std::unique_ptr<TargetFamily> family) {
  std::string name = family->name();
  family->RegisterIntrinsics();
  if (!families_.emplace(name, std::move(family)).second) {
    std::cerr << "internal error: target family '" << name << "' listed twice\n";
    std::abort();
  }
}

std::vector<std::string> TargetRegistry::FamilyNames() const {
  std::vector<std::string> names;
  for (const auto& [name, unused] : families_) names.push_back(name);
  return names;
}

const TargetFamily* TargetRegistry::FindFamily(std::string_view name) const {
  auto it = families_.find(name);
  return it == families_.end() ? nullptr : it->second.get();
}

absl::StatusOr<TargetName> TargetRegistry::Canonical(const TargetName& name,
                                                     const TargetFamily& family) const {
  TargetName canonical = name;
  const std::vector<std::string> archs = family.archs();
  if (archs.empty()) {
    if (!name.arch.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("target '", name.ToString(), "': ", family.name(),
                       " takes no architecture (it compiles for the machine it runs on)"));
    }
  } else if (name.arch.empty()) {
    canonical.arch = family.default_arch();
  } else if (std::find(archs.begin(), archs.end(), name.arch) == archs.end()) {
    return absl::InvalidArgumentError(absl::StrCat("target '", name.ToString(), "': unknown ",
                                                   family.name(), " architecture '", name.arch,
                                                   "'; known: ", absl::StrJoin(archs, ", ")));
  }
  const std::vector<TargetOption> accepted = family.options();
  canonical.options.clear();
  for (const auto& [key, value] : name.options) {
    const TargetOption* option = nullptr;
    std::vector<std::string> keys;
    for (const TargetOption& each : accepted) {
      keys.push_back(each.key);
      if (each.key == key) option = &each;
    }
    if (option == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          "target '", name.ToString(), "': unknown option '", key, "' of ", family.name(),
          keys.empty() ? std::string(", which takes none")
                       : absl::StrCat("; options: ", absl::StrJoin(keys, ", "))));
    }
    if (option->integer_range) {
      int64_t number = 0;
      const auto [low, high] = *option->integer_range;
      if (!absl::SimpleAtoi(value, &number) || number < low || number > high) {
        return absl::InvalidArgumentError(absl::StrCat("target '", name.ToString(), "': option '",
                                                       key, "' takes a whole number from ", low,
                                                       " to ", high, ", not '", value, "'"));
      }
      // One spelling: "0132" is 132, and the default (written canonically) is left out.
      if (std::string spelled = absl::StrCat(number); spelled != option->values.front()) {
        canonical.options.emplace_back(key, std::move(spelled));
      }
      continue;
    }
    if (std::find(option->values.begin(), option->values.end(), value) == option->values.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat("target '", name.ToString(), "': option '", key, "' takes ",
                       absl::StrJoin(option->values, " | "), ", not '", value, "'"));
    }
    // The default is left out, so that one target has one spelling.
    if (value != option->values.front()) canonical.options.emplace_back(key, value);
  }
  return canonical;
}

absl::StatusOr<std::shared_ptr<const Target>> TargetRegistry::Resolve(std::string_view text) const {
  absl::StatusOr<TargetName> name = ParseTargetName(text);
  if (!name.ok()) {
    for (const auto& [unused, family] : families_) {
      if (std::optional<std::string> replaced = family->Replacement(text)) {
        return absl::InvalidArgumentError(*replaced);
      }
    }
    return name.status();
  }
  return Resolve(*name);
}

absl::StatusOr<std::shared_ptr<const Target>> TargetRegistry::Resolve(
    const TargetName& name) const {
  const TargetFamily* family = FindFamily(name.family);
  if (family == nullptr) {
    std::vector<std::string> names = FamilyNames();
    return absl::NotFoundError(
        absl::StrCat("unknown target '", name.ToString(), "'; this program has: ",
                     names.empty() ? std::string("no targets") : absl::StrJoin(names, ", ")));
  }
  if (absl::Status environment = family->CheckEnvironment(); !environment.ok()) return environment;
  absl::StatusOr<TargetName> canonical = Canonical(name, *family);
  if (!canonical.ok()) return canonical.status();
  TargetName written = name;
  written.arch = canonical->arch;
  if (absl::Status options = family->CheckOptions(written); !options.ok()) return options;
  const std::string key = canonical->ToString();
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto it = made_.find(key); it != made_.end()) return it->second;
  absl::StatusOr<std::unique_ptr<Target>> made = family->Create(*canonical);
  if (!made.ok()) return made.status();
  std::shared_ptr<const Target> target = *std::move(made);
  made_.emplace(key, target);
  return target;
}

std::string TargetRegistry::Describe() const {
  std::string text;
  for (const auto& [name, family] : families_) {
    // Options go in one brace group, as the parser takes them; each is described on its own
    // line, and an example of two non-default values shows the spelling whole.
    std::string spelling = name;
    const std::vector<std::string> archs = family->archs();
    const std::vector<TargetOption> options = family->options();
    if (!archs.empty()) absl::StrAppend(&spelling, "[:", absl::StrJoin(archs, "|"), "]");
    if (!options.empty()) absl::StrAppend(&spelling, "[{KEY=VALUE,...}]");
    absl::StrAppend(&text, "  ", spelling, "\n      ", family->description(), "\n");
    if (!archs.empty()) {
      absl::StrAppend(&text, "      default architecture: ", family->default_arch(), "\n");
    }
    std::vector<std::string> example;
    for (const TargetOption& option : options) {
      absl::StrAppend(&text, "      ", option.key, "=",
                      option.integer_range ? "N" : absl::StrJoin(option.values, "|"), ": ",
                      option.description, " (default ", option.values.front(), ")\n");
      if (!option.integer_range && option.values.size() > 1 && example.size() < 2) {
        example.push_back(absl::StrCat(option.key, "=", option.values[1]));
      }
    }
    if (!example.empty()) {
      absl::StrAppend(&text, "      e.g. ", name, archs.empty() ? "" : ":",
                      archs.empty() ? "" : family->default_arch(), "{",
                      absl::StrJoin(example, ","), "}\n");
    }
  }
  return text;
}

}  // namespace tile_ir::targets
