// The one shape of the CPU target's errors about a kernel's IR, matching the
// verifier's: "FILE:LINE:COL: error: in kernel 'k': cpu target: <message>".
#ifndef TARGETS_CPU_CPU_DIAGNOSTICS_H_
#define TARGETS_CPU_CPU_DIAGNOSTICS_H_

#include <string_view>

#include "absl/status/status.h"
#include "tile_ir/module.h"
#include "tile_ir/source_loc.h"

namespace tile_ir::cpu {

// An error with `code` about the node at `loc` (the kernel's own location
// when `loc` is unknown).
absl::Status KernelError(absl::StatusCode code, const KernelNode& kernel, const SourceLoc& loc,
                         std::string_view message);

}  // namespace tile_ir::cpu

#endif  // TARGETS_CPU_CPU_DIAGNOSTICS_H_
