// tile-opt: runs pass pipelines over tile IR modules (see --help).
#include <iostream>

#include "tools/common/working_directory.h"
#include "tools/tile_opt/linked_pipeline_targets.h"
#include "tools/tile_opt/tile_opt_main.h"

int main(int argc, char** argv) {
  tile_ir::cli::EnterUserWorkingDirectory();
  return tile_ir::tools::TileOptMain(argc, argv, std::cin, std::cout, std::cerr,
                                     tile_ir::tools::LinkedPipelineTargets());
}
