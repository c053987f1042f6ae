// tile-run: runs, checks and times kernels on a device (see --help). Built
// twice: tile-run with every device, tile-run-gpu with CUDA alone (no LLVM),
// for the GPU machine; the devices (and the JIT backends over them) are
// whichever the binary links.
#include <unistd.h>

#include <iostream>

#include "runtime/device_registry.h"
#include "runtime/jit/jit_backend.h"
#include "targets/target_registry.h"
#include "ops/op_suite.h"
#include "tools/common/working_directory.h"
#include "tools/tile_run/tile_run_main.h"

int main(int argc, char** argv) {
  tile_ir::cli::EnterUserWorkingDirectory();
  return tile_ir::tools::TileRunMain(
      argc, argv, std::cout, std::cerr,
      {tile_ir::runtime::OpenDevice, &tile_ir::ops::OperatorSuite(),
       tile_ir::runtime::jit::OpenJitBackend,
       [](std::string_view target) { return tile_ir::targets::LinkedTargets().Resolve(target); },
       isatty(STDERR_FILENO) == 1});
}
