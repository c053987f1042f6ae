// The device interface's one compile path, and its defaults: host memory and
// host-clock timing, right for devices whose kernels run on the host.
#include "runtime/device_base.h"

#include <chrono>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"

namespace tile_ir::runtime {
namespace {

class HostMemoryBuffer final : public DeviceBuffer {
 public:
  explicit HostMemoryBuffer(std::unique_ptr<HostBuffer> buffer) : buffer_(std::move(buffer)) {}

  const DLTensor* tensor() const override { return buffer_->AsDLTensor(); }

  absl::Status CopyFromHost(const HostBuffer& host) override {
    if (absl::Status status = CheckSize(host); !status.ok()) return status;
    std::memcpy(buffer_->data(), host.data(), host.size_bytes());
    return absl::OkStatus();
  }

  absl::Status CopyToHost(HostBuffer& host) const override {
    if (absl::Status status = CheckSize(host); !status.ok()) return status;
    std::memcpy(host.data(), buffer_->data(), host.size_bytes());
    return absl::OkStatus();
  }

  absl::Status Fill(uint8_t byte) override {
    buffer_->Poison(byte);
    return absl::OkStatus();
  }

 private:
  absl::Status CheckSize(const HostBuffer& host) const {
    if (host.size_bytes() == buffer_->size_bytes()) return absl::OkStatus();
    return absl::InvalidArgumentError(absl::StrCat(
        "copying ", host.size_bytes(), " bytes to or from a buffer of ", buffer_->size_bytes()));
  }

  std::unique_ptr<HostBuffer> buffer_;
};

}  // namespace

std::vector<KernelArtifact> KernelArtifacts(const targets::CompiledKernel& compiled) {
  std::vector<KernelArtifact> artifacts;
  for (const auto& [extension, contents] : compiled.binary.files) {
    artifacts.push_back({extension, contents});
  }
  artifacts.push_back({compiled.binary.format, compiled.binary.bytes});
  return artifacts;
}

absl::StatusOr<double> LoadedKernel::TimedLaunch(const std::vector<KernelArg>& args) {
  auto start = std::chrono::steady_clock::now();
  absl::Status status = Launch(args);
  auto end = std::chrono::steady_clock::now();
  if (!status.ok()) return status;
  return std::chrono::duration<double>(end - start).count();
}

absl::Status LoadedKernel::LaunchAsync(const std::vector<KernelArg>& args, void* /*stream*/) {
  return Launch(args);
}

absl::StatusOr<std::unique_ptr<LoadedKernel>> Device::Load(const Module& module,
                                                           std::string_view kernel_name) {
  absl::StatusOr<targets::CompiledKernel> compiled = target().CompileKernel(module, kernel_name);
  if (!compiled.ok()) return compiled.status();
  return LoadCompiled(*std::move(compiled));
}

absl::StatusOr<std::unique_ptr<DeviceBuffer>> Device::Allocate(DataType dtype,
                                                               const std::vector<int64_t>& shape) {
  absl::StatusOr<std::unique_ptr<HostBuffer>> buffer = HostBuffer::Create(dtype, shape);
  if (!buffer.ok()) return buffer.status();
  return std::make_unique<HostMemoryBuffer>(*std::move(buffer));
}

}  // namespace tile_ir::runtime
