// Tensors in GPU memory (cuMemAlloc) for tile-run and tests: copy in and out,
// poison, and a DLPack view of device type kDLCUDA.
#ifndef RUNTIME_CUDA_CUDA_BUFFER_H_
#define RUNTIME_CUDA_CUDA_BUFFER_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/cuda/cuda_context.h"
#include "runtime/device_base.h"
#include "tile_ir/dtype.h"

namespace tile_ir::runtime::cuda {

class CudaBuffer final : public DeviceBuffer {
 public:
  // A zero-filled dense row-major tensor on the context's GPU (cuMemAlloc
  // aligns to at least 256 bytes). ResourceExhausted when the GPU is full.
  static absl::StatusOr<std::unique_ptr<CudaBuffer>> Create(std::shared_ptr<CudaContext> context,
                                                            DataType dtype,
                                                            std::vector<int64_t> shape);
  CudaBuffer(const CudaBuffer&) = delete;
  CudaBuffer& operator=(const CudaBuffer&) = delete;
  ~CudaBuffer() override;

  const DLTensor* tensor() const override { return &tensor_; }
  absl::Status CopyFromHost(const HostBuffer& host) override;
  absl::Status CopyToHost(HostBuffer& host) const override;
  absl::Status Fill(uint8_t byte) override;

  CUdeviceptr pointer() const { return pointer_; }
  int64_t size_bytes() const { return size_bytes_; }

 private:
  CudaBuffer(std::shared_ptr<CudaContext> context, DataType dtype, std::vector<int64_t> shape,
             CUdeviceptr pointer, int64_t size_bytes);
  absl::Status CheckSize(const HostBuffer& host) const;

  std::shared_ptr<CudaContext> context_;
  std::vector<int64_t> shape_;
  CUdeviceptr pointer_;
  int64_t size_bytes_;
  DLTensor tensor_{};
};

}  // namespace tile_ir::runtime::cuda

#endif  // RUNTIME_CUDA_CUDA_BUFFER_H_
