// tile-run --dump-cubin: writes what a device kept of a kernel's compilation
// (the CUDA source, PTX and cubin) to a folder, for cuobjdump and for reading.
#ifndef TOOLS_TILE_RUN_DUMP_ARTIFACTS_H_
#define TOOLS_TILE_RUN_DUMP_ARTIFACTS_H_

#include <string>

#include "absl/status/status.h"
#include "runtime/device_base.h"

namespace tile_ir::tools {

// Writes DIR/<kernel>.<extension> for each artifact of `kernel`, creating DIR
// when missing. FailedPrecondition when the device kept none (the CPU JIT
// compiles in memory), naming `device_name`.
absl::Status DumpArtifacts(const runtime::LoadedKernel& kernel, const std::string& device_name,
                           const std::string& dir);

}  // namespace tile_ir::tools

#endif  // TOOLS_TILE_RUN_DUMP_ARTIFACTS_H_
