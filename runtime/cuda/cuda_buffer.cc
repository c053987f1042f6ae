// GPU tensors: allocation, copies and fills through the driver, each checked.
#include "runtime/cuda/cuda_buffer.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "runtime/host_buffer.h"

namespace tile_ir::runtime::cuda {

absl::StatusOr<std::unique_ptr<CudaBuffer>> CudaBuffer::Create(std::shared_ptr<CudaContext> context,
                                                               DataType dtype,
                                                               std::vector<int64_t> shape) {
  if (dtype.is_void()) return absl::InvalidArgumentError("cannot allocate a tensor of void");
  int64_t elements = 1;
  for (int64_t extent : shape) {
    if (extent < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("cannot allocate a tensor with a negative dimension (", extent, ")"));
    }
    elements *= extent;
  }
  const int64_t bytes = StorageBytes(dtype, elements);
  if (absl::Status status = context->MakeCurrent(); !status.ok()) return status;
  // cuMemAlloc refuses zero bytes; an empty tensor still gets a valid pointer.
  CUdeviceptr pointer = 0;
  absl::Status status = context->Check(
      context->api().cuMemAlloc(&pointer, static_cast<size_t>(std::max<int64_t>(bytes, 1))),
      "cuMemAlloc");
  if (!status.ok()) {
    return absl::Status(status.code(),
                        absl::StrCat(status.message(), " allocating ", bytes, " bytes"));
  }
  std::unique_ptr<CudaBuffer> buffer(
      new CudaBuffer(std::move(context), dtype, std::move(shape), pointer, bytes));
  if (absl::Status fill = buffer->Fill(0); !fill.ok()) return fill;
  return buffer;
}

CudaBuffer::CudaBuffer(std::shared_ptr<CudaContext> context, DataType dtype,
                       std::vector<int64_t> shape, CUdeviceptr pointer, int64_t size_bytes)
    : context_(std::move(context)),
      shape_(std::move(shape)),
      pointer_(pointer),
      size_bytes_(size_bytes) {
  tensor_.data = reinterpret_cast<void*>(pointer_);
  tensor_.device = {kDLCUDA, context_->info().ordinal};
  tensor_.ndim = static_cast<int>(shape_.size());
  ToDLDataType(dtype, &tensor_.dtype);
  tensor_.shape = shape_.data();
  tensor_.strides = nullptr;
  tensor_.byte_offset = 0;
}

// A failed free cannot be reported from a destructor; it only happens after
// an earlier error has already broken the context.
CudaBuffer::~CudaBuffer() {
  if (context_->MakeCurrent().ok()) context_->api().cuMemFree(pointer_);
}

absl::Status CudaBuffer::CheckSize(const HostBuffer& host) const {
  if (host.size_bytes() == size_bytes_) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "cuda: copying ", host.size_bytes(), " bytes to or from a GPU buffer of ", size_bytes_));
}

absl::Status CudaBuffer::CopyFromHost(const HostBuffer& host) {
  if (absl::Status status = CheckSize(host); !status.ok()) return status;
  if (size_bytes_ == 0) return absl::OkStatus();
  if (absl::Status status = context_->MakeCurrent(); !status.ok()) return status;
  return context_->Check(context_->api().cuMemcpyHtoD(pointer_, host.data(), size_bytes_),
                         "cuMemcpyHtoD");
}

absl::Status CudaBuffer::CopyToHost(HostBuffer& host) const {
  if (absl::Status status = CheckSize(host); !status.ok()) return status;
  if (size_bytes_ == 0) return absl::OkStatus();
  if (absl::Status status = context_->MakeCurrent(); !status.ok()) return status;
  return context_->Check(context_->api().cuMemcpyDtoH(host.data(), pointer_, size_bytes_),
                         "cuMemcpyDtoH");
}

absl::Status CudaBuffer::Fill(uint8_t byte) {
  if (size_bytes_ == 0) return absl::OkStatus();
  if (absl::Status status = context_->MakeCurrent(); !status.ok()) return status;
  // cuMemsetD8 is asynchronous for device memory: wait, so that the fill is
  // done before the host goes on as it would after a host-memory fill.
  if (absl::Status status =
          context_->Check(context_->api().cuMemsetD8(pointer_, byte, size_bytes_), "cuMemsetD8");
      !status.ok()) {
    return status;
  }
  return context_->Check(context_->api().cuCtxSynchronize(), "cuCtxSynchronize");
}

}  // namespace tile_ir::runtime::cuda
