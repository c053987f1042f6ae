// tile-opt over the test targets, for golden tests of passes that take a
// target (docs: fake_targets.h): --target=test-cpu or --target=test-gpu.
#include <iostream>

#include "passes/all_passes.h"
#include "passes/testing/fake_targets.h"
#include "tools/tile_opt/tile_opt_main.h"

namespace {

absl::StatusOr<tile_ir::tools::PipelineTarget> Resolve(std::string_view name) {
  absl::StatusOr<std::shared_ptr<const tile_ir::passes::TargetInfo>> info =
      tile_ir::passes::testing::FindFakeTarget(name);
  if (!info.ok()) return info.status();
  return tile_ir::tools::PipelineTarget{
      std::string(name), *info, tile_ir::passes::BuiltinPassRegistry(),
      "simplify,layout-inference,lower-tile-ops,bound-predication,simplify"};
}

}  // namespace

int main(int argc, char** argv) {
  tile_ir::passes::testing::RegisterFakeIntrinsics();
  return tile_ir::tools::TileOptMain(
      argc, argv, std::cin, std::cout, std::cerr,
      {Resolve, "  test-cpu\n      one thread per block\n  test-gpu\n      warps of 32\n"});
}
