// Formats the CUDA target's located errors.
#include "targets/cuda/cuda_diagnostics.h"

#include <string>

#include "absl/strings/str_cat.h"

namespace tile_ir::cuda {

absl::Status KernelError(absl::StatusCode code, const KernelNode& kernel, const SourceLoc& loc,
                         std::string_view message) {
  const SourceLoc& where = loc.known() ? loc : kernel.loc;
  std::string prefix = where.known() ? absl::StrCat(where.ToString(), ": ") : "";
  return absl::Status(code, absl::StrCat(prefix, "error: in kernel '", kernel.name,
                                         "': cuda target: ", std::string(message)));
}

}  // namespace tile_ir::cuda
