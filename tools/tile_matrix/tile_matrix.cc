// tile-matrix: the support matrix with every backend this build has (see --help).
#include <iostream>

#include "tools/common/working_directory.h"
#include "tools/tile_matrix/all_probers.h"
#include "tools/tile_matrix/tile_matrix_main.h"

int main(int argc, char** argv) {
  tile_ir::cli::EnterUserWorkingDirectory();
  return tile_ir::matrix::TileMatrixMain(
      argc, argv, std::cout, std::cerr,
      tile_ir::matrix::DefaultEnvironment("tile-matrix", tile_ir::matrix::AllProbers));
}
