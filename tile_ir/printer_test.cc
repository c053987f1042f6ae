// The canonical printer: precedence, literals, regions, names, layout of the text.
#include "tile_ir/printer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "tile_ir/buffer.h"
#include "tile_ir/expr.h"
#include "tile_ir/module.h"
#include "tile_ir/stmt.h"

namespace tile_ir {
namespace {

Expr Add(Expr a, Expr b) { return Binary::Make(BinaryOp::kAdd, std::move(a), std::move(b)); }
Expr Sub(Expr a, Expr b) { return Binary::Make(BinaryOp::kSub, std::move(a), std::move(b)); }
Expr Mul(Expr a, Expr b) { return Binary::Make(BinaryOp::kMul, std::move(a), std::move(b)); }
Expr Neg(Expr a) { return Unary::Make(UnaryOp::kNeg, std::move(a)); }
Expr Not(Expr a) { return Unary::Make(UnaryOp::kNot, std::move(a)); }

class PrinterTest : public ::testing::Test {
 protected:
  VarRef a_ = Var::Make("a");
  VarRef b_ = Var::Make("b");
  VarRef c_ = Var::Make("c");
};

TEST_F(PrinterTest, ParenthesizesOnlyWherePrecedenceRequires) {
  EXPECT_EQ(Print(Add(Add(a_, b_), c_)), "a + b + c");
  EXPECT_EQ(Print(Add(a_, Add(b_, c_))), "a + (b + c)");
  EXPECT_EQ(Print(Sub(a_, Sub(b_, c_))), "a - (b - c)");
  EXPECT_EQ(Print(Mul(Add(a_, b_), c_)), "(a + b) * c");
  EXPECT_EQ(Print(Add(Mul(a_, b_), c_)), "a * b + c");
  EXPECT_EQ(Print(Add(a_, Mul(b_, c_))), "a + b * c");
  Expr less = Binary::Make(BinaryOp::kLt, a_, b_);
  Expr equal = Binary::Make(BinaryOp::kEq, less, Bool(true));
  EXPECT_EQ(Print(equal), "a < b == true");
  EXPECT_EQ(Print(Binary::Make(BinaryOp::kLt, a_, Binary::Make(BinaryOp::kLt, b_, c_))),
            "a < (b < c)");
  Expr both = Binary::Make(BinaryOp::kAnd, less, Binary::Make(BinaryOp::kOr, less, less));
  EXPECT_EQ(Print(both), "a < b && (a < b || a < b)");
  EXPECT_EQ(Print(Binary::Make(BinaryOp::kOr, both, less)), "a < b && (a < b || a < b) || a < b");
  EXPECT_EQ(Print(Not(less)), "!(a < b)");
  EXPECT_EQ(Print(Neg(Neg(a_))), "--a");
  EXPECT_EQ(Print(Neg(Mul(a_, b_))), "-(a * b)");
  EXPECT_EQ(Print(Mul(Neg(a_), b_)), "-a * b");
  EXPECT_EQ(Print(Binary::Make(BinaryOp::kMod, a_, Binary::Make(BinaryOp::kDiv, b_, c_))),
            "a % (b / c)");
}

// '^' sits between && and == as in C.
TEST_F(PrinterTest, XorHasCsPrecedence) {
  auto Xor = [](Expr a, Expr b) {
    return Binary::Make(BinaryOp::kXor, std::move(a), std::move(b));
  };
  Expr chunk = Binary::Make(BinaryOp::kDiv, a_, Int(8));
  Expr row = Binary::Make(BinaryOp::kMod, b_, Int(8));
  EXPECT_EQ(Print(Xor(chunk, row)), "a / 8 ^ b % 8");
  EXPECT_EQ(Print(Mul(Xor(chunk, row), Int(8))), "(a / 8 ^ b % 8) * 8");
  EXPECT_EQ(Print(Xor(Xor(a_, b_), c_)), "a ^ b ^ c");
  EXPECT_EQ(Print(Xor(a_, Xor(b_, c_))), "a ^ (b ^ c)");
  EXPECT_EQ(Print(Xor(Add(a_, b_), c_)), "a + b ^ c");
  EXPECT_EQ(Print(Binary::Make(BinaryOp::kEq, Xor(a_, b_), c_)), "(a ^ b) == c");
  Expr less = Binary::Make(BinaryOp::kLt, a_, b_);
  EXPECT_EQ(Print(Binary::Make(BinaryOp::kAnd, less, Binary::Make(BinaryOp::kEq, Xor(a_, b_), c_))),
            "a < b && (a ^ b) == c");
  EXPECT_EQ(Print(Neg(Xor(a_, b_))), "-(a ^ b)");
}

// The module's version is the oldest one that has '^' when it is used, whatever the field says.
TEST_F(PrinterTest, ModuleVersionIsTheOldestThatHasItsFeatures) {
  Buffer out = BufferNode::Make("Out", kI32, {Int(8)}, MemoryScope::kGlobal);
  VarRef i = Var::Make("i");
  auto module_storing = [&](Expr value) {
    Module module;
    module.producer = "p";
    module.producer_version = "1";
    Launch launch{{{Var::Make("bx"), Int(1)}}, {8}, {}, {}};
    Stmt loop = For::Make(i, Int(0), Int(8), ForKind::kParallel, Store::Make(out, {i}, value));
    module.kernels.push_back(KernelNode::Make("k", {}, {Param{out, nullptr}}, launch, loop));
    return module;
  };
  Module plain = module_storing(Add(i, Int(1)));
  EXPECT_EQ(plain.ir_version, kIrVersion);
  EXPECT_EQ(Print(plain).substr(0, 14), "ir_version 1;\n");
  Module swizzled = module_storing(Binary::Make(BinaryOp::kXor, i, Int(1)));
  swizzled.ir_version = 1;
  EXPECT_EQ(Print(swizzled), R"(ir_version 2;
producer "p" "1";

kernel k(Out: i32[8])
    grid(bx: 1) threads(8) {
  for i in 0 +: 8 parallel {
    Out[i] = i ^ 1;
  }
}
)");
}

TEST_F(PrinterTest, NegatedLiteralsStayApartFromNegativeLiterals) {
  EXPECT_EQ(Print(Int(-3)), "-3");
  EXPECT_EQ(Print(Neg(Int(3))), "-(3)");
  EXPECT_EQ(Print(Neg(Int(-3))), "-(-3)");
  EXPECT_EQ(Print(Neg(Float(1.5, kF16))), "-(1.5_f16)");
  EXPECT_EQ(Print(Sub(a_, Int(-3))), "a - -3");
  EXPECT_EQ(Print(Sub(a_, Neg(Int(3)))), "a - -(3)");
  EXPECT_EQ(Print(Not(Int(-1))), "!-1");
}

TEST_F(PrinterTest, IntegerLiterals) {
  EXPECT_EQ(Print(Int(7)), "7");
  EXPECT_EQ(Print(Int(7, kI64)), "7_i64");
  EXPECT_EQ(Print(Int(255, kU8)), "255_u8");
  EXPECT_EQ(Print(Int(-8, kI4)), "-8_i4");
  EXPECT_EQ(Print(Int(std::numeric_limits<int64_t>::min(), kI64)), "-9223372036854775808_i64");
  EXPECT_EQ(Print(Bool(true)), "true");
  EXPECT_EQ(Print(Bool(false)), "false");
  EXPECT_EQ(Print(Int(1, kI32.with_lanes(4))), "1_i32x4");
}

TEST_F(PrinterTest, FloatLiteralsAreShortestRoundTrip) {
  EXPECT_EQ(Print(Float(0.0)), "0.0");
  EXPECT_EQ(Print(Float(-0.0)), "-0.0");
  EXPECT_EQ(Print(Float(1.0)), "1.0");
  EXPECT_EQ(Print(Float(0.1)), "0.1");
  EXPECT_EQ(Print(Float(0.5, kF16)), "0.5_f16");
  EXPECT_EQ(Print(Float(1.0, kBF16)), "1.0_bf16");
  EXPECT_EQ(Print(Float(1e20)), "1e+20");
  EXPECT_EQ(Print(Float(1.4426950408889634)), "1.4426950408889634");
  EXPECT_EQ(Print(Float(5e-324, kF64)), "5e-324_f64");
  EXPECT_EQ(Print(Float(INFINITY)), "inf");
  EXPECT_EQ(Print(Float(-INFINITY, kF16)), "-inf_f16");
  EXPECT_EQ(Print(Float(std::nan(""), kF64)), "nan_f64");
}

TEST_F(PrinterTest, CallsAndVectorForms) {
  EXPECT_EQ(Print(Binary::Make(BinaryOp::kMin, a_, b_)), "min(a, b)");
  EXPECT_EQ(Print(Binary::Make(BinaryOp::kMax, a_, b_)), "max(a, b)");
  EXPECT_EQ(Print(Binary::Make(BinaryOp::kCeilDiv, Add(a_, b_), Int(128))), "ceildiv(a + b, 128)");
  EXPECT_EQ(Print(Binary::Make(BinaryOp::kFloorDiv, a_, b_)), "floordiv(a, b)");
  EXPECT_EQ(Print(Binary::Make(BinaryOp::kFloorMod, a_, b_)), "floormod(a, b)");
  EXPECT_EQ(Print(Mul(Binary::Make(BinaryOp::kMin, a_, b_), c_)), "min(a, b) * c");
  EXPECT_EQ(Print(Select::Make(Binary::Make(BinaryOp::kLt, a_, b_), a_, b_)),
            "select(a < b, a, b)");
  EXPECT_EQ(Print(Cast::Make(kF16, Add(a_, b_))), "cast<f16>(a + b)");
  EXPECT_EQ(Print(Call::Make(kF32, "exp2", {Mul(a_, Float(1.5))})), "exp2(a * 1.5)");
  EXPECT_EQ(Print(Ramp::Make(Mul(a_, Int(4)), Int(1), 4)), "ramp(a * 4, 1, 4)");
  EXPECT_EQ(Print(Broadcast::Make(Float(0.0, kF16), 8)), "broadcast(0.0_f16, 8)");
  Buffer buffer = BufferNode::Make("A_s", kF16, {Int(64), Int(64)}, MemoryScope::kShared);
  EXPECT_EQ(Print(BufferLoad::Make(buffer, {a_, Add(b_, Int(1))})), "A_s[a, b + 1]");
}

TEST_F(PrinterTest, FullRegionPrintsAsBareName) {
  VarRef m = Var::Make("M");
  Buffer buffer = BufferNode::Make("A", kF16, {m, Int(32)}, MemoryScope::kGlobal);
  EXPECT_EQ(Print(Region::Full(buffer)), "A");
  Region same_shape{buffer, {{Int(0), Add(m, Int(0))}, {Int(0), Int(32)}}};
  EXPECT_EQ(Print(same_shape), "A[0 +: M + 0, 0 +: 32]");
  Region offset{buffer, {{Int(0), m}, {Int(1), Int(31)}}};
  EXPECT_EQ(Print(offset), "A[0 +: M, 1 +: 31]");
  Region structurally_full{buffer, {{Int(0), m}, {Int(0), Int(32)}}};
  EXPECT_EQ(Print(structurally_full), "A");
  // The bare name reads back with mins typed like the shape, so a zero of
  // another type must stay visible.
  Region other_zero{buffer, {{Int(0, kI64), m}, {Int(0), Int(32)}}};
  EXPECT_EQ(Print(other_zero), "A[0_i64 +: M, 0 +: 32]");
}

TEST_F(PrinterTest, ShadowedAndKeywordNamesAreRenamed) {
  VarRef outer = Var::Make("i");
  VarRef inner = Var::Make("i");
  VarRef keyword = Var::Make("copy");
  Buffer out = BufferNode::Make("out", kF32, {Int(4), Int(4)}, MemoryScope::kLocal);
  Stmt store = Store::Make(out, {outer, inner}, Cast::Make(kF32, keyword));
  Stmt body = Seq::Make({Let::Make(keyword, Add(outer, inner)), store});
  Stmt inner_loop = For::Make(inner, Int(0), Int(4), ForKind::kSerial, body);
  Stmt loop = For::Make(outer, Int(0), Int(4), ForKind::kParallel, Seq::Make({inner_loop}));
  EXPECT_EQ(Print(loop, 1),
            "  for i in 0 +: 4 parallel {\n"
            "    for i_1 in 0 +: 4 serial {\n"
            "      let copy_: i32 = i + i_1;\n"
            "      out[i, i_1] = cast<f32>(copy_);\n"
            "    }\n"
            "  }\n");
}

TEST_F(PrinterTest, NamesAreUniquePerKernelEvenInSiblingBlocks) {
  VarRef first = Var::Make("i");
  VarRef second = Var::Make("i");
  Stmt seq = Seq::Make({For::Make(first, Int(0), Int(2), ForKind::kSerial, Seq::Make({})),
                        For::Make(second, Int(0), Int(2), ForKind::kUnrolled, Seq::Make({}))});
  EXPECT_EQ(Print(seq),
            "{\n"
            "  for i in 0 +: 2 serial {\n"
            "  }\n"
            "  for i_1 in 0 +: 2 unrolled {\n"
            "  }\n"
            "}\n");
}

TEST_F(PrinterTest, SignatureNamesAreChosenBeforeTheyAreUsed) {
  // A shape may use a scalar parameter that comes after it; when that scalar
  // must be renamed, the shape must already use the new name.
  VarRef dim = Var::Make("n");
  VarRef scalar = Var::Make("n");
  Buffer buffer = BufferNode::Make("A", kF32, {scalar, dim}, MemoryScope::kGlobal);
  Kernel kernel = KernelNode::Make("k", {dim}, {Param{buffer, nullptr}, Param{nullptr, scalar}},
                                   Launch{{{Var::Make("A"), scalar}}, {1}, {}, {}}, Seq::Make({}));
  EXPECT_EQ(Print(*kernel),
            "kernel k<n: i32>(A: f32[n_1, n], n_1: i32)\n"
            "    grid(A_1: n_1) threads(1) {\n"
            "}\n");
}

TEST_F(PrinterTest, LayoutInputsAreNamedApartFromTheKernel) {
  VarRef i = Var::Make("i");
  VarRef input = Var::Make("i");
  Layout layout{{input}, {Binary::Make(BinaryOp::kFloorMod, input, Int(32))}};
  Buffer tile = BufferNode::Make("T", kF32, {Int(64)}, MemoryScope::kFragment, {}, layout);
  Stmt loop = For::Make(i, Int(0), Int(2), ForKind::kSerial, Seq::Make({Allocate::Make(tile)}));
  EXPECT_EQ(Print(loop),
            "for i in 0 +: 2 serial {\n"
            "  alloc T: fragment f32[64] layout((i) -> (floormod(i, 32)));\n"
            "}\n");
}

// A small module exercising every statement form, printed with and without locations.
Module ExampleModule() {
  VarRef n = Var::Make("N");
  VarRef scale = Var::Make("scale", kF32);
  Buffer x = BufferNode::Make("X", kF16, {n, Int(64)}, MemoryScope::kGlobal, {Int(64), Int(1)});
  VarRef bx = Var::Make("bx");
  VarRef li = Var::Make("i");
  VarRef lj = Var::Make("j");
  Layout layout{{li, lj},
                {Binary::Make(BinaryOp::kFloorMod, li, Int(32)),
                 Add(Mul(Binary::Make(BinaryOp::kFloorDiv, li, Int(32)), Int(64)), lj)}};
  Buffer tile = BufferNode::Make("T", kF16, {Int(64), Int(64)}, MemoryScope::kFragment, {}, layout);
  Buffer sums = BufferNode::Make("S", kF32, {Int(64)}, MemoryScope::kShared);
  VarRef k = Var::Make("k", kI64);
  VarRef t = Var::Make("t");
  SourceLoc loc{"ex.tile", 7, 3};
  std::vector<Stmt> body = {
      Allocate::Make(tile, loc),
      Allocate::Make(sums),
      Copy::Make(Region{x, {{Mul(bx, Int(64)), Int(64)}, {Int(0), Int(64)}}}, Region::Full(tile)),
      Reduce::Make(ReduceKind::kAbsMax, Region::Full(tile), Region::Full(sums), 1, false),
      Cumsum::Make(Region::Full(sums), Region::Full(sums), 0, true),
      AtomicAdd::Make(Region::Full(tile), Region{x, {{Int(0), Int(64)}, {Int(0), Int(64)}}}),
      Gemm::Make(Region::Full(tile), Region::Full(tile), Region::Full(tile), true, false,
                 WarpPolicy::kFullCol, true),
      Fill::Make(Region::Full(sums), Cast::Make(kF32, scale)),
      For::Make(k, Int(0, kI64), Int(4, kI64), ForKind::kPipelined,
                Seq::Make({Barrier::Make(BarrierScope::kWarp)}), loc,
                PipelineInfo{2, {1, 0}, {0, 1}}),
      For::Make(t, Int(0), Int(128), ForKind::kThreadBound,
                If::Make(Binary::Make(BinaryOp::kLt, t, Int(64)),
                         Seq::Make({Store::Make(sums, {t}, Float(0.0))}),
                         Seq::Make({Evaluate::Make(Call::Make(kF32, "exp2", {Float(1.0)}))}), loc),
                {}, {}, ThreadAxis::kY),
      Seq::Make({Let::Make(Var::Make("v", kF16), Float(0.5, kF16), loc)}),
  };
  Launch launch{{{bx, Binary::Make(BinaryOp::kCeilDiv, n, Int(64))}},
                {128},
                {2, 1},
                BlockSwizzle{4, SwizzleOrder::kColumnMajor}};
  Module module;
  module.producer = "test \"quoted\"";
  module.producer_version = "1.0";
  module.kernels.push_back(KernelNode::Make("k", {n}, {Param{x, nullptr}, Param{nullptr, scale}},
                                            launch, Seq::Make(body), SourceLoc{"ex.tile", 2, 1}));
  module.kernels.push_back(KernelNode::Make(
      "empty", {}, {}, Launch{{{Var::Make("b"), Int(1)}}, {32, 4}, {}, {}}, Seq::Make({})));
  return module;
}

TEST_F(PrinterTest, PrintsAModuleInCanonicalLayout) {
  EXPECT_EQ(Print(ExampleModule()),
            R"(ir_version 1;
producer "test \"quoted\"" "1.0";

kernel k<N: i32>(X: f16[N, 64] strides[64, 1], scale: f32)
    grid(bx: ceildiv(N, 64)) threads(128) cluster(2, 1) swizzle(panel=4, order=column) {
  alloc T: fragment f16[64, 64] layout((i, j) -> (floormod(i, 32), floordiv(i, 32) * 64 + j));
  alloc S: shared f32[64];
  copy X[bx * 64 +: 64, 0 +: 64] -> T;
  reduce absmax T -> S {dim=1, clear=false};
  cumsum S -> S {dim=0, reverse=true};
  atomic_add T -> X[0 +: 64, 0 +: 64];
  gemm T, T -> T {transpose_a=true, transpose_b=false, policy=full_col, clear_accum=true};
  fill S = cast<f32>(scale);
  for k: i64 in 0_i64 +: 4_i64 pipelined(num_stages=2, order=[1, 0], stage=[0, 1]) {
    barrier(warp);
  }
  for t in 0 +: 128 thread_bound(y) {
    if (t < 64) {
      S[t] = 0.0;
    } else {
      eval exp2(1.0);
    }
  }
  {
    let v: f16 = 0.5_f16;
  }
}

kernel empty()
    grid(b: 1) threads(32, 4) {
}
)");
}

TEST_F(PrinterTest, PrintsLocationsOnRequest) {
  PrintOptions options;
  options.print_locs = true;
  std::string text = Print(ExampleModule(), options);
  EXPECT_NE(text.find("swizzle(panel=4, order=column) loc(\"ex.tile\":2:1) {\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("alloc T: fragment f16[64, 64] layout((i, j) -> (floormod(i, 32), "
                      "floordiv(i, 32) * 64 + j)) loc(\"ex.tile\":7:3);\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("stage=[0, 1]) loc(\"ex.tile\":7:3) {\n"), std::string::npos) << text;
  EXPECT_NE(text.find("if (t < 64) loc(\"ex.tile\":7:3) {\n"), std::string::npos) << text;
  EXPECT_NE(text.find("let v: f16 = 0.5_f16 loc(\"ex.tile\":7:3);\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  alloc S: shared f32[64];\n"), std::string::npos) << text;
}

TEST_F(PrinterTest, MissingPartsPrintVisiblyInsteadOfCrashing) {
  EXPECT_EQ(Print(Expr()), "<null>");
  EXPECT_EQ(Print(Add(a_, nullptr)), "a + <null>");
  EXPECT_EQ(Print(Stmt(), 0), "<null>;\n");
  EXPECT_EQ(Print(If::Make(Bool(true), nullptr), 0), "if (true) {\n}\n");
  Module module;
  module.kernels = {nullptr, KernelNode::Make("k", {}, {}, Launch{},
                                              Seq::Make({Evaluate::Make(Add(a_, nullptr))}))};
  EXPECT_NE(Print(module).find("  eval a + <null>;\n"), std::string::npos) << Print(module);
}

}  // namespace
}  // namespace tile_ir
