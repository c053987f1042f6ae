// A table of factories by target family ("cpu", "cuda"), filled once by an
// explicit list: the device registry (device_registry.h) is one, and
// runtime/linked_runtime.cc is the list that fills it.
#ifndef RUNTIME_FACTORY_REGISTRY_H_
#define RUNTIME_FACTORY_REGISTRY_H_

#include <cstdlib>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "targets/target_name.h"

namespace tile_ir::runtime {

template <typename T>
class FactoryRegistry {
 public:
  // Opens a T for the whole target string ("cuda", "cuda:sm_90a{gemm=wgmma}"):
  // the factory decides what a suffix after the family means.
  using Factory = std::function<absl::StatusOr<std::unique_ptr<T>>(std::string_view target)>;

  // `kind` is what the factories make, for errors: "device".
  explicit FactoryRegistry(std::string kind) : kind_(std::move(kind)) {}

  // Adds the factory of target family `family`. A family given twice is a bug
  // in the list and aborts.
  void Add(std::string family, Factory factory) {
    if (!factories_.emplace(family, std::move(factory)).second) {
      std::cerr << "internal error: " << kind_ << " '" << family << "' listed twice\n";
      std::abort();
    }
  }

  // The family names, sorted.
  std::vector<std::string> Names() const {
    std::vector<std::string> names;
    for (const auto& [name, unused] : factories_) names.push_back(name);
    return names;
  }

  // What the factory of `target`'s family answers (Unavailable when, say, the
  // driver or the GPU is missing); NotFound naming the families this registry
  // has when none is `target`'s, and the grammar's error for a bad spelling.
  absl::StatusOr<std::unique_ptr<T>> Open(std::string_view target) const {
    absl::StatusOr<targets::TargetName> parsed = targets::ParseTargetName(target);
    if (!parsed.ok()) return parsed.status();
    auto it = factories_.find(parsed->family);
    if (it == factories_.end()) {
      const std::vector<std::string> names = Names();
      return absl::NotFoundError(absl::StrCat(
          "unknown ", kind_, " '", std::string(target), "'; this program has: ",
          names.empty() ? absl::StrCat("no ", kind_, "s") : absl::StrJoin(names, ", ")));
    }
    return it->second(target);
  }

 private:
  std::string kind_;
  std::map<std::string, Factory, std::less<>> factories_;
};

}  // namespace tile_ir::runtime

#endif  // RUNTIME_FACTORY_REGISTRY_H_
