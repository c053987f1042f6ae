// The adapter of the CUDA passes: the run's target as CUDA's, cast in one place, once per run.
// Their intrinsics are registered by the CUDA family when a target registry adds it
// (CudaFamily::RegisterIntrinsics), not by the passes.
#ifndef TARGETS_CUDA_PASSES_CUDA_PASS_H_
#define TARGETS_CUDA_PASSES_CUDA_PASS_H_

#include <functional>

#include "absl/status/statusor.h"
#include "passes/pass/pass.h"
#include "targets/cuda/cuda_target_info.h"

namespace tile_ir::cuda {

// A CUDA kernel pass: `rewrite_for` gets the run's target as a CudaTargetInfo (nullptr when the
// run has no target or another one: the pass says what it does then) and the run's options,
// and returns the rewrite mapped over every kernel.
passes::KernelPassFn CudaPass(std::function<absl::StatusOr<passes::KernelRewrite>(
                                  const CudaTargetInfo* cuda, const passes::PassOptions& options)>
                                  rewrite_for);

}  // namespace tile_ir::cuda

#endif  // TARGETS_CUDA_PASSES_CUDA_PASS_H_
