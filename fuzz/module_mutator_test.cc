// The structure-aware mutator changes modules while keeping them messages
// that serialize, and enough of its mutants still read as modules for the
// fuzz targets behind the reader to be reached.
#include "fuzz/module_mutator.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

#include "frontends/text/parser.h"
#include "tile_ir/proto/tile_ir.pb.h"
#include "tile_ir/proto_convert.h"
#include "tile_ir/serialization.h"

namespace tile_ir::fuzz {
namespace {

constexpr char kModule[] = R"(ir_version 1;
producer "test" "1";

kernel scale<N: i32>(X: f32[N], Y: f32[N]) grid(bx: ceildiv(N, 64)) threads(64) {
  for i in 0 +: 64 serial {
    Y[bx * 64 + i] = X[bx * 64 + i] * 2.0;
  }
}
)";

TEST(ModuleMutatorTest, MutantsSerializeAndManyStillRead) {
  absl::StatusOr<Module> module = text::ParseModule(kModule, "scale.tile");
  ASSERT_TRUE(module.ok()) << module.status();
  const std::string original = WriteModuleProto(*module);
  int changed = 0;
  int read = 0;
  for (unsigned seed = 0; seed < 300; ++seed) {
    v1::Module message;
    ASSERT_TRUE(message.ParseFromString(original));
    std::mt19937_64 rng(seed);
    MutateMessage(message, rng);
    std::string bytes;
    ASSERT_TRUE(message.SerializeToString(&bytes)) << "seed " << seed;
    changed += bytes != original;
    read += ReadModuleProto(bytes, "mutant.tilepb").ok();
  }
  EXPECT_GT(changed, 200);
  EXPECT_GT(read, 30);
  EXPECT_LT(read, 300);
}

}  // namespace
}  // namespace tile_ir::fuzz
