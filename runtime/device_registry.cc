// The table of device factories (device_registry.h); LinkedDevices() is the
// list's (linked_runtime.cc), not this file's.
#include "runtime/device_registry.h"

#include <cstdlib>
#include <iostream>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "targets/target_name.h"

namespace tile_ir::runtime {

void DeviceRegistry::Add(std::string family, Factory factory) {
  if (!factories_.emplace(family, std::move(factory)).second) {
    std::cerr << "internal error: device '" << family << "' listed twice\n";
    std::abort();
  }
}

std::vector<std::string> DeviceRegistry::Names() const {
  std::vector<std::string> names;
  for (const auto& [name, unused] : factories_) names.push_back(name);
  return names;
}

absl::StatusOr<std::unique_ptr<Device>> DeviceRegistry::Open(std::string_view target) const {
  absl::StatusOr<targets::TargetName> parsed = targets::ParseTargetName(target);
  if (!parsed.ok()) return parsed.status();
  auto it = factories_.find(parsed->family);
  if (it == factories_.end()) {
    const std::vector<std::string> names = Names();
    return absl::NotFoundError(absl::StrCat(
        "unknown device '", std::string(target),
        "'; this program has: ", names.empty() ? "no devices" : absl::StrJoin(names, ", ")));
  }
  return it->second(target);
}

}  // namespace tile_ir::runtime
