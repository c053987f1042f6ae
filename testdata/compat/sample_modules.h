// Modules that together use every IR node kind, every enum value and every scalar type: the
// round-trip tests convert them, and write_compat_files froze them into testdata/compat/v<N>/
// once per ir_version.
#ifndef TESTDATA_COMPAT_SAMPLE_MODULES_H_
#define TESTDATA_COMPAT_SAMPLE_MODULES_H_

#include <string>
#include <vector>

#include "tile_ir/module.h"

namespace tile_ir::compat {

struct SampleModule {
  std::string name;  // the file stem under testdata/compat/v<N>/
  Module module;
};

// A tiled GEMM at the tile level (copy, gemm, fill, pipelined loops, swizzles, clusters) with
// source locations; a softmax-like kernel (reduce, cumsum, atomic_add, layouts, strides,
// scalar parameters, if/else); a thread-level kernel (thread-bound, vectorized and unrolled
// loops, barriers, ramps, broadcasts, every binary operator of version 1 and every scalar
// type); all three of ir_version 1. Then the features of version 2: a shared tile with an
// XOR-swizzled layout and ^ on every integer type and on vector lanes. Then the feature of
// version 3: a kernel's shape requirements. Version 4: a replicated fragment layout. Version 5:
// bitwise and, or and shifts, reinterpret, atomic max and min. Version 6: the reductions
// abssum, prod, bitand, bitor and bitxor. Version 7: the unsigned types u16, u32 and u64.
std::vector<SampleModule> SampleModules();

}  // namespace tile_ir::compat

#endif  // TESTDATA_COMPAT_SAMPLE_MODULES_H_
