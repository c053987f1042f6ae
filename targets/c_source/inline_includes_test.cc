// InlineIncludes pastes embedded headers in include order, each once, naming where each came
// from, and leaves every other line alone.
#include "targets/c_source/inline_includes.h"

#include <gtest/gtest.h>

namespace tile_ir::c_source {
namespace {

constexpr EmbeddedFile kFiles[] = {
    {"tl/a.h", "#pragma once\n#include <cstdint>\nint a;\n", "lib/a.h"},
    {"tl/b.h", "  #  pragma   once\n#include \"tl/a.h\"\nint b;\n", "lib/b.h"},
    {"tl/common.h",
     "#pragma once\n#include \"tl/b.h\"\n#include \"tl/shared/d.h\"\n#include \"tl/a.h\"\nint c;\n",
     "lib/common.h"},
    // Another folder: each file names its own origin.
    {"tl/shared/d.h", "#pragma once\nint d;\n", "shared/device/d.h"},
};

TEST(InlineIncludesTest, PastesInIncludeOrderEachOnce) {
  EXPECT_EQ(InlineIncludes("// generated\n#include \"tl/common.h\"\n#include \"tl/a.h\"\n"
                           "#include \"other.h\"\n__global__ void k() {}\n",
                           kFiles),
            "// generated\n"
            "// ---- tl/common.h from lib/common.h ----\n"
            "// ---- tl/b.h from lib/b.h ----\n"
            "// ---- tl/a.h from lib/a.h ----\n"
            "#include <cstdint>\n"
            "int a;\n"
            "// ---- end of tl/a.h ----\n"
            "int b;\n"
            "// ---- end of tl/b.h ----\n"
            "// ---- tl/shared/d.h from shared/device/d.h ----\n"
            "int d;\n"
            "// ---- end of tl/shared/d.h ----\n"
            "// tl/a.h was pasted above\n"
            "int c;\n"
            "// ---- end of tl/common.h ----\n"
            "// tl/a.h was pasted above\n"
            "#include \"other.h\"\n"
            "__global__ void k() {}\n");
}

TEST(InlineIncludesTest, KeepsAPragmaOnceOfTheSourceAndAnIncludeCycleEnds) {
  constexpr EmbeddedFile kCycle[] = {{"x.h", "#include \"y.h\"\nx\n", "x.h"},
                                     {"y.h", "#include \"x.h\"\ny\n", "y.h"}};
  EXPECT_EQ(InlineIncludes("#pragma once\n#include \"x.h\"\n", kCycle),
            "#pragma once\n// ---- x.h from x.h ----\n// ---- y.h from y.h ----\n"
            "// x.h was pasted above\ny\n// ---- end of y.h ----\nx\n"
            "// ---- end of x.h ----\n");
}

}  // namespace
}  // namespace tile_ir::c_source
