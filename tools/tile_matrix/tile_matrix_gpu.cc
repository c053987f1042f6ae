// tile-matrix-gpu: tile-matrix with the CUDA family alone and no LLVM, for the
// GPU machine (whose other families would only regress records made here:
// it has no hipcc); its `run --out=FILE` records go through `tile-matrix merge` here.
#include <iostream>

#include "targets/target_registry.h"
#include "tools/common/working_directory.h"
#include "tools/tile_matrix/target_prober.h"
#include "tools/tile_matrix/tile_matrix_main.h"

int main(int argc, char** argv) {
  tile_ir::cli::EnterUserWorkingDirectory();
  return tile_ir::matrix::TileMatrixMain(
      argc, argv, std::cout, std::cerr,
      tile_ir::matrix::DefaultEnvironment("tile-matrix-gpu", [] {
        tile_ir::matrix::Probers probers;
        probers.push_back(
            tile_ir::matrix::MakeTargetProber(tile_ir::targets::LinkedTargets(), "cuda"));
        return probers;
      }));
}
