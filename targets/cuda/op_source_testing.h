// Test helpers: an operator of the suite (ops/<op>.tile, in the test's runfiles)
// read, and lowered to CUDA source, as the NVRTC tests need them.
#ifndef TARGETS_CUDA_OP_SOURCE_TESTING_H_
#define TARGETS_CUDA_OP_SOURCE_TESTING_H_

#include <string>

#include "absl/status/statusor.h"
#include "targets/cuda/cuda_target_info.h"
#include "tile_ir/module.h"

namespace tile_ir::cuda::testing {

// ops/<op>.tile, parsed, with the dims that size fragments specialized at the operator's
// default shapes (a thread's registers are fixed at compile time).
absl::StatusOr<Module> ReadSuiteOp(const std::string& op);

// That module lowered for cuda:<arch> with `wgmma` and emitted as CUDA C++.
absl::StatusOr<std::string> SuiteOpCudaSource(const std::string& op, const std::string& arch,
                                              WgmmaUse wgmma = WgmmaUse::kSwizzledOperands);

}  // namespace tile_ir::cuda::testing

#endif  // TARGETS_CUDA_OP_SOURCE_TESTING_H_
