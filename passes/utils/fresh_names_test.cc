#include "passes/utils/fresh_names.h"

#include "frontends/text/parser.h"
#include "gtest/gtest.h"

namespace tile_ir::passes {
namespace {

TEST(FreshNamesTest, AvoidsEveryDeclaredName) {
  absl::StatusOr<Module> module = text::ParseModule(R"(ir_version 1;
producer "t" "1";

kernel k<M: i32>(A: f32[M], s: f32) grid(bx: 1) threads(1) {
  let i: i32 = 0;
  alloc j: local f32[4] layout((q) -> (0, q));
  for k in 0 +: 4 serial {
    for i_1 in 0 +: 4 serial {
      A[k + i_1] = s;
    }
  }
}
)",
                                                    "t.tile");
  ASSERT_TRUE(module.ok()) << module.status();
  FreshNames names(*module->kernels[0]);
  for (const char* taken : {"M", "A", "s", "bx", "i", "j", "k"}) {
    EXPECT_NE(names.Fresh(taken), taken);
  }
  EXPECT_EQ(names.Fresh("i"), "i_3");  // i_1 is declared, i_2 was just handed out
  EXPECT_EQ(names.Fresh("q"), "q");    // layout inputs are not kernel names
  EXPECT_EQ(names.Fresh("q"), "q_1");
  EXPECT_EQ(names.Fresh("for"), "for_");
}

}  // namespace
}  // namespace tile_ir::passes
