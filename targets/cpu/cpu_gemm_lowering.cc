// Register-blocked gemm micro-kernels for the CPU target.
#include "targets/cpu/cpu_gemm_lowering.h"

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "passes/utils/fresh_names.h"
#include "tile_ir/buffer.h"
#include "tile_ir/expr.h"

namespace tile_ir::cpu {
namespace {

Expr Add(Expr a, Expr b) { return Binary::Make(BinaryOp::kAdd, std::move(a), std::move(b)); }
Expr Mul(Expr a, int64_t b) { return Binary::Make(BinaryOp::kMul, std::move(a), Int(b)); }

Expr CastTo(DataType type, const Expr& e) { return e->dtype() == type ? e : Cast::Make(type, e); }

Stmt Loop(const VarRef& var, int64_t extent, ForKind kind, Stmt body, const SourceLoc& loc) {
  return For::Make(var, Int(0), Int(extent), kind, std::move(body), loc);
}

// A gemm operand as a matrix: its region once leading dimensions of literal
// extent 1 are dropped, so the columns are the buffer's last dimension.
struct Matrix {
  Region region;
  int row_dim = 0;
  int col_dim = 0;

  std::optional<int64_t> rows() const { return AsConstInt(region.ranges[row_dim].extent); }
  std::optional<int64_t> cols() const { return AsConstInt(region.ranges[col_dim].extent); }

  // The indices of element (row, col) of the region; with `lanes` > 1, of
  // that many consecutive columns.
  std::vector<Expr> Indices(const Expr& row, const Expr& col, int lanes = 1) const {
    std::vector<Expr> indices;
    for (const Range& range : region.ranges) indices.push_back(range.min);
    indices[row_dim] = Offset(indices[row_dim], row);
    indices[col_dim] = Offset(indices[col_dim], col);
    if (lanes > 1) {
      indices[col_dim] = Ramp::Make(indices[col_dim], Int(1, indices[col_dim]->dtype()), lanes);
    }
    return indices;
  }
  Expr At(const Expr& row, const Expr& col, int lanes = 1) const {
    return BufferLoad::Make(region.buffer, Indices(row, col, lanes));
  }

  // base + offset in the index type of the region's start.
  static Expr Offset(const Expr& base, const Expr& offset) {
    Expr cast = CastTo(base->dtype(), offset);
    return AsConstInt(base) == 0 ? cast : Add(base, std::move(cast));
  }
};

std::optional<Matrix> AsMatrix(const Region& region) {
  int rank = static_cast<int>(region.ranges.size());
  int first = 0;
  while (rank - first > 2 && AsConstInt(region.ranges[first].extent) == 1) ++first;
  if (rank - first != 2) return std::nullopt;
  Matrix matrix{region, first, first + 1};
  if (!matrix.rows() || !matrix.cols()) return std::nullopt;
  return matrix;
}

bool DenseColumns(const BufferNode& buffer) {
  return buffer.strides.empty() || AsConstInt(buffer.strides.back()) == 1;
}

bool IsOperandType(DataType dtype) {
  return dtype == kF16 || dtype == kBF16 || dtype == kF32 || dtype == kF64;
}

// A gemm operand in the orientation the micro-kernel reads it: A as M x K,
// B as K x N, whatever the layout of the matrix behind it.
struct Operand {
  Matrix matrix;
  bool transposed = false;

  // Vectors (lanes > 1) need an operand that is not transposed.
  Expr At(const Expr& row, const Expr& col, int lanes = 1) const {
    return transposed ? matrix.At(col, row) : matrix.At(row, col, lanes);
  }
};

// Packed operands are small local tiles in the block's frame, like C.
constexpr int64_t kMaxPackedBytes = int64_t{64} << 10;

// Appends to `stmts` a copy of `operand` (rows x cols) into a new dense local
// buffer of `acc` elements, converting them, and makes `operand` that copy.
// False (nothing appended) when the copy would exceed kMaxPackedBytes.
bool Pack(passes::FreshNames& names, const SourceLoc& loc, DataType acc, int64_t rows, int64_t cols,
          Operand* operand, std::vector<Stmt>* stmts) {
  if (rows * cols * acc.bits() / 8 > kMaxPackedBytes) return false;
  Buffer packed = BufferNode::Make(names.Fresh(operand->matrix.region.buffer->name + "_packed"),
                                   acc, {Int(rows), Int(cols)}, MemoryScope::kLocal);
  VarRef i = Var::Make(names.Fresh("i"));
  VarRef j = Var::Make(names.Fresh("j"));
  auto copy = [&](const Expr& col) {
    return Store::Make(packed, {i, col}, CastTo(acc, operand->At(i, col)), loc);
  };
  stmts->push_back(Allocate::Make(packed, loc));
  if (operand->transposed) {
    stmts->push_back(
        Loop(j, cols, ForKind::kSerial, Loop(i, rows, ForKind::kSerial, copy(j), loc), loc));
  } else {
    // The inner loop walks the source's rows: contiguous reads, and a loop the vectorize
    // pass turns into vector loads and stores. A vectorized loop's extent must be a power of
    // two, so a row of 24 or 80 columns is walked in runs of the largest power of two
    // dividing it (3 x 8, 5 x 16), and an odd one serially (LLVM's loop vectorizer still
    // sees a simple counted loop).
    const int64_t run = cols & -cols;
    Stmt row;
    if (run < 2) {
      row = Loop(j, cols, ForKind::kSerial, copy(j), loc);
    } else if (run == cols) {
      row = Loop(j, cols, ForKind::kVectorized, copy(j), loc);
    } else {
      VarRef lane = Var::Make(names.Fresh("j_lane"));
      row = Loop(j, cols / run, ForKind::kSerial,
                 Loop(lane, run, ForKind::kVectorized, copy(Add(Mul(j, run), lane)), loc), loc);
    }
    stmts->push_back(Loop(i, rows, ForKind::kSerial, std::move(row), loc));
  }
  *operand = Operand{*AsMatrix(Region::Full(packed)), false};
  return true;
}

// `body(r, v)` for every register of the block: rows r and vectors v unrolled.
template <typename Body>
Stmt ForEachRegister(passes::FreshNames& names, const GemmBlocking& blocking, const SourceLoc& loc,
                     Body body) {
  VarRef r = Var::Make(names.Fresh("r"));
  VarRef v = Var::Make(names.Fresh("v"));
  Stmt vectors = Loop(v, blocking.vectors, ForKind::kUnrolled, body(r, v), loc);
  return Loop(r, blocking.rows, ForKind::kUnrolled, std::move(vectors), loc);
}

}  // namespace

std::optional<GemmBlocking> ChooseGemmBlocking(int64_t m, int64_t n, DataType acc,
                                               int max_vector_bytes) {
  int lanes = max_vector_bytes * 8 / acc.bits();
  while (lanes > 1 && n % lanes != 0) lanes /= 2;
  if (lanes < 2 || m < 1) return std::nullopt;
  const int64_t budget = max_vector_bytes >= 64 ? 16 : 12;
  std::optional<GemmBlocking> best;
  for (int64_t rows : {8, 6, 4, 3, 2, 1}) {
    for (int64_t vectors : {4, 3, 2, 1}) {
      if (m % rows != 0 || (n / lanes) % vectors != 0 || rows * vectors > budget) continue;
      GemmBlocking candidate{rows, vectors, lanes};
      int64_t registers = rows * vectors;
      int64_t best_registers = best ? best->rows * best->vectors : 0;
      if (registers > best_registers ||
          (registers == best_registers && rows + vectors < best->rows + best->vectors)) {
        best = candidate;
      }
    }
  }
  return best;
}

absl::StatusOr<std::optional<Stmt>> LowerCpuGemm(const passes::GemmLoweringRequest& request,
                                                 int max_vector_bytes) {
  const Gemm& gemm = *request.gemm;
  const std::optional<Stmt> generic;
  const BufferNode& c_buffer = *gemm.c.buffer;
  const DataType acc = c_buffer.dtype;
  std::optional<Matrix> a = AsMatrix(gemm.a);
  std::optional<Matrix> b = AsMatrix(gemm.b);
  std::optional<Matrix> c = AsMatrix(gemm.c);
  if (request.names == nullptr || !a || !b || !c) return generic;
  if ((acc != kF32 && acc != kF64) ||
      (c_buffer.scope != MemoryScope::kFragment && c_buffer.scope != MemoryScope::kLocal) ||
      !DenseColumns(c_buffer)) {
    return generic;
  }
  for (const Region* operand : {&gemm.a, &gemm.b}) {
    if (operand->buffer->scope == MemoryScope::kGlobal || !IsOperandType(operand->buffer->dtype)) {
      return generic;
    }
  }
  const int64_t m = *c->rows();
  const int64_t n = *c->cols();
  const int64_t k_extent = gemm.transpose_a ? *a->rows() : *a->cols();
  std::optional<GemmBlocking> blocking = ChooseGemmBlocking(m, n, acc, max_vector_bytes);
  if (!blocking) return generic;

  passes::FreshNames& names = *request.names;
  const SourceLoc& loc = gemm.loc();
  std::vector<Stmt> stmts;
  // A is read one element at a time, B a vector of a row at a time: each is
  // packed into `acc` elements first when that would take a conversion (or,
  // for B, a gather) per use in the k loop.
  Operand a_op{*a, gemm.transpose_a};
  Operand b_op{*b, gemm.transpose_b};
  if (a->region.buffer->dtype != acc) {
    if (!Pack(names, loc, acc, m, k_extent, &a_op, &stmts)) return generic;
  }
  if (gemm.transpose_b || b->region.buffer->dtype != acc || !DenseColumns(*b->region.buffer)) {
    if (!Pack(names, loc, acc, k_extent, n, &b_op, &stmts)) return generic;
  }

  const int lanes = blocking->lanes;
  const DataType vector = acc.with_lanes(lanes);
  VarRef i_block = Var::Make(names.Fresh("i_block"));
  VarRef j_block = Var::Make(names.Fresh("j_block"));
  VarRef k = Var::Make(names.Fresh("k"));
  Buffer regs =
      BufferNode::Make(names.Fresh("acc"), acc,
                       {Int(blocking->rows), Int(blocking->vectors * lanes)}, MemoryScope::kLocal);
  // Row r and the first column of vector v of the C block, in C's region.
  auto row = [&](const VarRef& r) { return Add(Mul(i_block, blocking->rows), r); };
  auto col = [&](const VarRef& v) {
    return Add(Mul(j_block, blocking->vectors * lanes), Mul(v, lanes));
  };
  auto reg = [&](const VarRef& r, const VarRef& v) {
    return std::vector<Expr>{r, Ramp::Make(Mul(v, lanes), Int(1), lanes)};
  };

  Stmt load = ForEachRegister(names, *blocking, loc, [&](const VarRef& r, const VarRef& v) {
    Expr value =
        gemm.clear_accum ? Broadcast::Make(Float(0.0, acc), lanes) : c->At(row(r), col(v), lanes);
    return Store::Make(regs, reg(r, v), std::move(value), loc);
  });
  Stmt multiply_add = ForEachRegister(names, *blocking, loc, [&](const VarRef& r, const VarRef& v) {
    Expr sum =
        Call::Make(vector, "fma",
                   {Broadcast::Make(CastTo(acc, a_op.At(row(r), k)), lanes),
                    CastTo(vector, b_op.At(k, col(v), lanes)), BufferLoad::Make(regs, reg(r, v))});
    return Store::Make(regs, reg(r, v), std::move(sum), loc);
  });
  Stmt store = ForEachRegister(names, *blocking, loc, [&](const VarRef& r, const VarRef& v) {
    return Store::Make(gemm.c.buffer, c->Indices(row(r), col(v), lanes),
                       BufferLoad::Make(regs, reg(r, v)), loc);
  });
  Stmt block = Seq::Make(
      {Allocate::Make(regs, loc), std::move(load),
       Loop(k, k_extent, ForKind::kSerial, std::move(multiply_add), loc), std::move(store)},
      loc);
  Stmt columns =
      Loop(j_block, n / (blocking->vectors * lanes), ForKind::kSerial, std::move(block), loc);
  stmts.push_back(Loop(i_block, m / blocking->rows, ForKind::kSerial, std::move(columns), loc));
  return std::optional<Stmt>(stmts.size() == 1 ? stmts[0] : Seq::Make(std::move(stmts), loc));
}

}  // namespace tile_ir::cpu
