// tile-opt over the test targets, for golden tests of passes that take a
// target (docs: fake_targets.h): --target=test-cpu or --target=test-gpu.
#include <iostream>

#include "passes/testing/fake_pipeline_targets.h"
#include "tools/tile_opt/tile_opt_main.h"

int main(int argc, char** argv) {
  return tile_ir::tools::TileOptMain(argc, argv, std::cin, std::cout, std::cerr,
                                     tile_ir::passes::testing::FakePipelineTargets());
}
