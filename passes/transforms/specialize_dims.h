// Shape specialization: a kernel's symbolic dims bound to constants, so that the lowering
// passes see the shapes a call uses. Bound checks that the constants prove become
// unnecessary and fall away, alignment becomes provable (vector and asynchronous copies),
// and loop trip counts become constants. One specialized kernel serves one set of values;
// the runtime refuses tensors of other shapes (the parameters' shapes are constants).
#ifndef PASSES_TRANSFORMS_SPECIALIZE_DIMS_H_
#define PASSES_TRANSFORMS_SPECIALIZE_DIMS_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "passes/pass/pass.h"
#include "tile_ir/module.h"

namespace tile_ir::passes {

// `kernel` with each dim named in `values` replaced by its value everywhere (parameter
// shapes and strides, grid, body) and removed from the kernel's dims; dims not named stay
// symbolic. An error names a value for a dim the kernel does not have, or one that does not
// fit the dim's type.
absl::StatusOr<Kernel> SpecializeDims(const Kernel& kernel,
                                      const std::map<std::string, int64_t>& values);

// The kernel's dims that an extent of a fragment or local allocation mentions, in the
// kernel's order. A thread's registers are fixed when the kernel is compiled, so a fragment
// of a symbolic extent (a whole row `fragment f32[1, N]`) compiles only once such dims are
// constants: runners that know a call's shapes specialize these (SpecializeRegisterDims)
// and leave the others symbolic.
std::vector<std::string> DimsSizingRegisters(const KernelNode& kernel);

// SpecializeDims on DimsSizingRegisters(kernel) alone, their values taken from `values` (a
// dim without one is an error naming it); `kernel` itself when there are none. `specialized`,
// when given, receives the names.
absl::StatusOr<Kernel> SpecializeRegisterDims(const Kernel& kernel,
                                              const std::map<std::string, int64_t>& values,
                                              std::vector<std::string>* specialized = nullptr);

// The pass: `specialize-dims{values="M=4096,N=4096"}`, on every kernel that has the dims
// named (a kernel without any of them is left alone).
PassInfo SpecializeDimsPass();

}  // namespace tile_ir::passes

#endif  // PASSES_TRANSFORMS_SPECIALIZE_DIMS_H_
