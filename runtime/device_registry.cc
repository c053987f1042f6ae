// The process-wide table of device factories.
#include "runtime/device_registry.h"

#include <map>
#include <mutex>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "targets/target_name.h"

namespace tile_ir::runtime {
namespace {

struct Registry {
  std::mutex mutex;
  std::map<std::string, DeviceFactory, std::less<>> factories;
};

// Never destroyed: registration libraries fill it from static initializers,
// and destruction order at exit must not matter.
Registry& GetRegistry() {
  static Registry* registry = new Registry;
  return *registry;
}

}  // namespace

absl::Status RegisterDeviceFactory(std::string_view name, DeviceFactory factory) {
  Registry& registry = GetRegistry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  if (!registry.factories.emplace(std::string(name), std::move(factory)).second) {
    return absl::AlreadyExistsError(
        absl::StrCat("a device named '", std::string(name), "' is already registered"));
  }
  return absl::OkStatus();
}

std::vector<std::string> RegisteredDeviceNames() {
  Registry& registry = GetRegistry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  std::vector<std::string> names;
  for (const auto& [name, factory] : registry.factories) names.push_back(name);
  return names;
}

absl::StatusOr<std::unique_ptr<Device>> OpenDevice(std::string_view target) {
  absl::StatusOr<targets::TargetName> parsed = targets::ParseTargetName(target);
  if (!parsed.ok()) return parsed.status();
  const std::string& name = parsed->family;
  DeviceFactory factory;
  {
    Registry& registry = GetRegistry();
    std::lock_guard<std::mutex> lock(registry.mutex);
    auto it = registry.factories.find(name);
    if (it != registry.factories.end()) factory = it->second;
  }
  if (!factory) {
    std::vector<std::string> names = RegisteredDeviceNames();
    return absl::NotFoundError(absl::StrCat(
        "unknown device '", std::string(target),
        "'; this program has: ", names.empty() ? "no devices" : absl::StrJoin(names, ", ")));
  }
  // Outside the lock: opening a device can take long (driver start-up).
  return factory(target);
}

}  // namespace tile_ir::runtime
