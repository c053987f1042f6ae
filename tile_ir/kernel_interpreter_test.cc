// The interpreter's own rules: integer operators, the two treatments of an
// access outside a tensor, NaN-initialized buffers and runs that share buffers.
#include "tile_ir/kernel_interpreter.h"

#include <gtest/gtest.h>

#include <cmath>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "tile_ir/buffer.h"
#include "tile_ir/expr.h"
#include "tile_ir/intrinsics.h"
#include "tile_ir/op_shorthand.h"
#include "tile_ir/stmt.h"

namespace tile_ir {
namespace {

// The integer '^', on the 128-byte swizzle of an 8x64 tile: chunk c / 8 of row r
// goes to chunk c / 8 ^ r % 8.
TEST(KernelInterpreterTest, XorSwizzlesTheChunksOfEachRow) {
  Buffer a = BufferNode::Make("A", kF32, {Int(8), Int(64)}, MemoryScope::kGlobal);
  Buffer out = BufferNode::Make("Out", kF32, {Int(8), Int(64)}, MemoryScope::kGlobal);
  VarRef bx = Var::Make("bx"), r = Var::Make("r"), c = Var::Make("c");
  Expr chunk = Op(BinaryOp::kXor, Op(BinaryOp::kDiv, c, Int(8)), Op(BinaryOp::kMod, r, Int(8)));
  Expr column =
      Op(BinaryOp::kAdd, Op(BinaryOp::kMul, chunk, Int(8)), Op(BinaryOp::kMod, c, Int(8)));
  Stmt body = For::Make(r, Int(0), Int(8), ForKind::kParallel,
                        For::Make(c, Int(0), Int(64), ForKind::kParallel,
                                  Store::Make(out, {r, column}, BufferLoad::Make(a, {r, c}))));
  Launch launch;
  launch.grid = {{bx, Int(1)}};
  launch.threads = {64};
  Kernel kernel = KernelNode::Make("swizzle", {}, {{a, nullptr}, {out, nullptr}}, launch, body);
  std::vector<double> input(512);
  for (int i = 0; i < 512; ++i) input[i] = i;
  KernelInterpreter interpreter;
  interpreter.SetBuffer("A", input);
  interpreter.SetBuffer("Out", std::vector<double>(512, NAN));
  absl::Status run = interpreter.RunGrid(*kernel);
  ASSERT_TRUE(run.ok()) << run;
  for (int row = 0; row < 8; ++row) {
    for (int col = 0; col < 64; ++col) {
      EXPECT_EQ(interpreter.buffer("Out")[row * 64 + ((col / 8) ^ row) * 8 + col % 8],
                row * 64 + col)
          << row << ", " << col;
    }
  }
}

// Out = [A & B, A | B, A << B, A >> B, reinterpret<f32>(A)] per element, and the largest and
// smallest of A through atomic_max_at and atomic_min_at. i8 shifts take the amount modulo 8
// and wrap; >> is arithmetic.
TEST(KernelInterpreterTest, BitOperationsReinterpretAndAtomicExtremes) {
  Buffer a = BufferNode::Make("A", kI8, {Int(4)}, MemoryScope::kGlobal);
  Buffer b = BufferNode::Make("B", kI8, {Int(4)}, MemoryScope::kGlobal);
  Buffer out = BufferNode::Make("Out", kI8, {Int(4), Int(4)}, MemoryScope::kGlobal);
  Buffer bits = BufferNode::Make("Bits", kI32, {Int(1)}, MemoryScope::kGlobal);
  Buffer as_float = BufferNode::Make("F", kF32, {Int(1)}, MemoryScope::kGlobal);
  Buffer extremes = BufferNode::Make("E", kI8, {Int(2)}, MemoryScope::kGlobal);
  VarRef bx = Var::Make("bx"), i = Var::Make("i");
  Expr x = BufferLoad::Make(a, {i}), y = BufferLoad::Make(b, {i});
  std::vector<Stmt> per_element;
  int k = 0;
  for (BinaryOp op : {BinaryOp::kBitAnd, BinaryOp::kBitOr, BinaryOp::kShl, BinaryOp::kShr}) {
    per_element.push_back(Store::Make(out, {i, Int(k++)}, Op(op, x, y)));
  }
  per_element.push_back(
      Evaluate::MakeVoidCall(kAtomicMaxAt, {BufferLoad::Make(extremes, {Int(0)}), x}));
  per_element.push_back(
      Evaluate::MakeVoidCall(kAtomicMinAt, {BufferLoad::Make(extremes, {Int(1)}), x}));
  Stmt body =
      Seq::Make({For::Make(i, Int(0), Int(4), ForKind::kSerial, Seq::Make(std::move(per_element))),
                 Store::Make(as_float, {Int(0)},
                             Call::Make(kF32, kReinterpret, {BufferLoad::Make(bits, {Int(0)})}))});
  Launch launch;
  launch.grid = {{bx, Int(1)}};
  launch.threads = {1};
  Kernel kernel = KernelNode::Make("bits", {},
                                   {{a, nullptr},
                                    {b, nullptr},
                                    {out, nullptr},
                                    {bits, nullptr},
                                    {as_float, nullptr},
                                    {extremes, nullptr}},
                                   launch, body);
  KernelInterpreter interpreter;
  interpreter.SetBuffer("A", {-77, 100, 5, -1});
  interpreter.SetBuffer("B", {3, 9, 7, -1});
  interpreter.SetBuffer("Out", std::vector<double>(16, NAN));
  interpreter.SetBuffer("Bits", {0x3fc00000});
  interpreter.SetBuffer("F", {NAN});
  interpreter.SetBuffer("E", {-128, 127});
  absl::Status run = interpreter.RunGrid(*kernel);
  ASSERT_TRUE(run.ok()) << run;
  const std::vector<int8_t> xs = {-77, 100, 5, -1}, ys = {3, 9, 7, -1};
  for (int e = 0; e < 4; ++e) {
    const int8_t xv = xs[e], yv = ys[e];
    const std::vector<double>& got = interpreter.buffer("Out");
    EXPECT_EQ(got[e * 4 + 0], static_cast<int8_t>(xv & yv)) << e;
    EXPECT_EQ(got[e * 4 + 1], static_cast<int8_t>(xv | yv)) << e;
    EXPECT_EQ(got[e * 4 + 2], static_cast<int8_t>(static_cast<uint8_t>(xv) << (yv & 7))) << e;
    EXPECT_EQ(got[e * 4 + 3], static_cast<int8_t>(xv >> (yv & 7))) << e;
  }
  EXPECT_EQ(interpreter.buffer("F")[0], 1.5);
  EXPECT_EQ(interpreter.buffer("E")[0], 100);
  EXPECT_EQ(interpreter.buffer("E")[1], -77);
}

// The unsigned types of ir_version 7 as C's unsigned arithmetic: >> is logical on a u32 with
// its top bit set, - wraps modulo 2^32, / and % are unsigned, a u32 converts to i32 by its bits,
// and u64 keeps values past 2^63 (compared and shifted as unsigned; exact where a double is).
TEST(KernelInterpreterTest, UnsignedArithmeticWrapsAndShiftsLogically) {
  Buffer a = BufferNode::Make("A", kU32, {Int(3)}, MemoryScope::kGlobal);
  Buffer out = BufferNode::Make("Out", kU32, {Int(3), Int(4)}, MemoryScope::kGlobal);
  Buffer as_i32 = BufferNode::Make("I", kI32, {Int(3)}, MemoryScope::kGlobal);
  Buffer wide = BufferNode::Make("W", kU64, {Int(3)}, MemoryScope::kGlobal);
  VarRef bx = Var::Make("bx"), i = Var::Make("i");
  Expr x = BufferLoad::Make(a, {i});
  // 2^64 - 2^32 as a u64: past INT64_MAX, so through reinterpret of its i64 bits.
  Expr big = Call::Make(kU64, kReinterpret, {Int(-(int64_t{1} << 32), kI64)});
  Stmt per_element = Seq::Make({
      Store::Make(out, {i, Int(0)}, Op(BinaryOp::kShr, x, Int(28, kU32))),
      Store::Make(out, {i, Int(1)}, Op(BinaryOp::kSub, x, Int(8, kU32))),
      Store::Make(out, {i, Int(2)}, Op(BinaryOp::kDiv, x, Int(3, kU32))),
      Store::Make(out, {i, Int(3)}, Op(BinaryOp::kMod, x, Int(3, kU32))),
      Store::Make(as_i32, {i}, Cast::Make(kI32, x)),
      // Values a double holds exactly: big >> 8i where big > x as unsigned (as i64 it is less).
      Store::Make(
          wide, {i},
          Select::Make(Op(BinaryOp::kGt, big, Cast::Make(kU64, x)),
                       Op(BinaryOp::kShr, big, Cast::Make(kU64, Op(BinaryOp::kMul, i, Int(8)))),
                       Int(0, kU64))),
  });
  Launch launch;
  launch.grid = {{bx, Int(1)}};
  launch.threads = {1};
  Kernel kernel = KernelNode::Make(
      "unsigned", {}, {{a, nullptr}, {out, nullptr}, {as_i32, nullptr}, {wide, nullptr}}, launch,
      For::Make(i, Int(0), Int(3), ForKind::kSerial, per_element));
  KernelInterpreter interpreter;
  const std::vector<uint32_t> xs = {0xF0000001u, 7, 4294967295u};
  interpreter.SetBuffer("A", {0xF0000001u, 7, 4294967295u});
  interpreter.SetBuffer("Out", std::vector<double>(12, NAN));
  interpreter.SetBuffer("I", std::vector<double>(3, NAN));
  interpreter.SetBuffer("W", std::vector<double>(3, NAN));
  absl::Status run = interpreter.RunGrid(*kernel);
  ASSERT_TRUE(run.ok()) << run;
  for (int e = 0; e < 3; ++e) {
    const uint32_t xv = xs[e];
    const std::vector<double>& got = interpreter.buffer("Out");
    EXPECT_EQ(got[e * 4 + 0], xv >> 28) << e;
    EXPECT_EQ(got[e * 4 + 1], static_cast<uint32_t>(xv - 8u)) << e;
    EXPECT_EQ(got[e * 4 + 2], xv / 3u) << e;
    EXPECT_EQ(got[e * 4 + 3], xv % 3u) << e;
    EXPECT_EQ(interpreter.buffer("I")[e], static_cast<int32_t>(xv)) << e;
    const uint64_t big = ~uint64_t{0} - 0xFFFFFFFFu;
    EXPECT_EQ(interpreter.buffer("W")[e], static_cast<double>(big >> (8 * e))) << e;
  }
}

// The reductions of ir_version 6 on rows of a shared tile: abssum (twice, the second keeping
// the first's sum), prod, and bitand, bitor and bitxor of u8 (bitand starts from 255).
TEST(KernelInterpreterTest, ReductionsOfVersion6) {
  Buffer a = BufferNode::Make("A", kF32, {Int(2), Int(3)}, MemoryScope::kGlobal);
  Buffer b = BufferNode::Make("B", kU8, {Int(2), Int(3)}, MemoryScope::kGlobal);
  Buffer out = BufferNode::Make("Out", kF32, {Int(2), Int(2)}, MemoryScope::kGlobal);
  Buffer bits = BufferNode::Make("Bits", kU8, {Int(3), Int(2)}, MemoryScope::kGlobal);
  Buffer a_s = BufferNode::Make("A_s", kF32, {Int(2), Int(3)}, MemoryScope::kShared);
  Buffer b_s = BufferNode::Make("B_s", kU8, {Int(2), Int(3)}, MemoryScope::kShared);
  auto row = [](const char* name, DataType dtype) {
    return BufferNode::Make(name, dtype, {Int(2)}, MemoryScope::kShared);
  };
  Buffer abssum = row("abssum", kF32), prod = row("prod", kF32), all = row("all", kU8),
         any = row("any", kU8), parity = row("parity", kU8);
  auto to_row = [](const Buffer& buffer, int64_t r) {
    return Region{buffer, {Range{Int(r), Int(1)}, Range{Int(0), Int(2)}}};
  };
  std::vector<Stmt> body = {Allocate::Make(a_s), Allocate::Make(b_s)};
  for (const Buffer& buffer : {abssum, prod, all, any, parity}) {
    body.push_back(Allocate::Make(buffer));
  }
  std::vector<Stmt> ops = {
      Copy::Make(Region::Full(a), Region::Full(a_s)),
      Copy::Make(Region::Full(b), Region::Full(b_s)),
      Reduce::Make(ReduceKind::kAbsSum, Region::Full(a_s), Region::Full(abssum), 1),
      Reduce::Make(ReduceKind::kAbsSum, Region::Full(a_s), Region::Full(abssum), 1, false),
      Reduce::Make(ReduceKind::kProd, Region::Full(a_s), Region::Full(prod), 1),
      Reduce::Make(ReduceKind::kBitAnd, Region::Full(b_s), Region::Full(all), 1),
      Reduce::Make(ReduceKind::kBitOr, Region::Full(b_s), Region::Full(any), 1),
      Reduce::Make(ReduceKind::kBitXor, Region::Full(b_s), Region::Full(parity), 1),
      Copy::Make(Region::Full(abssum), to_row(out, 0)),
      Copy::Make(Region::Full(prod), to_row(out, 1)),
      Copy::Make(Region::Full(all), to_row(bits, 0)),
      Copy::Make(Region::Full(any), to_row(bits, 1)),
      Copy::Make(Region::Full(parity), to_row(bits, 2)),
  };
  body.insert(body.end(), ops.begin(), ops.end());
  Launch launch;
  launch.grid = {{Var::Make("bx"), Int(1)}};
  launch.threads = {1};
  Kernel kernel = KernelNode::Make(
      "reductions", {}, {{a, nullptr}, {b, nullptr}, {out, nullptr}, {bits, nullptr}}, launch,
      Seq::Make(std::move(body)));
  KernelInterpreter interpreter;
  interpreter.SetBuffer("A", {1.5, -2.0, 4.0, -1.0, -0.5, 3.0});
  interpreter.SetBuffer("B", {0xF0, 0x3C, 0xFF, 0x01, 0x02, 0x80});
  interpreter.SetBuffer("Out", std::vector<double>(4, NAN));
  interpreter.SetBuffer("Bits", std::vector<double>(6, NAN));
  absl::Status run = interpreter.RunGrid(*kernel);
  ASSERT_TRUE(run.ok()) << run;
  EXPECT_EQ(interpreter.buffer("Out"), (std::vector<double>{15.0, 9.0, -12.0, 1.5}));
  EXPECT_EQ(interpreter.buffer("Bits"),
            (std::vector<double>{0x30, 0x00, 0xFF, 0x83, 0x33, 0x83}));
}

// Out[i] = A[i + 1] for i in [0, 4), on a four-element A: the last read is
// outside A.
Kernel ShiftLeftKernel() {
  Buffer a = BufferNode::Make("A", kF32, {Int(4)}, MemoryScope::kGlobal);
  Buffer out = BufferNode::Make("Out", kF32, {Int(4)}, MemoryScope::kGlobal);
  VarRef bx = Var::Make("bx"), i = Var::Make("i");
  Stmt body =
      For::Make(i, Int(0), Int(4), ForKind::kSerial,
                Store::Make(out, {i}, BufferLoad::Make(a, {Op(BinaryOp::kAdd, i, Int(1))})));
  Launch launch;
  launch.grid = {{bx, Int(1)}};
  launch.threads = {1};
  return KernelNode::Make("shift", {}, {{a, nullptr}, {out, nullptr}}, launch, body);
}

TEST(KernelInterpreterTest, AnAccessOutsideATensorIsAnErrorWhenChecked) {
  KernelInterpreter interpreter;
  interpreter.SetBuffer("A", {1, 2, 3, 4});
  absl::Status run = interpreter.RunGrid(*ShiftLeftKernel());
  EXPECT_EQ(run.code(), absl::StatusCode::kOutOfRange) << run;
}

TEST(KernelInterpreterTest, AnAccessOutsideATensorReadsZeroWhenPredicated) {
  KernelInterpreter interpreter(KernelInterpreter::GlobalBounds::kPredicated);
  interpreter.SetBuffer("A", {1, 2, 3, 4});
  absl::Status run = interpreter.RunGrid(*ShiftLeftKernel());
  ASSERT_TRUE(run.ok()) << run;
  EXPECT_EQ(interpreter.buffer("Out"), (std::vector<double>{2, 3, 4, 0}));
}

TEST(KernelInterpreterTest, BuffersGivenNoValuesStartAsNaN) {
  KernelInterpreter interpreter(KernelInterpreter::GlobalBounds::kPredicated);
  absl::Status run = interpreter.RunGrid(*ShiftLeftKernel());
  ASSERT_TRUE(run.ok()) << run;
  EXPECT_TRUE(std::isnan(interpreter.buffer("Out")[0]));
  EXPECT_EQ(interpreter.buffer("Out")[3], 0);
}

TEST(KernelInterpreterTest, RefusesBufferValuesOfAnotherSize) {
  KernelInterpreter interpreter;
  interpreter.SetBuffer("A", {1, 2, 3});
  absl::Status run = interpreter.RunGrid(*ShiftLeftKernel());
  EXPECT_EQ(run.code(), absl::StatusCode::kInvalidArgument) << run;
}

// A variable a run has no value for is an error, not a zero.
TEST(KernelInterpreterTest, RunBlockNeedsItsGridVariables) {
  Buffer out = BufferNode::Make("Out", kF32, {Int(2)}, MemoryScope::kGlobal);
  VarRef bx = Var::Make("bx");
  Launch launch;
  launch.grid = {{bx, Int(2)}};
  launch.threads = {1};
  Kernel kernel = KernelNode::Make("blocks", {}, {{out, nullptr}}, launch,
                                   Store::Make(out, {bx}, Cast::Make(kF32, bx)));
  KernelInterpreter interpreter;
  EXPECT_FALSE(interpreter.RunBlock(*kernel).ok());
  interpreter.SetVar("bx", 1);
  ASSERT_TRUE(interpreter.RunBlock(*kernel).ok());
  interpreter.SetVar("bx", 0);
  ASSERT_TRUE(interpreter.RunBlock(*kernel).ok());
  EXPECT_EQ(interpreter.buffer("Out"), (std::vector<double>{0, 1}));
}

}  // namespace
}  // namespace tile_ir
