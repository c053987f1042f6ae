// The interface every device implements: load what its target compiled and
// launch it with DLPack arguments, and hold tensors in the memory its kernels
// use. The device compiles nothing itself: its target (targets/target.h) owns
// lowering, emission and the real compiler, and Load is the one path from a
// tile-level module through them. device_registry.h opens devices by name;
// implementations (runtime/cpu, runtime/cuda) depend only on this header.
#ifndef RUNTIME_DEVICE_BASE_H_
#define RUNTIME_DEVICE_BASE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "runtime/host_buffer.h"
#include "runtime/kernel_args.h"
#include "targets/target.h"
#include "tile_ir/module.h"

namespace tile_ir::runtime {

// A file a device produced while compiling a kernel, kept for inspection
// (tile-run --dump-cubin writes them): the CUDA source, PTX, the cubin.
struct KernelArtifact {
  std::string extension;  // "cu", "ptx", "cubin"
  std::string contents;
};

// What a compile kept, for a loaded kernel's artifacts(): the binary's files
// (the source and intermediates of a fresh compile), then the binary itself
// under its format ("cubin").
std::vector<KernelArtifact> KernelArtifacts(const targets::CompiledKernel& compiled);

// A dense row-major tensor in the memory a device's kernels read and write,
// filled and read back from the host by harnesses (tile-run).
class DeviceBuffer {
 public:
  virtual ~DeviceBuffer() = default;
  // The tensor to pass to the device's kernels; valid while the buffer lives.
  virtual const DLTensor* tensor() const = 0;
  // Copies a host buffer of the same dtype and shape in, or out.
  virtual absl::Status CopyFromHost(const HostBuffer& host) = 0;
  virtual absl::Status CopyToHost(HostBuffer& host) const = 0;
  // Sets every byte (0xFF poisons: every float element becomes NaN).
  virtual absl::Status Fill(uint8_t byte) = 0;
};

class LoadedKernel {
 public:
  virtual ~LoadedKernel() = default;
  virtual const KernelNode& signature() const = 0;
  // Checks the arguments (see kernel_args.h), runs the kernel and waits for
  // it. Safe to call from several threads at once.
  virtual absl::Status Launch(const std::vector<KernelArg>& args) = 0;
  // Launch, returning the kernel's run time in seconds on the device's own
  // clock (CUDA events on GPUs). The default times Launch with the host's
  // steady clock.
  virtual absl::StatusOr<double> TimedLaunch(const std::vector<KernelArg>& args);
  // Checks the arguments and starts the kernel on `stream` without waiting for it, for callers
  // that order their work by stream (a framework's current stream, through libtile): a CUstream
  // on CUDA, nullptr for the device's default stream. An error of the kernel's own execution
  // surfaces at the next synchronization, as with any asynchronous launch. The default, for
  // devices whose kernels run on the host, is Launch: it returns when the kernel is done.
  virtual absl::Status LaunchAsync(const std::vector<KernelArg>& args, void* stream);
  // What the device kept of the compilation; none by default.
  virtual std::vector<KernelArtifact> artifacts() const { return {}; }
};

class Device {
 public:
  virtual ~Device() = default;
  // "cpu", "cuda", ...
  virtual std::string name() const = 0;
  // A readable description ("cpu: znver3, 2 threads").
  virtual std::string description() const = 0;
  // What this device's kernels are compiled for: the GPU's exact architecture,
  // the host CPU.
  virtual const targets::Target& target() const = 0;
  // Loads a kernel its target compiled, fresh from target().CompileKernel or
  // read back from the kernel cache. Errors name the kernel; a binary of a
  // format the device does not run is InvalidArgument.
  virtual absl::StatusOr<std::unique_ptr<LoadedKernel>> LoadCompiled(
      targets::CompiledKernel compiled) = 0;
  // What this machine adds to what the target's binaries depend on (the exact
  // architecture, driver and toolkit versions), after target().CacheFields()
  // in a kernel cache context; none by default.
  virtual std::vector<std::pair<std::string, std::string>> CacheFields() const { return {}; }
  // target().CompileKernel, then LoadCompiled. The loaded kernel does not
  // refer to `module` afterwards.
  absl::StatusOr<std::unique_ptr<LoadedKernel>> Load(const Module& module,
                                                     std::string_view kernel_name);
  // A zero-filled tensor in the memory this device's kernels use. The default
  // allocates host memory, for devices whose kernels run on the host.
  virtual absl::StatusOr<std::unique_ptr<DeviceBuffer>> Allocate(DataType dtype,
                                                                 const std::vector<int64_t>& shape);
};

}  // namespace tile_ir::runtime

#endif  // RUNTIME_DEVICE_BASE_H_
