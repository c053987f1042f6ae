// Argument binding (runtime/kernel_args.h) with random DLPack descriptors (every field, ndim
// and NULL arrays included) and scalars (doubles and exact integers), as a C API or Python
// caller may pass them. An input is a module and
// the arguments' bytes: a 4-byte little-endian length, that many .tilepb
// bytes, then what FuzzedDataProvider draws descriptors from. Each kernel of
// a module that verifies is bound: bound arguments or an error, never a crash.
#include <dlpack/dlpack.h>
#include <fuzzer/FuzzedDataProvider.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <limits>
#include <string_view>
#include <vector>

#include "runtime/host_buffer.h"
#include "runtime/kernel_args.h"
#include "tile_ir/serialization.h"
#include "tile_ir/verifier.h"

namespace {

using tile_ir::runtime::KernelArg;

int64_t DrawExtent(FuzzedDataProvider& fdp) {
  static constexpr int64_t kEdges[] = {0, 1, 2, 3, 7, 8, 31, 32, 33, 64, 128, 1000, -1,
                                       std::numeric_limits<int32_t>::max(),
                                       std::numeric_limits<int64_t>::max(),
                                       std::numeric_limits<int64_t>::min()};
  return fdp.ConsumeBool() ? fdp.PickValueInArray(kEdges) : fdp.ConsumeIntegral<int64_t>();
}

// Descriptors and their arrays live in `storage` until the call returns.
struct Storage {
  std::deque<DLTensor> tensors;
  std::deque<std::vector<int64_t>> arrays;
};

KernelArg DrawTensorArg(const tile_ir::Param& param, FuzzedDataProvider& fdp, Storage& storage) {
  if (fdp.ConsumeIntegralInRange(0, 15) == 0) return KernelArg::Tensor(nullptr);
  DLTensor& t = storage.tensors.emplace_back();
  t.device = {fdp.ConsumeBool() ? kDLCPU : static_cast<DLDeviceType>(fdp.ConsumeIntegral<int8_t>()),
              fdp.ConsumeIntegralInRange(0, 3)};
  if (!fdp.ConsumeBool() || !tile_ir::runtime::ToDLDataType(param.buffer->dtype, &t.dtype)) {
    t.dtype = {fdp.ConsumeIntegral<uint8_t>(), fdp.ConsumeIntegral<uint8_t>(),
               fdp.ConsumeIntegral<uint16_t>()};
  }
  // Any ndim a producer may write (issue 37: a negative one aborted, one beyond the shape array
  // crashed); the shape and strides arrays hold ndim entries when ndim is up to the largest a
  // tensor may have, as a producer's own arrays do, and none beyond (never read then).
  switch (fdp.ConsumeIntegralInRange(0, 3)) {
    case 0: t.ndim = fdp.ConsumeIntegral<int32_t>(); break;
    case 1: t.ndim = fdp.ConsumeIntegralInRange(-2, tile_ir::runtime::kMaxTensorRank + 1); break;
    default: t.ndim = param.buffer->rank(); break;
  }
  const int entries =
      t.ndim > 0 && t.ndim <= tile_ir::runtime::kMaxTensorRank ? t.ndim : (t.ndim > 0 ? 1 : 0);
  std::vector<int64_t>& shape = storage.arrays.emplace_back();
  for (int i = 0; i < entries; ++i) shape.push_back(DrawExtent(fdp));
  t.shape = t.ndim > 0 && fdp.ConsumeIntegralInRange(0, 15) != 0 ? shape.data() : nullptr;
  if (fdp.ConsumeBool() && t.ndim > 0) {
    std::vector<int64_t>& strides = storage.arrays.emplace_back();
    for (int i = 0; i < entries; ++i) strides.push_back(DrawExtent(fdp));
    t.strides = strides.data();
  }
  // Never dereferenced: binding checks pointers, it does not read them.
  t.data = reinterpret_cast<void*>(static_cast<uintptr_t>(fdp.ConsumeIntegral<uint32_t>()) << 4);
  t.byte_offset = fdp.ConsumeBool() ? 0 : fdp.ConsumeIntegral<uint64_t>();
  return KernelArg::Tensor(&t);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 4) return 0;
  const size_t module_size = data[0] | data[1] << 8 | data[2] << 16 | size_t{data[3]} << 24;
  if (module_size > size - 4) return 0;
  std::string_view bytes(reinterpret_cast<const char*>(data) + 4, module_size);
  absl::StatusOr<tile_ir::Module> module = tile_ir::ReadModuleProto(bytes, "fuzz.tilepb");
  if (!module.ok() || !tile_ir::Verify(*module).ok()) return 0;
  FuzzedDataProvider fdp(data + 4 + module_size, size - 4 - module_size);
  for (const tile_ir::Kernel& kernel : module->kernels) {
    Storage storage;
    std::vector<KernelArg> args;
    for (const tile_ir::Param& param : kernel->params) {
      const bool as_tensor = fdp.ConsumeIntegralInRange(0, 15) == 0 ? !param.is_buffer()
                                                                     : param.is_buffer();
      if (as_tensor && param.is_buffer()) {
        args.push_back(DrawTensorArg(param, fdp, storage));
      } else if (as_tensor) {
        args.push_back(KernelArg::Tensor(nullptr));
      } else {
        switch (fdp.ConsumeIntegralInRange(0, 2)) {
          case 0: args.push_back(KernelArg::Scalar(fdp.ConsumeIntegral<int32_t>())); break;
          case 1: args.push_back(KernelArg::Scalar(fdp.ConsumeFloatingPoint<double>())); break;
          default: args.push_back(KernelArg::Integer(fdp.ConsumeIntegral<int64_t>())); break;
        }
      }
    }
    if (fdp.ConsumeIntegralInRange(0, 15) == 0 && !args.empty()) args.pop_back();
    const int64_t alignment = int64_t{1} << fdp.ConsumeIntegralInRange(0, 8);
    (void)tile_ir::runtime::BindArguments(*kernel, args, kDLCPU, alignment);
  }
  return 0;
}
