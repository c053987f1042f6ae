// The one shape of a C++-source target's errors about a kernel's IR, matching
// the verifier's: "FILE:LINE:COL: error: in kernel 'k': <target> target: <message>".
#ifndef TARGETS_C_SOURCE_DIAGNOSTICS_H_
#define TARGETS_C_SOURCE_DIAGNOSTICS_H_

#include <string_view>

#include "absl/status/status.h"
#include "tile_ir/module.h"
#include "tile_ir/source_loc.h"

namespace tile_ir::c_source {

// An error with `code` about the node at `loc` (the kernel's own location
// when `loc` is unknown) from the target named `target` ("cuda").
absl::Status KernelError(absl::StatusCode code, const KernelNode& kernel, const SourceLoc& loc,
                         std::string_view target, std::string_view message);

}  // namespace tile_ir::c_source

#endif  // TARGETS_C_SOURCE_DIAGNOSTICS_H_
