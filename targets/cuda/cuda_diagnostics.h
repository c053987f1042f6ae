// The one shape of the CUDA target's errors about a kernel's IR, matching the
// verifier's: "FILE:LINE:COL: error: in kernel 'k': cuda target: <message>".
#ifndef TARGETS_CUDA_CUDA_DIAGNOSTICS_H_
#define TARGETS_CUDA_CUDA_DIAGNOSTICS_H_

#include <string_view>

#include "absl/status/status.h"
#include "tile_ir/module.h"
#include "tile_ir/source_loc.h"

namespace tile_ir::cuda {

// An error with `code` about the node at `loc` (the kernel's own location
// when `loc` is unknown).
absl::Status KernelError(absl::StatusCode code, const KernelNode& kernel, const SourceLoc& loc,
                         std::string_view message);

}  // namespace tile_ir::cuda

#endif  // TARGETS_CUDA_CUDA_DIAGNOSTICS_H_
