// The shape of C++ dialects whose kernels are `extern "C" __global__`
// functions: __launch_bounds__, buffers as plain pointers, one dynamic
// `extern __shared__` pool the host sizes at launch, `__syncthreads()`, the C
// math library's functions (expf on f32, exp on f64) and the device library's
// tl:: overloads on narrow floats. A dialect of that family names its types,
// conversions, warp barrier and intrinsics; the rest is spelled here once.
#ifndef TARGETS_C_SOURCE_GLOBAL_KERNEL_DIALECT_H_
#define TARGETS_C_SOURCE_GLOBAL_KERNEL_DIALECT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "targets/c_source/dialect.h"
#include "tile_ir/dtype.h"

namespace tile_ir::c_source {

class GlobalKernelDialect : public Dialect {
 public:
  // void, bool, the integers, f32 and f64 by their C++ names; the narrow
  // floats through NarrowFloatType.
  std::string ValueType(ScalarType type) const final;

  std::string KernelOpen(const KernelNode& kernel, const std::string& symbol, int64_t threads,
                         const std::string& params) const final;
  std::string BufferParam(ScalarType element, const std::string& name, int) const final;
  std::string ScalarParam(ScalarType type, const std::string& name, int) const final;
  std::vector<std::string> SharedPoolDecl(int64_t) const final;
  std::string SharedBufferDecl(const std::string& type, const std::string& name,
                               int64_t offset) const final;
  std::string Barrier(BarrierScope scope) const final;
  std::optional<std::string> MathFunction(const std::string& name, ScalarType type) const final;

 protected:
  // The second argument of __launch_bounds__, the blocks per multiprocessor the register
  // allocation must leave room for; 0 writes none.
  virtual int MinBlocksPerMultiprocessor(const KernelNode& kernel) const { return 0; }
  // Attributes written after the launch bounds (CUDA's __cluster_dims__), each followed by a
  // space; none by default.
  virtual std::string KernelAttributes(const KernelNode& kernel) const { return ""; }
  // The type of f16, bf16, f8e4m3 or f8e5m2 ("void" for one CheckType refuses).
  virtual std::string NarrowFloatType(ScalarType type) const = 0;
  // The statement that synchronizes the threads of a warp (a wavefront).
  virtual std::string WarpBarrier() const = 0;
  // Whether the device library overloads the math functions for narrow float `type`.
  virtual bool HasNarrowMath(ScalarType type) const;

  // `own` followed by the built-in identifiers every dialect of the family
  // reserves (threadIdx, blockIdx, uint4, half, atomicAdd, ...).
  static std::vector<std::string> WithBuiltinWords(std::vector<std::string> own);
};

}  // namespace tile_ir::c_source

#endif  // TARGETS_C_SOURCE_GLOBAL_KERNEL_DIALECT_H_
