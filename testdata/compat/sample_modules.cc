// The sample modules, built with the IR builders (sample_modules.h).
#include "testdata/compat/sample_modules.h"

#include <limits>
#include <utility>

#include "tile_ir/buffer.h"
#include "tile_ir/expr.h"
#include "tile_ir/intrinsics.h"
#include "tile_ir/op_shorthand.h"
#include "tile_ir/stmt.h"

namespace tile_ir::compat {
namespace {

Expr Add(Expr a, Expr b) { return Op(BinaryOp::kAdd, std::move(a), std::move(b)); }
Expr Mul(Expr a, Expr b) { return Op(BinaryOp::kMul, std::move(a), std::move(b)); }
Expr Load(const Buffer& buffer, std::vector<Expr> indices) {
  return BufferLoad::Make(buffer, std::move(indices));
}
Range Span(Expr min, int64_t extent) { return {std::move(min), Int(extent)}; }
SourceLoc At(int line, int col) { return SourceLoc{"gemm.tile", line, col}; }

Module NewModule() {
  Module module;
  module.producer = "tile-compat";
  module.producer_version = "1";
  return module;
}

// C[M, N] = A[M, K] * B[K, N] in 128x128x32 tiles, three-stage pipelined.
Kernel TiledGemm() {
  VarRef m = Var::Make("M"), n = Var::Make("N"), k = Var::Make("K");
  Buffer a = BufferNode::Make("A", kF16, {m, k}, MemoryScope::kGlobal);
  Buffer b = BufferNode::Make("B", kF16, {k, n}, MemoryScope::kGlobal);
  Buffer c = BufferNode::Make("C", kF32, {m, n}, MemoryScope::kGlobal);
  VarRef bx = Var::Make("bx"), by = Var::Make("by"), ko = Var::Make("ko");
  Buffer a_s = BufferNode::Make("A_s", kF16, {Int(128), Int(32)}, MemoryScope::kShared);
  Buffer b_s = BufferNode::Make("B_s", kF16, {Int(32), Int(128)}, MemoryScope::kShared);
  Buffer c_l = BufferNode::Make("C_l", kF32, {Int(128), Int(128)}, MemoryScope::kFragment);
  Expr row = Mul(by, Int(128)), col = Mul(bx, Int(128)), depth = Mul(ko, Int(32));
  Stmt pipeline_body = Seq::Make({
      Copy::Make({a, {Span(row, 128), Span(depth, 32)}}, Region::Full(a_s), At(9, 5)),
      Copy::Make({b, {Span(depth, 32), Span(col, 128)}}, Region::Full(b_s), At(10, 5)),
      Gemm::Make(Region::Full(a_s), Region::Full(b_s), Region::Full(c_l), false, false,
                 WarpPolicy::kSquare, false, At(11, 5)),
  });
  Stmt body = Seq::Make({
      Allocate::Make(a_s, At(4, 3)),
      Allocate::Make(b_s, At(5, 3)),
      Allocate::Make(c_l, At(6, 3)),
      Fill::Make(Region::Full(c_l), Float(0.0), At(7, 3)),
      For::Make(ko, Int(0), Op(BinaryOp::kCeilDiv, k, Int(32)), ForKind::kPipelined, pipeline_body,
                At(8, 3), PipelineInfo{3, {0, 1, 2}, {0, 0, 1}}),
      Copy::Make(Region::Full(c_l), {c, {Span(row, 128), Span(col, 128)}}, At(13, 3)),
  });
  Launch launch;
  launch.grid = {{bx, Op(BinaryOp::kCeilDiv, n, Int(128))},
                 {by, Op(BinaryOp::kCeilDiv, m, Int(128))}};
  launch.threads = {128};
  launch.cluster = {2, 1};
  launch.swizzle = BlockSwizzle{8, SwizzleOrder::kRowMajor};
  return KernelNode::Make("gemm", {m, n, k}, {{a, nullptr}, {b, nullptr}, {c, nullptr}},
                          std::move(launch), body, At(1, 1));
}

// C = A * B^T on fixed shapes, clearing the accumulator in the gemm itself.
Kernel TransposedGemm() {
  Buffer a = BufferNode::Make("A", kF16, {Int(64), Int(256)}, MemoryScope::kGlobal);
  Buffer b = BufferNode::Make("B", kF16, {Int(256), Int(64)}, MemoryScope::kGlobal);
  Buffer c = BufferNode::Make("C", kF32, {Int(256), Int(256)}, MemoryScope::kGlobal);
  VarRef bx = Var::Make("bx"), by = Var::Make("by"), ko = Var::Make("ko");
  Buffer a_s = BufferNode::Make("A_s", kF16, {Int(32), Int(128)}, MemoryScope::kShared);
  Buffer b_s = BufferNode::Make("B_s", kF16, {Int(128), Int(32)}, MemoryScope::kShared);
  Buffer c_l = BufferNode::Make("C_l", kF32, {Int(128), Int(128)}, MemoryScope::kFragment);
  Expr row = Mul(by, Int(128)), col = Mul(bx, Int(128)), depth = Mul(ko, Int(32));
  Stmt loop_body = Seq::Make({
      Copy::Make({a, {Span(depth, 32), Span(row, 128)}}, Region::Full(a_s)),
      Copy::Make({b, {Span(col, 128), Span(depth, 32)}}, Region::Full(b_s)),
      Gemm::Make(Region::Full(a_s), Region::Full(b_s), Region::Full(c_l), true, true,
                 WarpPolicy::kFullCol, true),
      Gemm::Make(Region::Full(a_s), Region::Full(b_s), Region::Full(c_l), true, true,
                 WarpPolicy::kFullRow, false),
  });
  Stmt body = Seq::Make({
      Allocate::Make(a_s),
      Allocate::Make(b_s),
      Allocate::Make(c_l),
      For::Make(ko, Int(0), Int(2), ForKind::kPipelined, loop_body, {}, PipelineInfo{2, {}, {}}),
      Copy::Make(Region::Full(c_l), {c, {Span(row, 128), Span(col, 128)}}),
  });
  Launch launch;
  launch.grid = {{bx, Int(2)}, {by, Int(2)}};
  launch.threads = {128, 1, 1};
  launch.swizzle = BlockSwizzle{4, SwizzleOrder::kColumnMajor};
  return KernelNode::Make("gemm_nt", {}, {{a, nullptr}, {b, nullptr}, {c, nullptr}},
                          std::move(launch), body);
}

// Row softmax statistics over 64-row tiles of X, with per-row prefix sums.
Kernel RowSoftmax() {
  VarRef m = Var::Make("M");
  VarRef scale = Var::Make("scale", kF32);
  Buffer x = BufferNode::Make("X", kF32, {m, Int(128)}, MemoryScope::kGlobal, {Int(136), Int(1)});
  Buffer y = BufferNode::Make("Y", kBF16, {m, Int(128)}, MemoryScope::kGlobal);
  Buffer sums = BufferNode::Make("Sums", kF32, {m}, MemoryScope::kGlobal);
  VarRef bx = Var::Make("bx"), i = Var::Make("i"), j = Var::Make("j");
  VarRef r = Var::Make("r"), c = Var::Make("c");
  VarRef li = Var::Make("li"), lj = Var::Make("lj");
  Layout layout{
      {li, lj},
      {Add(Mul(Op(BinaryOp::kDiv, li, Int(16)), Int(8)), Op(BinaryOp::kDiv, lj, Int(16))),
       Add(Mul(Op(BinaryOp::kMod, li, Int(16)), Int(16)), Op(BinaryOp::kMod, lj, Int(16)))}};
  Buffer tile =
      BufferNode::Make("X_f", kF32, {Int(64), Int(128)}, MemoryScope::kFragment, {}, layout);
  Buffer scan = BufferNode::Make("X_scan", kF32, {Int(64), Int(128)}, MemoryScope::kFragment);
  auto row_buffer = [](const char* name) {
    return BufferNode::Make(name, kF32, {Int(64)}, MemoryScope::kFragment);
  };
  Buffer row_max = row_buffer("row_max"), row_min = row_buffer("row_min");
  Buffer row_absmax = row_buffer("row_absmax"), row_sum = row_buffer("row_sum");
  Expr row = Mul(bx, Int(64));
  Region x_tile{x, {Span(row, 64), Span(Int(0), 128)}};
  Stmt exponentiate = Store::Make(
      tile, {i, j},
      Call::Make(kF32, "exp2",
                 {Mul(Op(BinaryOp::kSub, Load(tile, {i, j}), Load(row_max, {i})), scale)}));
  Expr guarded_row = Add(row, r);
  Stmt normalize = If::Make(
      Op(BinaryOp::kLt, guarded_row, m),
      Store::Make(y, {guarded_row, c},
                  Cast::Make(kBF16, Op(BinaryOp::kDiv, Load(tile, {r, c}), Load(row_sum, {r})))),
      Store::Make(tile, {r, c}, Float(0.0)));
  Stmt body = Seq::Make({
      Allocate::Make(tile),
      Allocate::Make(scan),
      Allocate::Make(row_max),
      Allocate::Make(row_min),
      Allocate::Make(row_absmax),
      Allocate::Make(row_sum),
      Copy::Make(x_tile, Region::Full(tile)),
      Reduce::Make(ReduceKind::kMax, Region::Full(tile), Region::Full(row_max), 1, true),
      Reduce::Make(ReduceKind::kMin, Region::Full(tile), Region::Full(row_min), 1, false),
      Reduce::Make(ReduceKind::kAbsMax, Region::Full(tile), Region::Full(row_absmax), 1),
      For::Make(i, Int(0), Int(64), ForKind::kParallel,
                For::Make(j, Int(0), Int(128), ForKind::kParallel, exponentiate)),
      Reduce::Make(ReduceKind::kSum, Region::Full(tile), Region::Full(row_sum), 1),
      Cumsum::Make(Region::Full(tile), Region::Full(scan), 1, false),
      Cumsum::Make(Region::Full(scan), Region::Full(scan), 0, true),
      AtomicAdd::Make(Region::Full(row_sum), {sums, {Span(row, 64)}}),
      Copy::Make(Region::Full(scan), x_tile),
      For::Make(r, Int(0), Int(64), ForKind::kParallel,
                For::Make(c, Int(0), Int(128), ForKind::kParallel, normalize)),
  });
  Launch launch;
  launch.grid = {{bx, Op(BinaryOp::kCeilDiv, m, Int(64))}};
  launch.threads = {256};
  return KernelNode::Make("softmax_stats", {m},
                          {{x, nullptr}, {y, nullptr}, {sums, nullptr}, {nullptr, scale}},
                          std::move(launch), body);
}

// Thread-level code as lowering leaves it: thread-bound loops, vector loads and stores, local
// accumulators, barriers, and arithmetic over every scalar type.
Kernel LoweredElementwise() {
  Buffer a = BufferNode::Make("A", kF16, {Int(1024)}, MemoryScope::kGlobal);
  Buffer out = BufferNode::Make("Out", kF32, {Int(1024)}, MemoryScope::kGlobal);
  Buffer bytes = BufferNode::Make("Bytes", kU8, {Int(1024)}, MemoryScope::kGlobal);
  Buffer packed = BufferNode::Make("Packed", kI4, {Int(1024)}, MemoryScope::kGlobal);
  Buffer e4m3 = BufferNode::Make("E4M3", kF8E4M3, {Int(1024)}, MemoryScope::kGlobal);
  Buffer e5m2 = BufferNode::Make("E5M2", kF8E5M2, {Int(1024)}, MemoryScope::kGlobal);
  Buffer wide = BufferNode::Make("Wide", kF64, {Int(1024)}, MemoryScope::kGlobal);
  Buffer small = BufferNode::Make("Small", kI8, {Int(1024)}, MemoryScope::kGlobal);
  Buffer shorts = BufferNode::Make("Shorts", kI16, {Int(1024)}, MemoryScope::kGlobal);
  Buffer halves = BufferNode::Make("Halves", kBF16, {Int(1024)}, MemoryScope::kGlobal);
  VarRef n = Var::Make("n"), big = Var::Make("big", kI64), flag = Var::Make("flag", kBool);
  VarRef bx = Var::Make("bx"), tx = Var::Make("tx"), ty = Var::Make("ty"), tz = Var::Make("tz");
  VarRef base = Var::Make("base"), v = Var::Make("v"), u = Var::Make("u");
  VarRef w = Var::Make("w", kI64), mix = Var::Make("mix"), wide_index = Var::Make("wide", kI64);
  Buffer acc = BufferNode::Make("acc", kF32, {Int(8)}, MemoryScope::kLocal);
  Buffer staged = BufferNode::Make("staged", kF16, {Int(4), Int(256)}, MemoryScope::kShared,
                                   {Int(264), Int(1)});

  // Two vector steps of four lanes each.
  Expr lanes_a = Ramp::Make(Add(base, Mul(v, Int(4))), Int(1), 4);
  Expr lanes_staged = Ramp::Make(Add(Mul(tx, Int(8)), Mul(v, Int(4))), Int(1), 4);
  Stmt vector_copy = For::Make(
      v, Int(0), Int(2), ForKind::kVectorized,
      Store::Make(staged, {ty, lanes_staged},
                  Op(BinaryOp::kMul, Load(a, {lanes_a}), Broadcast::Make(Float(0.5, kF16), 4))));
  Expr element = Cast::Make(kF32, Load(staged, {ty, Add(Mul(tx, Int(8)), u)}));
  Stmt accumulate = For::Make(
      u, Int(0), Int(8), ForKind::kUnrolled,
      Store::Make(acc, {u}, Add(Mul(element, Float(2.0)), Cast::Make(kF32, Float(1.5, kF64)))));
  Expr int_mix = Op(
      BinaryOp::kSub, Add(Op(BinaryOp::kFloorDiv, n, Int(3)), Op(BinaryOp::kFloorMod, n, Int(5))),
      Op(BinaryOp::kMod, Mul(Op(BinaryOp::kCeilDiv, n, Int(7)), Op(BinaryOp::kDiv, n, Int(2))),
          Int(4)));
  Expr condition =
      Op(BinaryOp::kOr,
          Op(BinaryOp::kAnd, flag,
              Op(BinaryOp::kAnd, Op(BinaryOp::kNe, n, Int(1)), Op(BinaryOp::kLe, n, Int(9)))),
          Op(BinaryOp::kOr, Unary::Make(UnaryOp::kNot, Op(BinaryOp::kEq, mix, Int(3))),
              Op(BinaryOp::kAnd, Op(BinaryOp::kGe, n, Int(2)),
                  Op(BinaryOp::kAnd, Op(BinaryOp::kGt, big, Int(4, kI64)),
                      Op(BinaryOp::kLt, mix, Int(100))))));
  Expr acc0 = Load(acc, {Int(0)}), acc1 = Load(acc, {Int(1)});
  Stmt branch = If::Make(
      condition,
      Store::Make(
          out, {base},
          Select::Make(Op(BinaryOp::kGt, acc0, acc1), acc0, Unary::Make(UnaryOp::kNeg, acc1))),
      Store::Make(out, {base}, Op(BinaryOp::kMin, acc0, Op(BinaryOp::kMax, acc1, Float(0.0)))));
  Stmt conversions = Seq::Make({
      Store::Make(bytes, {base}, Add(Cast::Make(kU8, acc0), Int(255, kU8))),
      Store::Make(packed, {base}, Cast::Make(kI4, Int(-3))),
      Store::Make(e4m3, {base}, Cast::Make(kF8E4M3, acc0)),
      Store::Make(e5m2, {base}, Cast::Make(kF8E5M2, acc1)),
      Store::Make(wide, {base}, Mul(Cast::Make(kF64, acc0), Float(2.5, kF64))),
      Store::Make(small, {base}, Cast::Make(kI8, Int(3, kI8))),
      Store::Make(shorts, {base}, Add(Cast::Make(kI16, mix), Int(1, kI16))),
      Store::Make(halves, {base}, Cast::Make(kBF16, Float(1.0, kBF16))),
  });
  Stmt per_thread = Seq::Make({
      Let::Make(base, Add(Add(Mul(bx, Int(256)), Mul(ty, Int(64))), Mul(tx, Int(2)))),
      Let::Make(mix, int_mix),
      vector_copy,
      Barrier::Make(BarrierScope::kBlock),
      Barrier::Make(BarrierScope::kWarp),
      accumulate,
      Let::Make(wide_index, Mul(Cast::Make(kI64, base), Int(2, kI64))),
      For::Make(w, Int(0, kI64), big, ForKind::kSerial,
                Evaluate::Make(Call::Make(kF32, "exp2", {acc0}))),
      Seq::Make({branch, conversions}),
  });
  Stmt body = Seq::Make({
      Allocate::Make(acc),
      Allocate::Make(staged),
      For::Make(tx, Int(0), Int(32), ForKind::kThreadBound,
                For::Make(ty, Int(0), Int(4), ForKind::kThreadBound,
                          For::Make(tz, Int(0), Int(1), ForKind::kThreadBound, per_thread, {}, {},
                                    ThreadAxis::kZ),
                          {}, {}, ThreadAxis::kY),
                {}, {}, ThreadAxis::kX),
  });
  Launch launch;
  launch.grid = {{bx, Int(4)}};
  launch.threads = {32, 4, 1};
  std::vector<Param> params;
  for (const Buffer& buffer : {a, out, bytes, packed, e4m3, e5m2, wide, small, shorts, halves}) {
    params.push_back({buffer, nullptr});
  }
  for (const VarRef& scalar : {n, big, flag}) params.push_back({nullptr, scalar});
  return KernelNode::Make("lowered", {}, std::move(params), std::move(launch), body);
}

// Version 2: a shared tile under the 128-byte swizzle (16-byte chunks XORed with the row),
// copied in and out.
Kernel SwizzledCopy() {
  Buffer a = BufferNode::Make("A", kF16, {Int(64), Int(64)}, MemoryScope::kGlobal);
  Buffer out = BufferNode::Make("Out", kF16, {Int(64), Int(64)}, MemoryScope::kGlobal);
  VarRef bx = Var::Make("bx"), li = Var::Make("li"), lj = Var::Make("lj");
  Expr chunk =
      Op(BinaryOp::kXor, Op(BinaryOp::kDiv, lj, Int(8)), Op(BinaryOp::kMod, li, Int(8)));
  Layout swizzle{{li, lj}, {li, Add(Mul(chunk, Int(8)), Op(BinaryOp::kMod, lj, Int(8)))}};
  Buffer a_s = BufferNode::Make("A_s", kF16, {Int(64), Int(64)}, MemoryScope::kShared, {}, swizzle);
  Stmt body = Seq::Make({
      Allocate::Make(a_s),
      Copy::Make(Region::Full(a), Region::Full(a_s)),
      Copy::Make(Region::Full(a_s), Region::Full(out)),
  });
  Launch launch;
  launch.grid = {{bx, Int(1)}};
  launch.threads = {128};
  return KernelNode::Make("swizzled_copy", {}, {{a, nullptr}, {out, nullptr}}, std::move(launch),
                          body);
}

// Version 2: ^ at thread level on every integer width, unsigned bytes and vector lanes.
Kernel XorLanes() {
  Buffer words = BufferNode::Make("Words", kI32, {Int(256)}, MemoryScope::kGlobal);
  Buffer lanes = BufferNode::Make("Lanes", kI32, {Int(256)}, MemoryScope::kGlobal);
  Buffer longs = BufferNode::Make("Longs", kI64, {Int(256)}, MemoryScope::kGlobal);
  Buffer bytes = BufferNode::Make("Bytes", kU8, {Int(256)}, MemoryScope::kGlobal);
  Buffer small = BufferNode::Make("Small", kI8, {Int(256)}, MemoryScope::kGlobal);
  Buffer shorts = BufferNode::Make("Shorts", kI16, {Int(256)}, MemoryScope::kGlobal);
  Buffer packed = BufferNode::Make("Packed", kI4, {Int(256)}, MemoryScope::kGlobal);
  VarRef bx = Var::Make("bx"), tx = Var::Make("tx");
  auto flip = [&](const Buffer& buffer, Expr mask) {
    return Store::Make(buffer, {tx}, Op(BinaryOp::kXor, Load(buffer, {tx}), std::move(mask)));
  };
  Expr four = Ramp::Make(Mul(tx, Int(4)), Int(1), 4);
  Stmt per_thread = Seq::Make({
      flip(words, Op(BinaryOp::kMod, tx, Int(8))),
      flip(longs, Int(-1, kI64)),
      flip(bytes, Int(255, kU8)),
      flip(small, Int(-128, kI8)),
      flip(shorts, Int(21845, kI16)),
      flip(packed, Int(-8, kI4)),
      Store::Make(lanes, {four},
                  Op(BinaryOp::kXor, Load(lanes, {four}), Broadcast::Make(Int(3), 4))),
  });
  Launch launch;
  launch.grid = {{bx, Int(1)}};
  launch.threads = {64};
  std::vector<Param> params;
  for (const Buffer& buffer : {words, lanes, longs, bytes, small, shorts, packed}) {
    params.push_back({buffer, nullptr});
  }
  return KernelNode::Make(
      "xor_lanes", {}, std::move(params), std::move(launch),
      For::Make(tx, Int(0), Int(64), ForKind::kThreadBound, per_thread, {}, {}, ThreadAxis::kX));
}

// Version 4: a replicated fragment layout, a row vector held by the four lanes of each row of
// a 64 x 8 tile (the thread output uses the replica, the register does not).
Kernel ReplicatedRows() {
  Buffer out = BufferNode::Make("Out", kF32, {Int(64)}, MemoryScope::kGlobal);
  Layout rows;
  VarRef i = Var::Make("i");
  VarRef r = Var::Make("r");
  rows.inputs = {i};
  rows.replica = r;
  rows.replicate = 4;
  rows.outputs = {Add(Mul(Op(BinaryOp::kFloorMod, i, Int(32)), Int(4)), r),
                  Op(BinaryOp::kFloorDiv, i, Int(32))};
  Buffer row_max = BufferNode::Make("row_max", kF32, {Int(64)}, MemoryScope::kFragment, {},
                                    std::move(rows));
  VarRef bx = Var::Make("bx");
  Launch launch;
  launch.grid = {{bx, Int(1)}};
  launch.threads = {128};
  Stmt body = Seq::Make({Allocate::Make(row_max), Fill::Make(Region::Full(row_max), Float(0.5)),
                         Copy::Make(Region::Full(row_max), Region::Full(out))});
  return KernelNode::Make("replicated_rows", {}, {{out, nullptr}}, std::move(launch), body);
}

// Version 3: shape requirements over dimensions and an integer scalar, with and without a
// source location, one of them using the version-2 '^'.
Kernel GroupedRows() {
  VarRef m = Var::Make("M"), k = Var::Make("K"), groups = Var::Make("groups");
  Buffer x = BufferNode::Make("X", kF16, {m, k}, MemoryScope::kGlobal);
  Buffer y = BufferNode::Make("Y", kF16, {m, k}, MemoryScope::kGlobal);
  VarRef bx = Var::Make("bx");
  Launch launch;
  launch.grid = {{bx, Op(BinaryOp::kCeilDiv, m, Int(64))}};
  launch.threads = {128};
  Stmt body = Copy::Make(Region{x, {{Mul(bx, Int(64)), Int(64)}, {Int(0), k}}},
                         Region{y, {{Mul(bx, Int(64)), Int(64)}, {Int(0), k}}});
  std::vector<ShapeRequirement> requirements = {
      {Op(BinaryOp::kEq, Op(BinaryOp::kMod, k, Int(32)), Int(0)),
       SourceLoc{"grouped_rows.py", 12, 5}},
      {Op(BinaryOp::kAnd, Op(BinaryOp::kGt, groups, Int(0)),
           Op(BinaryOp::kEq, Op(BinaryOp::kXor, k, k), Int(0))),
       {}},
  };
  return KernelNode::Make("grouped_rows", {m, k}, {{x, nullptr}, {y, nullptr}, {nullptr, groups}},
                          std::move(launch), body, {}, std::move(requirements));
}

// Version 5: bitwise and, or and both shifts (arithmetic on i32, logical on u8), reinterpret
// between f32 and i32, and atomic max and min of elements.
Kernel BitFields() {
  Buffer x = BufferNode::Make("X", kF32, {Int(256)}, MemoryScope::kGlobal);
  Buffer exponents = BufferNode::Make("Exponents", kI32, {Int(256)}, MemoryScope::kGlobal);
  Buffer bytes = BufferNode::Make("Bytes", kU8, {Int(256)}, MemoryScope::kGlobal);
  Buffer extremes = BufferNode::Make("Extremes", kI32, {Int(2)}, MemoryScope::kGlobal);
  VarRef bx = Var::Make("bx"), tx = Var::Make("tx");
  Expr bits = Call::Make(kI32, kReinterpret, {Load(x, {tx})});
  Expr exponent = Op(BinaryOp::kBitAnd, Op(BinaryOp::kShr, bits, Int(23)), Int(255));
  Expr byte = Load(bytes, {tx});
  Expr swapped = Op(BinaryOp::kBitOr, Op(BinaryOp::kShl, byte, Int(4, kU8)),
                    Op(BinaryOp::kShr, byte, Int(4, kU8)));
  Stmt per_thread = Seq::Make({
      Store::Make(exponents, {tx}, exponent),
      Store::Make(bytes, {tx}, swapped),
      Store::Make(x, {tx}, Call::Make(kF32, kReinterpret, {Load(exponents, {tx})})),
      Evaluate::Make(
          Call::Make(kVoid, kAtomicMaxAt, {Load(extremes, {Int(0)}), Load(exponents, {tx})})),
      Evaluate::Make(
          Call::Make(kVoid, kAtomicMinAt, {Load(extremes, {Int(1)}), Load(exponents, {tx})})),
  });
  Launch launch;
  launch.grid = {{bx, Int(1)}};
  launch.threads = {256};
  return KernelNode::Make(
      "bit_fields", {}, {{x, nullptr}, {exponents, nullptr}, {bytes, nullptr}, {extremes, nullptr}},
      std::move(launch),
      For::Make(tx, Int(0), Int(256), ForKind::kThreadBound, per_thread, {}, {}, ThreadAxis::kX));
}

// Version 6: the reductions abssum and prod of a float tile (one accumulating), and bitand,
// bitor and bitxor of an integer tile.
Kernel MoreReductions() {
  Buffer x = BufferNode::Make("X", kF32, {Int(64), Int(32)}, MemoryScope::kGlobal);
  Buffer flags = BufferNode::Make("Flags", kI32, {Int(64), Int(32)}, MemoryScope::kGlobal);
  Buffer out = BufferNode::Make("Out", kF32, {Int(2), Int(64)}, MemoryScope::kGlobal);
  Buffer masks = BufferNode::Make("Masks", kI32, {Int(3), Int(64)}, MemoryScope::kGlobal);
  Buffer x_f = BufferNode::Make("X_f", kF32, {Int(64), Int(32)}, MemoryScope::kFragment);
  Buffer flags_f = BufferNode::Make("Flags_f", kI32, {Int(64), Int(32)}, MemoryScope::kFragment);
  auto row_buffer = [](const char* name, DataType dtype) {
    return BufferNode::Make(name, dtype, {Int(64)}, MemoryScope::kFragment);
  };
  Buffer abssum = row_buffer("row_abssum", kF32), prod = row_buffer("row_prod", kF32);
  Buffer all = row_buffer("row_and", kI32), any = row_buffer("row_or", kI32);
  Buffer parity = row_buffer("row_xor", kI32);
  VarRef bx = Var::Make("bx");
  auto row_of = [&](const Buffer& buffer, int64_t row) {
    return Region{buffer, {Span(row == 0 ? Expr(bx) : Add(bx, Int(row)), 1), Span(Int(0), 64)}};
  };
  std::vector<Stmt> body = {Allocate::Make(x_f), Allocate::Make(flags_f)};
  for (const Buffer& row : {abssum, prod, all, any, parity}) body.push_back(Allocate::Make(row));
  std::vector<Stmt> ops = {
      Copy::Make(Region::Full(x), Region::Full(x_f)),
      Copy::Make(Region::Full(flags), Region::Full(flags_f)),
      Reduce::Make(ReduceKind::kAbsSum, Region::Full(x_f), Region::Full(abssum), 1),
      Reduce::Make(ReduceKind::kAbsSum, Region::Full(x_f), Region::Full(abssum), 1, false),
      Reduce::Make(ReduceKind::kProd, Region::Full(x_f), Region::Full(prod), 1),
      Reduce::Make(ReduceKind::kBitAnd, Region::Full(flags_f), Region::Full(all), 1),
      Reduce::Make(ReduceKind::kBitOr, Region::Full(flags_f), Region::Full(any), 1),
      Reduce::Make(ReduceKind::kBitXor, Region::Full(flags_f), Region::Full(parity), 1),
      Copy::Make(Region::Full(abssum), row_of(out, 0)),
      Copy::Make(Region::Full(prod), row_of(out, 1)),
      Copy::Make(Region::Full(all), row_of(masks, 0)),
      Copy::Make(Region::Full(any), row_of(masks, 1)),
      Copy::Make(Region::Full(parity), row_of(masks, 2)),
  };
  body.insert(body.end(), ops.begin(), ops.end());
  Launch launch;
  launch.grid = {{bx, Int(1)}};
  launch.threads = {128};
  return KernelNode::Make("more_reductions", {},
                          {{x, nullptr}, {flags, nullptr}, {out, nullptr}, {masks, nullptr}},
                          std::move(launch), Seq::Make(std::move(body)));
}

// Version 7: the unsigned types u16, u32 and u64. 4-bit fields unpacked from u32 words by the
// logical shift (a u32 with its top bit set stays positive), unsigned division and remainder,
// widening to u64 by a u64 scalar parameter, and a u16 buffer written through a cast.
Kernel UnsignedWords() {
  Buffer packed = BufferNode::Make("Packed", kU32, {Int(64)}, MemoryScope::kGlobal);
  Buffer fields = BufferNode::Make("Fields", kF32, {Int(512)}, MemoryScope::kGlobal);
  Buffer halves = BufferNode::Make("Halves", kU16, {Int(64)}, MemoryScope::kGlobal);
  Buffer wide = BufferNode::Make("Wide", kU64, {Int(64)}, MemoryScope::kGlobal);
  VarRef scale = Var::Make("scale", kU64);
  VarRef bx = Var::Make("bx"), tx = Var::Make("tx"), j = Var::Make("j");
  Expr word = Load(packed, {tx});
  Expr shift = Mul(Cast::Make(kU32, j), Int(4, kU32));
  Expr field = Op(BinaryOp::kBitAnd, Op(BinaryOp::kShr, word, shift), Int(15, kU32));
  Stmt per_thread = Seq::Make({
      For::Make(j, Int(0), Int(8), ForKind::kUnrolled,
                Store::Make(fields, {Add(Mul(tx, Int(8)), j)}, Cast::Make(kF32, field))),
      Store::Make(halves, {tx}, Cast::Make(kU16, Op(BinaryOp::kMod, word, Int(65521, kU32)))),
      Store::Make(wide, {tx},
                  Op(BinaryOp::kDiv, Mul(Cast::Make(kU64, word), scale),
                     Int(std::numeric_limits<int64_t>::max(), kU64))),
  });
  Launch launch;
  launch.grid = {{bx, Int(1)}};
  launch.threads = {64};
  return KernelNode::Make(
      "unsigned_words", {},
      {{packed, nullptr}, {fields, nullptr}, {halves, nullptr}, {wide, nullptr}, {nullptr, scale}},
      std::move(launch),
      For::Make(tx, Int(0), Int(64), ForKind::kThreadBound, per_thread, {}, {}, ThreadAxis::kX));
}

}  // namespace

std::vector<SampleModule> SampleModules() {
  std::vector<SampleModule> samples;
  Module gemm = NewModule();
  gemm.kernels = {TiledGemm(), TransposedGemm()};
  samples.push_back({"gemm", std::move(gemm)});
  Module softmax = NewModule();
  softmax.kernels = {RowSoftmax()};
  samples.push_back({"softmax", std::move(softmax)});
  Module lowered = NewModule();
  lowered.kernels = {LoweredElementwise()};
  samples.push_back({"lowered", std::move(lowered)});
  Module swizzle = NewModule();
  swizzle.kernels = {SwizzledCopy(), XorLanes()};
  samples.push_back({"swizzle", std::move(swizzle)});
  Module requirements = NewModule();
  requirements.kernels = {GroupedRows()};
  samples.push_back({"requirements", std::move(requirements)});
  Module replicated = NewModule();
  replicated.kernels = {ReplicatedRows()};
  samples.push_back({"replicated_layout", std::move(replicated)});
  Module bit_fields = NewModule();
  bit_fields.kernels = {BitFields()};
  samples.push_back({"bit_fields", std::move(bit_fields)});
  Module more_reductions = NewModule();
  more_reductions.kernels = {MoreReductions()};
  samples.push_back({"more_reductions", std::move(more_reductions)});
  Module unsigned_words = NewModule();
  unsigned_words.kernels = {UnsignedWords()};
  samples.push_back({"unsigned_words", std::move(unsigned_words)});
  return samples;
}

}  // namespace tile_ir::compat
