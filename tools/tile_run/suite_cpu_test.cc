// The whole operator suite on the CPU target, at default and at ragged
// shapes, checked against the float64 references with fresh random inputs on
// every run (the seed is printed so a failure can be replayed with --seed).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "runtime/device_registry.h"
#include "ops/op_suite.h"
#include "tools/tile_run/tile_run_main.h"

namespace tile_ir::tools {
namespace {

int RunSuite(std::vector<std::string> args) {
  args.insert(args.begin(), "tile-run");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  std::ostringstream out, err;
  int status = TileRunMain(static_cast<int>(argv.size()), argv.data(), out, err,
                           {runtime::OpenDevice, &ops::OperatorSuite()});
  std::cout << out.str() << err.str();
  return status;
}

std::string FreshSeed() {
  const uint64_t seed = static_cast<uint64_t>(
      std::chrono::steady_clock::now().time_since_epoch().count() % 1000000007);
  std::cout << "seed: " << seed << "\n";
  return "--seed=" + std::to_string(seed);
}

TEST(SuiteCpuTest, EveryOperatorPassesAtDefaultShapes) {
  EXPECT_EQ(RunSuite({"--all", "--target=cpu", FreshSeed()}), 0);
}

TEST(SuiteCpuTest, EveryOperatorPassesAtRaggedShapes) {
  EXPECT_EQ(RunSuite({"--all", "--ragged", "--target=cpu", FreshSeed()}), 0);
}

}  // namespace
}  // namespace tile_ir::tools
