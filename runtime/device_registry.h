// Devices by target name, from one explicit list: LinkedDevices() is defined
// by the list a binary links, //runtime:linked_runtime (cpu, cuda) or
// //runtime:linked_runtime_without_llvm (cuda alone, for the GPU machine,
// whose binaries must not link LLVM). No static initializers: a binary opens
// exactly the devices its list names.
#ifndef RUNTIME_DEVICE_REGISTRY_H_
#define RUNTIME_DEVICE_REGISTRY_H_

#include <memory>
#include <string_view>

#include "absl/status/statusor.h"
#include "runtime/device_base.h"
#include "runtime/factory_registry.h"

namespace tile_ir::runtime {

// Device factories by family; errors say "unknown device 'tpu'; this program
// has: cpu, cuda".
class DeviceRegistry : public FactoryRegistry<Device> {
 public:
  DeviceRegistry() : FactoryRegistry<Device>("device") {}
};
using DeviceFactory = DeviceRegistry::Factory;

// The devices this binary links (runtime/linked_runtime.cc). Built on first
// use, thread-safe, never destroyed.
const DeviceRegistry& LinkedDevices();

// The device for `target` ("cpu", "cuda:sm_90a") among LinkedDevices().
inline absl::StatusOr<std::unique_ptr<Device>> OpenDevice(std::string_view target) {
  return LinkedDevices().Open(target);
}

}  // namespace tile_ir::runtime

#endif  // RUNTIME_DEVICE_REGISTRY_H_
