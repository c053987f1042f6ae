// Compiling emitted HIP C++ to a code object with hipcc (ROCm's compiler
// driver, Debian's `hipcc` package), run as a subprocess in a temporary folder
// beside the embedded device library. No AMD GPU is needed: --genco builds an
// offload bundle for the named architecture.
#ifndef TARGETS_HIP_HIPCC_COMPILER_H_
#define TARGETS_HIP_HIPCC_COMPILER_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace tile_ir::hip {

struct HipCodeObject {
  // hipcc --genco output: a clang offload bundle holding the gfx code object,
  // what hipModuleLoadData takes.
  std::string bytes;
  // "HIP version: 5.2.21153-0; Debian clang version 15.0.6", for cache keys.
  std::string compiler_version;
};

// The hipcc this process runs: $HIPCC when set, else `hipcc` on $PATH, else
// /opt/rocm/bin/hipcc; FailedPrecondition saying how to install it otherwise.
absl::StatusOr<std::string> FindHipcc();
// OK when FindHipcc finds one.
absl::Status HipccAvailable();

// Compiles `source` (which includes "tl/common.h") for `arch` ("gfx90a",
// "gfx940") with `hipcc --offload-arch=ARCH --genco -O3`. Errors:
// FailedPrecondition without hipcc, InvalidArgument for an unknown arch, and
// Internal with hipcc's diagnostics (its harmless rocm_agent_enumerator
// traceback removed) when the compile fails.
absl::StatusOr<HipCodeObject> CompileHipCodeObject(const std::string& source,
                                                   const std::string& arch);

}  // namespace tile_ir::hip

#endif  // TARGETS_HIP_HIPCC_COMPILER_H_
