// Devices by target name, from one explicit list: LinkedDevices() is defined
// by the list a binary links, //runtime:linked_runtime (cpu, cuda) or
// //runtime:linked_runtime_without_llvm (cuda alone, for the GPU machine,
// whose binaries must not link LLVM). No static initializers: a binary opens
// exactly the devices its list names.
#ifndef RUNTIME_DEVICE_REGISTRY_H_
#define RUNTIME_DEVICE_REGISTRY_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/device_base.h"

namespace tile_ir::runtime {

// Device factories by target family ("cpu", "cuda"), filled once by the list.
class DeviceRegistry {
 public:
  // Opens the device for the whole target string ("cuda", "cuda:sm_90a"): the
  // factory decides what a suffix after the family means.
  using Factory = std::function<absl::StatusOr<std::unique_ptr<Device>>(std::string_view target)>;

  // Adds the factory of target family `family`. A family given twice is a bug
  // in the list and aborts.
  void Add(std::string family, Factory factory);

  // The family names, sorted.
  std::vector<std::string> Names() const;

  // What the factory of `target`'s family answers (Unavailable when, say, the
  // driver or the GPU is missing); NotFound naming the families it has when
  // none is `target`'s ("unknown device 'tpu'; this program has: cpu, cuda"),
  // and the grammar's error for a bad spelling.
  absl::StatusOr<std::unique_ptr<Device>> Open(std::string_view target) const;

 private:
  std::map<std::string, Factory, std::less<>> factories_;
};

// The devices this binary links (runtime/linked_runtime.cc). Built on first
// use, thread-safe, never destroyed.
const DeviceRegistry& LinkedDevices();

// The device for `target` ("cpu", "cuda:sm_90a") among LinkedDevices().
inline absl::StatusOr<std::unique_ptr<Device>> OpenDevice(std::string_view target) {
  return LinkedDevices().Open(target);
}

}  // namespace tile_ir::runtime

#endif  // RUNTIME_DEVICE_REGISTRY_H_
