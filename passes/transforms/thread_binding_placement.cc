// Placements of a box of parallel loops on (thread, register): enumerated, then read back as
// an affine or a separable form, and the index expressions that walk them.
#include "passes/transforms/thread_binding_placement.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "passes/analysis/arith/expr_simplifier.h"
#include "passes/transforms/thread_binding_internal.h"

namespace tile_ir::passes::thread_binding {
namespace {

// The slope of a placement: from any register held by two threads; nullopt where none is,
// and where the points of such a register do not rise by a whole multiple of the thread.
std::optional<int64_t> AffineSlope(const Placement& placement, int64_t threads) {
  const std::vector<int64_t>& owned = placement.owned;
  std::optional<int64_t> slope;
  for (int64_t r = 0; r < placement.registers && !slope; ++r) {
    int64_t first = -1;
    for (int64_t t = 0; t < threads && !slope; ++t) {
      int64_t point = owned[r * threads + t];
      if (point < 0) continue;
      if (first < 0) {
        first = t;
      } else {
        int64_t rise = point - owned[r * threads + first];
        if (rise % (t - first) != 0) return std::nullopt;
        slope = rise / (t - first);
      }
    }
  }
  return slope;
}

}  // namespace

std::optional<ParallelBox> FindParallelBox(const For& root) {
  ParallelBox box;
  box.chain = ParallelChain(root);
  for (const For* loop : box.chain) {
    std::optional<int64_t> min = AsConstInt(loop->min);
    std::optional<int64_t> extent = AsConstInt(loop->extent);
    if (!min || !extent || *extent <= 0 || box.total > kMaxPoints / *extent) return std::nullopt;
    box.domain.push_back({loop->var.get(), *min, *extent});
    box.total *= *extent;
  }
  return box;
}

std::vector<const Var*> BoxSlots(const std::vector<VarRange>& box) {
  std::vector<const Var*> slots;
  slots.reserve(box.size());
  for (const VarRange& range : box) slots.push_back(range.var);
  return slots;
}

std::optional<Placement> FindPlacement(const Expr& owner, const Expr& reg, const ParallelBox& box,
                                       int64_t threads) {
  Placement placement;
  placement.point_thread.resize(box.total);
  placement.point_register.resize(box.total);
  const std::vector<const Var*> slots = BoxSlots(box.domain);
  const IntProgram owner_at(owner, slots);
  const IntProgram reg_at(reg, slots);
  bool ok =
      EnumerateBox(box.domain, kMaxPoints, [&](absl::Span<const int64_t> values, int64_t point) {
        std::optional<int64_t> t = owner_at.Run(values);
        std::optional<int64_t> r = reg_at.Run(values);
        if (!t || !r || *t < 0 || *t >= threads || *r < 0 || *r >= kMaxRegisters) return false;
        placement.point_thread[point] = *t;
        placement.point_register[point] = *r;
        placement.registers = std::max(placement.registers, *r + 1);
        return true;
      });
  if (!ok) return std::nullopt;
  // Walk only the registers from the first one holding a point: a box of the second half of a
  // fragment's rows (an epilogue storing a tile in chunks) then walks its own registers, not
  // every register with the first half's guarded off.
  const int64_t first = box.total == 0 ? 0
                                       : *std::min_element(placement.point_register.begin(),
                                                           placement.point_register.end());
  for (int64_t& r : placement.point_register) r -= first;
  placement.registers -= first;
  if (placement.registers * threads > kMaxPoints) return std::nullopt;
  placement.owned.assign(placement.registers * threads, -1);
  for (int64_t point = 0; point < box.total; ++point) {
    int64_t& slot =
        placement.owned[placement.point_register[point] * threads + placement.point_thread[point]];
    if (slot >= 0) return std::nullopt;
    slot = point;
  }
  return placement;
}

std::optional<AffinePlacement> FindAffine(const Placement& placement, int64_t threads,
                                          int64_t total) {
  const std::vector<int64_t>& owned = placement.owned;
  const int64_t registers = placement.registers;
  std::optional<int64_t> slope = AffineSlope(placement, threads);
  if (!slope || *slope < 0) return std::nullopt;
  AffinePlacement form;
  form.a = *slope;
  const int64_t a = form.a;
  std::vector<std::optional<int64_t>>& offset = form.offset;
  offset.resize(registers);
  for (int64_t r = 0; r < registers; ++r) {
    for (int64_t t = 0; t < threads; ++t) {
      int64_t point = owned[r * threads + t];
      if (point >= 0 && !offset[r]) offset[r] = point - a * t;
      if (point >= 0 && point != a * t + *offset[r]) return std::nullopt;
    }
    if (!offset[r]) {
      form.guard = true;
      continue;
    }
    for (int64_t t = 0; t < threads; ++t) {
      if (owned[r * threads + t] >= 0) continue;
      if (a * t + *offset[r] < total) return std::nullopt;
      form.guard = true;
    }
  }
  std::optional<int64_t> previous;
  for (int64_t r = 0; r < registers; ++r) {
    if (!offset[r]) continue;
    if (previous && *offset[r] <= *previous) return std::nullopt;
    previous = offset[r];
  }
  for (std::optional<int64_t>& b : offset) {
    if (!b) b = total;
  }
  if (registers > kMaxUnrolled && !IsProgression(offset)) return std::nullopt;
  return form;
}

std::optional<Separable> FindSeparable(const std::vector<VarRange>& domain,
                                       const std::vector<int64_t>& owned, int64_t registers,
                                       int64_t threads) {
  const int64_t t_count = threads;
  if (registers > kMaxSeparableUnrolled || t_count < 1 || (t_count & (t_count - 1)) != 0) {
    return std::nullopt;
  }
  int log_t = 0;
  while ((int64_t{1} << log_t) < t_count) ++log_t;
  const size_t dims = domain.size();
  auto coords_of = [&](int64_t point) {
    std::vector<int64_t> c(dims);
    for (size_t d = dims; d-- > 0;) {
      c[d] = domain[d].min + point % domain[d].extent;
      point /= domain[d].extent;
    }
    return c;
  };
  int64_t full = -1;
  for (int64_t r = 0; r < registers && full < 0; ++r) {
    bool all = true;
    for (int64_t t = 0; t < t_count && all; ++t) all = owned[r * t_count + t] >= 0;
    if (all) full = r;
  }
  if (full < 0) return std::nullopt;
  // P_d(t) relative to thread 0, read off the fully held register.
  std::vector<std::vector<int64_t>> p(dims, std::vector<int64_t>(t_count));
  std::vector<int64_t> base = coords_of(owned[full * t_count]);
  for (int64_t t = 0; t < t_count; ++t) {
    std::vector<int64_t> c = coords_of(owned[full * t_count + t]);
    for (size_t d = 0; d < dims; ++d) p[d][t] = c[d] - base[d];
  }
  Separable result;
  result.bits.assign(dims, std::vector<int64_t>(log_t));
  for (size_t d = 0; d < dims; ++d) {
    for (int b = 0; b < log_t; ++b) result.bits[d][b] = p[d][int64_t{1} << b];
    for (int64_t t = 0; t < t_count; ++t) {
      int64_t sum = 0;
      for (int b = 0; b < log_t; ++b) sum += ((t >> b) & 1) * result.bits[d][b];
      if (sum != p[d][t]) return std::nullopt;
    }
  }
  // Q_d(r) from r's first holder; a register nobody holds is sent out of the box in
  // dimension 0 (above its end at every thread).
  result.q.assign(dims, std::vector<int64_t>(registers, 0));
  int64_t lowest_p0 = *std::min_element(p[0].begin(), p[0].end());
  for (int64_t r = 0; r < registers; ++r) {
    int64_t holder = -1;
    for (int64_t t = 0; t < t_count && holder < 0; ++t) {
      if (owned[r * t_count + t] >= 0) holder = t;
    }
    for (size_t d = 0; d < dims; ++d) {
      if (holder >= 0) {
        result.q[d][r] = coords_of(owned[r * t_count + holder])[d] - p[d][holder];
      } else {
        result.q[d][r] = d == 0 ? domain[0].min + domain[0].extent - lowest_p0 : domain[d].min;
      }
    }
  }
  result.guard_low.assign(dims, false);
  result.guard_high.assign(dims, false);
  for (int64_t r = 0; r < registers; ++r) {
    for (int64_t t = 0; t < t_count; ++t) {
      int64_t point = owned[r * t_count + t];
      if (point >= 0) {
        std::vector<int64_t> c = coords_of(point);
        for (size_t d = 0; d < dims; ++d) {
          if (c[d] != p[d][t] + result.q[d][r]) return std::nullopt;
        }
        continue;
      }
      bool outside = false;
      for (size_t d = 0; d < dims; ++d) {
        int64_t x = p[d][t] + result.q[d][r];
        if (x < domain[d].min) {
          result.guard_low[d] = true;
          outside = true;
        } else if (x >= domain[d].min + domain[d].extent) {
          result.guard_high[d] = true;
          outside = true;
        }
      }
      if (!outside) return std::nullopt;
    }
  }
  return result;
}

bool IsProgression(const std::vector<std::optional<int64_t>>& values) {
  int64_t b0 = *values[0];
  int64_t d = values.size() > 1 ? *values[1] - b0 : 0;
  for (size_t r = 0; r < values.size(); ++r) {
    if (*values[r] != b0 + static_cast<int64_t>(r) * d) return false;
  }
  return true;
}

std::optional<Expr> Progression(const std::vector<std::optional<int64_t>>& values,
                                const VarRef& round, DataType type) {
  if (!IsProgression(values)) return std::nullopt;
  int64_t b0 = *values[0];
  int64_t d = values.size() > 1 ? *values[1] - b0 : 0;
  Expr r = round->dtype() == type ? Expr(round) : Cast::Make(type, round);
  return arith::SimplifyExpr(
      Op(BinaryOp::kAdd, Int(b0, type), Op(BinaryOp::kMul, r, Int(d, type))));
}

Expr SelectChain(const std::vector<std::optional<int64_t>>& values, const VarRef& round,
                 DataType type) {
  Expr r = round->dtype() == type ? Expr(round) : Cast::Make(type, round);
  Expr chain = Int(*values.back(), type);
  for (size_t k = values.size() - 1; k-- > 0;) {
    chain = Select::Make(Op(BinaryOp::kEq, r, Int(static_cast<int64_t>(k), type)),
                         Int(*values[k], type), chain);
  }
  return chain;
}

Expr RegisterTable(std::vector<std::optional<int64_t>> values, int64_t max_unrolled,
                   const VarRef& round) {
  for (std::optional<int64_t>& v : values) {
    if (!v) v = 0;
  }
  std::optional<Expr> progression = Progression(values, round, kI32);
  if (progression) return *progression;
  if (static_cast<int64_t>(values.size()) <= max_unrolled) {
    return SelectChain(values, round, kI32);
  }
  return nullptr;
}

Expr BitLinear(const std::vector<int64_t>& bits, const Expr& thread, DataType type) {
  const int log_t = static_cast<int>(bits.size());
  Expr sum;
  for (int b = 0; b < log_t;) {
    if (bits[b] == 0) {
      ++b;
      continue;
    }
    int len = 1;
    while (b + len < log_t && bits[b + len] == 2 * bits[b + len - 1]) ++len;
    Expr x = thread;
    if (b > 0) x = Op(BinaryOp::kDiv, x, Int(int64_t{1} << b, type));
    if (b + len < log_t) x = Op(BinaryOp::kMod, x, Int(int64_t{1} << len, type));
    Expr term = bits[b] == 1 ? x : Op(BinaryOp::kMul, x, Int(bits[b], type));
    sum = sum ? Op(BinaryOp::kAdd, sum, term) : term;
    b += len;
  }
  return sum ? sum : Int(0, type);
}

}  // namespace tile_ir::passes::thread_binding
