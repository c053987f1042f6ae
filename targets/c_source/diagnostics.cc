// Formats the located errors of the C++-source targets.
#include "targets/c_source/diagnostics.h"

#include <string>

#include "absl/strings/str_cat.h"

namespace tile_ir::c_source {

absl::Status KernelError(absl::StatusCode code, const KernelNode& kernel, const SourceLoc& loc,
                         std::string_view target, std::string_view message) {
  const SourceLoc& where = loc.known() ? loc : kernel.loc;
  std::string prefix = where.known() ? absl::StrCat(where.ToString(), ": ") : "";
  return absl::Status(code, absl::StrCat(prefix, "error: in kernel '", kernel.name, "': ",
                                         std::string(target), " target: ", std::string(message)));
}

}  // namespace tile_ir::c_source
