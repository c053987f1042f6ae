// tile-opt with the test targets registered, for golden tests of passes that
// take a target (docs: fake_targets.h).
#include <iostream>

#include "passes/testing/fake_targets.h"
#include "tools/tile_opt/tile_opt_main.h"

int main(int argc, char** argv) {
  tile_ir::passes::testing::RegisterFakeTargets();
  return tile_ir::tools::TileOptMain(argc, argv, std::cin, std::cout, std::cerr);
}
