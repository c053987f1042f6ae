// Verifier tests of tile operations, regions and bounds, loop annotations,
// the launch configuration, buffer declarations and layouts.
#include <gtest/gtest.h>

#include "tile_ir/verifier.h"
#include "tile_ir/verifier_test_util.h"

namespace tile_ir {
namespace {

using verifier_testing::ConstRegion;
using verifier_testing::DiagnosticsText;
using verifier_testing::GemmParts;
using verifier_testing::HasOneError;
using verifier_testing::kKernelLoc;
using verifier_testing::kUserLoc;

Buffer Fragment(std::string name, DataType type, std::vector<int64_t> shape,
                MemoryScope scope = MemoryScope::kFragment) {
  std::vector<Expr> dims;
  for (int64_t d : shape) dims.push_back(Int(d));
  return BufferNode::Make(std::move(name), type, dims, scope);
}

void ExpectValid(const Kernel& kernel) {
  std::vector<Diagnostic> diagnostics = VerifyKernel(*kernel);
  EXPECT_TRUE(diagnostics.empty()) << DiagnosticsText(diagnostics);
}

TEST(VerifierRegionTest, RegionMustLieInsideConstantShape) {
  GemmParts g;
  Stmt copy = Copy::Make(ConstRegion(g.a, {{0, 256}, {0, 32}}),
                         ConstRegion(g.a_s, {{0, 256}, {0, 32}}), kUserLoc);
  EXPECT_TRUE(HasOneError(g.WithBody({copy}),
                          "in copy: destination region [0, 256) of 'A_s' exceeds dimension 0 of "
                          "size 128"));
  Stmt negative = Fill::Make(ConstRegion(g.a_s, {{-1, 4}, {0, 32}}), Float(0.0, kF16), kUserLoc);
  EXPECT_TRUE(HasOneError(g.WithBody({negative}),
                          "destination region [-1, 3) of 'A_s' exceeds dimension 0 of size 128"));
}

// Found by the fuzz campaign of 2026-12-03 (fuzz/corpus/cpu_pipeline/): a shared buffer of a
// huge negative constant size made `size - min` overflow. Any region exceeds it, reported
// without arithmetic that overflows (UBSan in the fuzz build).
TEST(VerifierRegionTest, NegativeConstantSizeIsExceededWithoutOverflow) {
  Buffer tile = Fragment("T_s", kF16, {-8647312868561188258, 4}, MemoryScope::kShared);
  Stmt fill = Fill::Make(ConstRegion(tile, {{8087377393014771774, 1}, {0, 4}}), Float(0.0, kF16),
                         kUserLoc);
  std::vector<Diagnostic> diagnostics = VerifyKernel(*GemmParts().WithBody({fill}));
  EXPECT_NE(DiagnosticsText(diagnostics).find("exceeds dimension 0"), std::string::npos)
      << DiagnosticsText(diagnostics);
}

// What --static-shapes makes of a K tile of 32 over a K of 20: the copy reads columns [0, 32)
// of a tensor of 20, a ragged edge whose accesses bound predication masks. It verifies as it
// did with K symbolic; the shared tile it fills must still hold the region.
TEST(VerifierRegionTest, GlobalRegionMayReachPastAConstantShape) {
  GemmParts g;
  Buffer a = BufferNode::Make("A", kF16, {Int(100), Int(20)}, MemoryScope::kGlobal);
  Stmt copy = Copy::Make(ConstRegion(a, {{64, 128}, {0, 32}}), Region::Full(g.a_s), kUserLoc);
  Stmt back = Copy::Make(Region::Full(g.a_s), ConstRegion(a, {{-8, 128}, {0, 32}}), kUserLoc);
  Launch launch;
  launch.grid = {{g.bx, Int(1)}};
  launch.threads = {128};
  ExpectValid(KernelNode::Make("matmul", {}, {{a, nullptr}}, launch,
                               Seq::Make({Allocate::Make(g.a_s), copy, back}), kKernelLoc));
}

TEST(VerifierRegionTest, RegionRankAndExtents) {
  GemmParts g;
  Stmt fill = Fill::Make(ConstRegion(g.a_s, {{0, 128}}), Float(0.0, kF16), kUserLoc);
  EXPECT_TRUE(
      HasOneError(g.WithBody({fill}),
                  "the destination region of 'A_s' has 1 ranges, but the buffer has rank 2"));
  Stmt empty = Fill::Make(ConstRegion(g.a_s, {{0, 0}, {0, 32}}), Float(0.0, kF16), kUserLoc);
  EXPECT_TRUE(HasOneError(g.WithBody({empty}),
                          "extent of the destination region in dimension 0 is 0; it must be "
                          "positive"));
}

TEST(VerifierCopyTest, ExtentsAgreeUnitDimensionsAside) {
  GemmParts g;
  Buffer a_row = Fragment("a_row", kF16, {32}, MemoryScope::kLocal);
  ExpectValid(g.WithBody({Allocate::Make(a_row),
                          Copy::Make(ConstRegion(g.a_s, {{5, 1}, {0, 32}}), Region::Full(a_row))}));
  Stmt copy = Copy::Make(ConstRegion(g.a_s, {{0, 32}, {0, 32}}), Region::Full(g.b_s), kUserLoc);
  EXPECT_TRUE(HasOneError(g.WithBody({copy}),
                          "source extents [32, 32] differ from destination extents [32, 128]"));
}

TEST(VerifierGemmTest, Scopes) {
  GemmParts g;
  Buffer c_s = Fragment("C_s", kF32, {128, 128}, MemoryScope::kShared);
  EXPECT_TRUE(HasOneError(
      g.WithBody({Allocate::Make(c_s),
                  Gemm::Make(Region::Full(g.a_s), Region::Full(g.b_s), Region::Full(c_s), false,
                             false, WarpPolicy::kSquare, false, kUserLoc)}),
      "accumulator C 'C_s' (shared) must be in fragment or local memory"));
  Stmt global_a =
      Gemm::Make(ConstRegion(g.a, {{0, 128}, {0, 32}}), Region::Full(g.b_s), Region::Full(g.c_l),
                 false, false, WarpPolicy::kSquare, false, kUserLoc);
  EXPECT_TRUE(HasOneError(g.WithBody({global_a}),
                          "operand A 'A' (global) must be in shared or fragment memory"));
}

TEST(VerifierGemmTest, AccumulatorType) {
  GemmParts g;
  Buffer c_i8 = Fragment("C_i8", kI8, {128, 128});
  EXPECT_TRUE(HasOneError(
      g.WithBody({Allocate::Make(c_i8),
                  Gemm::Make(Region::Full(g.a_s), Region::Full(g.b_s), Region::Full(c_i8), false,
                             false, WarpPolicy::kSquare, false, kUserLoc)}),
      "accumulator C 'C_i8' must hold a float type or i32, not i8"));
}

TEST(VerifierGemmTest, ShapesAgreeWithTransposeFlags) {
  GemmParts g;
  Buffer b_t = Fragment("B_t", kF16, {128, 32}, MemoryScope::kShared);
  ExpectValid(g.WithBody({Allocate::Make(b_t), Gemm::Make(Region::Full(g.a_s), Region::Full(b_t),
                                                          Region::Full(g.c_l), false, true)}));
  Buffer b_long = Fragment("B_long", kF16, {128, 128}, MemoryScope::kShared);
  EXPECT_TRUE(HasOneError(
      g.WithBody({Allocate::Make(b_long),
                  Gemm::Make(Region::Full(g.a_s), Region::Full(b_long), Region::Full(g.c_l), false,
                             false, WarpPolicy::kSquare, false, kUserLoc)}),
      "shapes disagree: K is 32 in A but 128 in B (transpose_a=false, "
      "transpose_b=false)"));
}

TEST(VerifierGemmTest, OperandsAreMatricesAfterLeadingUnitDims) {
  GemmParts g;
  Buffer stages = Fragment("A_stages", kF16, {3, 128, 32}, MemoryScope::kShared);
  ExpectValid(g.WithBody(
      {Allocate::Make(stages), Gemm::Make(ConstRegion(stages, {{1, 1}, {0, 128}, {0, 32}}),
                                          Region::Full(g.b_s), Region::Full(g.c_l))}));
  EXPECT_TRUE(HasOneError(g.WithBody({Allocate::Make(stages),
                                      Gemm::Make(ConstRegion(stages, {{0, 2}, {0, 128}, {0, 32}}),
                                                 Region::Full(g.b_s), Region::Full(g.c_l), false,
                                                 false, WarpPolicy::kSquare, false, kUserLoc)}),
                          "A must be a 2-D region (leading unit dimensions aside), but has 3"));
}

TEST(VerifierTileOpsTest, FillValueType) {
  GemmParts g;
  EXPECT_TRUE(HasOneError(g.WithBody({Fill::Make(Region::Full(g.c_l), Float(0.0, kF64), kUserLoc)}),
                          "in fill: the fill value is f64, but 'C_l' holds f32"));
}

TEST(VerifierTileOpsTest, Reduce) {
  GemmParts g;
  Buffer row_sum = Fragment("row_sum", kF32, {128});
  Buffer short_sum = Fragment("short_sum", kF32, {64});
  Buffer kept = Fragment("kept", kF32, {128, 1});
  auto reduce = [&](const Buffer& src, const Buffer& dst, int dim) {
    return g.WithBody({Allocate::Make(row_sum), Allocate::Make(short_sum), Allocate::Make(kept),
                       Reduce::Make(ReduceKind::kSum, Region::Full(src), Region::Full(dst), dim,
                                    true, kUserLoc)});
  };
  ExpectValid(reduce(g.c_l, row_sum, 1));
  ExpectValid(reduce(g.c_l, kept, 1));
  EXPECT_TRUE(
      HasOneError(reduce(g.c_l, row_sum, 2), "dim 2 is out of range for a source of rank 2"));
  EXPECT_TRUE(HasOneError(reduce(g.c_l, short_sum, 1),
                          "destination extents [64] do not match source extents [128, 128] "
                          "reduced over dim 1"));
  EXPECT_TRUE(HasOneError(reduce(g.c_l, g.c_l, 1),
                          "the destination has rank 2, but reducing dim 1 of a rank 2 source "
                          "needs rank 1"));
  Stmt from_global = Reduce::Make(ReduceKind::kMax, ConstRegion(g.c, {{0, 128}, {0, 128}}),
                                  Region::Full(row_sum), 1, true, kUserLoc);
  EXPECT_TRUE(HasOneError(g.WithBody({Allocate::Make(row_sum), from_global}),
                          "the source 'C' (global) must not be global"));
}

TEST(VerifierTileOpsTest, BitwiseReductionsTakeIntegers) {
  GemmParts g;
  Buffer row = Fragment("row", kF32, {128});
  Buffer flags = Fragment("flags", kI32, {128, 128});
  Buffer row_flags = Fragment("row_flags", kI32, {128});
  auto reduce = [&](ReduceKind kind, const Buffer& src, const Buffer& dst) {
    return g.WithBody({Allocate::Make(row), Allocate::Make(flags), Allocate::Make(row_flags),
                       Reduce::Make(kind, Region::Full(src), Region::Full(dst), 1, true,
                                    kUserLoc)});
  };
  for (ReduceKind kind : {ReduceKind::kBitAnd, ReduceKind::kBitOr, ReduceKind::kBitXor}) {
    ExpectValid(reduce(kind, flags, row_flags));
  }
  EXPECT_TRUE(HasOneError(reduce(ReduceKind::kBitOr, g.c_l, row_flags),
                          "the reduction 'bitor' takes integers, but the source 'C_l' "));
  EXPECT_TRUE(HasOneError(reduce(ReduceKind::kBitAnd, flags, row),
                          "the reduction 'bitand' takes integers, but the destination 'row' "));
  ExpectValid(reduce(ReduceKind::kAbsSum, g.c_l, row));
  ExpectValid(reduce(ReduceKind::kProd, g.c_l, row));
}

TEST(VerifierTileOpsTest, Cumsum) {
  GemmParts g;
  Buffer half = Fragment("half", kF32, {128, 64});
  EXPECT_TRUE(HasOneError(
      g.WithBody({Cumsum::Make(Region::Full(g.c_l), Region::Full(g.c_l), 2, false, kUserLoc)}),
      "in cumsum: dim 2 is out of range for a source of rank 2"));
  EXPECT_TRUE(HasOneError(
      g.WithBody({Allocate::Make(half),
                  Cumsum::Make(Region::Full(g.c_l), Region::Full(half), 1, false, kUserLoc)}),
      "destination extents [128, 64] differ from source extents [128, 128]"));
}

TEST(VerifierTileOpsTest, AtomicAddDestinationScope) {
  GemmParts g;
  Buffer acc = Fragment("acc", kF32, {128, 128});
  EXPECT_TRUE(
      HasOneError(g.WithBody({Allocate::Make(acc),
                              AtomicAdd::Make(Region::Full(g.c_l), Region::Full(acc), kUserLoc)}),
                  "in atomic_add: the destination 'acc' (fragment) must be in global or "
                  "shared memory"));
}

TEST(VerifierScopeTest, ParametersAreGlobalAndAllocationsAreNot) {
  GemmParts g;
  Buffer global = Fragment("G", kF32, {4}, MemoryScope::kGlobal);
  EXPECT_TRUE(HasOneError(g.WithBody({Allocate::Make(global, kUserLoc)}),
                          "in alloc 'G': cannot allocate global memory"));
  Buffer shared_param = Fragment("S", kF32, {4}, MemoryScope::kShared);
  Kernel kernel = KernelNode::Make("matmul", {}, {{shared_param, nullptr}}, g.DefaultLaunch(),
                                   Seq::Make({}), kKernelLoc);
  std::vector<Diagnostic> diagnostics = VerifyKernel(*kernel);
  // The default launch uses M and N, which this kernel lacks.
  ASSERT_EQ(diagnostics.size(), 3u) << DiagnosticsText(diagnostics);
  EXPECT_EQ(diagnostics[0].ToString(),
            "user.cc:1:1: error: in kernel 'matmul': in parameter 'S': buffer parameters are "
            "global, but this one is shared");
}

TEST(VerifierBufferTest, Declarations) {
  GemmParts g;
  Buffer void_buffer = Fragment("V", kVoid, {4}, MemoryScope::kLocal);
  EXPECT_TRUE(HasOneError(g.WithBody({Allocate::Make(void_buffer, kUserLoc)}),
                          "buffer 'V' needs a non-void scalar element type, not void"));
  Buffer float_shape = BufferNode::Make("F", kF32, {Float(4.0)}, MemoryScope::kLocal);
  EXPECT_TRUE(HasOneError(g.WithBody({Allocate::Make(float_shape, kUserLoc)}),
                          "size of dimension 0 of 'F' must be an integer scalar, not f32"));
  Buffer strided = BufferNode::Make("T", kF32, {Int(4), Int(4)}, MemoryScope::kShared, {Int(1)});
  EXPECT_TRUE(
      HasOneError(g.WithBody({Allocate::Make(strided, kUserLoc)}), "'T' has 1 strides for rank 2"));
  Buffer zero = Fragment("Z", kF32, {0}, MemoryScope::kLocal);
  EXPECT_TRUE(HasOneError(g.WithBody({Allocate::Make(zero, kUserLoc)}),
                          "size of dimension 0 of 'Z' is 0; sizes must be positive"));
}

TEST(VerifierLayoutTest, InputsMatchRankAndOutputsUseOnlyInputs) {
  GemmParts g;
  VarRef i = Var::Make("i");
  VarRef j = Var::Make("j");
  Layout good{{i, j}, {Binary::Make(BinaryOp::kAdd, Binary::Make(BinaryOp::kMul, i, Int(32)), j)}};
  ExpectValid(g.WithBody({Allocate::Make(
      BufferNode::Make("L", kF16, {Int(128), Int(32)}, MemoryScope::kShared, {}, good))}));
  Layout short_inputs{{i}, {i}};
  EXPECT_TRUE(HasOneError(
      g.WithBody({Allocate::Make(
          BufferNode::Make("L", kF16, {Int(128), Int(32)}, MemoryScope::kShared, {}, short_inputs),
          kUserLoc)}),
      "the layout of 'L' has 1 inputs, but the buffer has rank 2"));
  Layout outer{{i, j}, {Binary::Make(BinaryOp::kAdd, i, g.bx)}};
  EXPECT_TRUE(HasOneError(
      g.WithBody({Allocate::Make(
          BufferNode::Make("L", kF16, {Int(128), Int(32)}, MemoryScope::kShared, {}, outer),
          kUserLoc)}),
      "variable 'bx' cannot be used here: only the layout's input variables may appear"));
  Layout float_output{{i, j}, {Float(1.0)}};
  EXPECT_TRUE(HasOneError(
      g.WithBody({Allocate::Make(
          BufferNode::Make("L", kF16, {Int(128), Int(32)}, MemoryScope::kShared, {}, float_output),
          kUserLoc)}),
      "output 0 of the layout of 'L' must be an integer scalar, not f32"));
}

// A loop over two barriers, in a kernel built from `parts`.
Kernel LoopKernel(ForKind kind, PipelineInfo pipeline, ThreadAxis axis, Expr extent = Int(8),
                  const GemmParts& parts = GemmParts()) {
  std::vector<Stmt> body(2, Barrier::Make());
  return parts.WithBody({For::Make(Var::Make("k"), Int(0), std::move(extent), kind, Seq::Make(body),
                                   kUserLoc, pipeline, axis)});
}

TEST(VerifierLoopTest, Pipelined) {
  const ForKind kPipe = ForKind::kPipelined;
  const ThreadAxis kNone = ThreadAxis::kNone;
  ExpectValid(LoopKernel(kPipe, {0, {}, {}}, kNone));
  ExpectValid(LoopKernel(kPipe, {2, {1, 0}, {0, 1}}, kNone));
  EXPECT_TRUE(HasOneError(LoopKernel(kPipe, {-1, {}, {}}, kNone),
                          "in for loop over 'k': num_stages must be at least 0, not -1"));
  EXPECT_TRUE(HasOneError(LoopKernel(kPipe, {2, {0}, {0, 1}}, kNone),
                          "order and stage need one entry per statement of the loop body (2), but "
                          "have 1 and 2"));
  EXPECT_TRUE(HasOneError(LoopKernel(kPipe, {2, {0, 0}, {0, 1}}, kNone),
                          "order [0, 0] is not a permutation of 0..1"));
  EXPECT_TRUE(HasOneError(LoopKernel(kPipe, {2, {0, 1}, {0, 2}}, kNone),
                          "stage 2 of statement 1 is outside [0, num_stages) = [0, 2)"));
}

TEST(VerifierLoopTest, ThreadAxisAndPipelineOnlyWhereTheyBelong) {
  EXPECT_TRUE(HasOneError(LoopKernel(ForKind::kThreadBound, {}, ThreadAxis::kNone),
                          "a thread_bound loop needs a thread axis (x, y or z)"));
  ExpectValid(LoopKernel(ForKind::kThreadBound, {}, ThreadAxis::kY));
  EXPECT_TRUE(HasOneError(LoopKernel(ForKind::kSerial, {}, ThreadAxis::kX),
                          "only thread_bound loops have a thread axis, but this serial loop has "
                          "axis x"));
  EXPECT_TRUE(HasOneError(LoopKernel(ForKind::kUnrolled, {2, {}, {}}, ThreadAxis::kNone),
                          "only pipelined loops have num_stages, order and stage, but this loop "
                          "is unrolled"));
}

TEST(VerifierLoopTest, VectorizedExtent) {
  const ThreadAxis kNone = ThreadAxis::kNone;
  ExpectValid(LoopKernel(ForKind::kVectorized, {}, kNone, Int(8)));
  // A symbolic extent becomes a constant when the kernel is specialized.
  GemmParts g;
  ExpectValid(LoopKernel(ForKind::kVectorized, {}, kNone, g.m, g));
  EXPECT_TRUE(
      HasOneError(LoopKernel(ForKind::kVectorized, {}, kNone, Int(6)),
                  "a vectorized loop's extent must be a power of two of at least 2, not 6"));
  EXPECT_TRUE(
      HasOneError(LoopKernel(ForKind::kVectorized, {}, kNone, Int(1)),
                  "a vectorized loop's extent must be a power of two of at least 2, not 1"));
}

TEST(VerifierLoopTest, MissingBody) {
  GemmParts g;
  EXPECT_TRUE(HasOneError(
      g.WithBody({For::Make(Var::Make("k"), Int(0), Int(4), ForKind::kSerial, nullptr, kUserLoc)}),
      "in for loop over 'k': missing loop body"));
}

TEST(VerifierLaunchTest, GridAxes) {
  GemmParts g;
  Launch none = g.DefaultLaunch();
  none.grid.clear();
  EXPECT_TRUE(
      HasOneError(g.WithLaunch(none), "in launch: the grid needs 1 to 3 axes, not 0", kKernelLoc));
  Launch uses_block_index = g.DefaultLaunch();
  uses_block_index.grid[1].extent = g.bx;
  EXPECT_TRUE(HasOneError(g.WithLaunch(uses_block_index),
                          "in grid axis 'by': variable 'bx' cannot be used here: only kernel "
                          "dimensions and scalar parameters may appear",
                          kKernelLoc));
  Launch negative = g.DefaultLaunch();
  negative.grid[0].extent = Int(-2);
  EXPECT_TRUE(HasOneError(g.WithLaunch(negative), "grid extent -2 must be positive", kKernelLoc));
  Launch i64_index = g.DefaultLaunch();
  i64_index.grid[0].var = Var::Make("bx", kI64);
  EXPECT_TRUE(HasOneError(g.WithLaunch(i64_index), "a block index variable must be i32, not i64",
                          kKernelLoc));
}

TEST(VerifierLaunchTest, ThreadsClusterAndSwizzle) {
  GemmParts g;
  struct Case {
    std::vector<int64_t> threads;
    std::vector<int64_t> cluster;
    int panel_size;
    const char* message;
  };
  for (const Case& c :
       {Case{{}, {}, 8, "threads needs 1 to 3 extents, not 0"},
        Case{{1, 1, 1, 1}, {}, 8, "threads needs 1 to 3 extents, not 4"},
        Case{{0}, {}, 8, "thread extent 0 must be positive"},
        Case{{64, 32}, {}, 8, "a block has more than 1024 threads"},
        Case{{int64_t{1} << 40, int64_t{1} << 40}, {}, 8, "a block has more than 1024 threads"},
        Case{{128}, {2, 0}, 8, "cluster extent 0 must be positive"},
        Case{{128}, {}, 0, "swizzle panel size 0 must be positive"}}) {
    SCOPED_TRACE(c.message);
    Launch launch = g.DefaultLaunch();
    launch.threads = c.threads;
    launch.cluster = c.cluster;
    launch.swizzle->panel_size = c.panel_size;
    EXPECT_TRUE(HasOneError(g.WithLaunch(launch), c.message, kKernelLoc));
  }
  Launch full = g.DefaultLaunch();
  full.threads = {32, 32};
  full.cluster = {2, 1};
  ExpectValid(g.WithLaunch(full));
}

TEST(VerifierSignatureTest, DimensionsAndScalars) {
  GemmParts g;
  Kernel float_dim = KernelNode::Make("matmul", {Var::Make("D", kF32)}, {}, g.DefaultLaunch(),
                                      Seq::Make({}), kKernelLoc);
  std::vector<Diagnostic> diagnostics = VerifyKernel(*float_dim);
  ASSERT_FALSE(diagnostics.empty());
  EXPECT_EQ(diagnostics[0].message, "in dimension 'D': a dimension must be i32 or i64, not f32");
  Param vector_scalar{nullptr, Var::Make("alpha", kF32.with_lanes(4))};
  Kernel kernel = KernelNode::Make("matmul", {g.m, g.n}, {vector_scalar}, g.DefaultLaunch(),
                                   Seq::Make({}), kKernelLoc);
  EXPECT_TRUE(HasOneError(kernel,
                          "in parameter 'alpha': a scalar parameter needs a non-void "
                          "scalar type, not f32x4",
                          kKernelLoc));
}

}  // namespace
}  // namespace tile_ir
