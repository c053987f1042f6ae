// Internal to the thread-binding library: the arithmetic behind the fast form of nests that
// touch fragments (Binder::RegisterNest), free of IR rewriting. A placement puts each point
// of a constant box of parallel loops on the (thread t, register r) that holds it; these
// functions find its affine or separable shape and build the index expressions that walk it.
#ifndef PASSES_TRANSFORMS_THREAD_BINDING_PLACEMENT_H_
#define PASSES_TRANSFORMS_THREAD_BINDING_PLACEMENT_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/types/span.h"
#include "passes/analysis/fragment_threads.h"
#include "tile_ir/stmt.h"

namespace tile_ir::passes::thread_binding {

// What the fast form enumerates (points of a box, (t, r) pairs) and how far it goes.
inline constexpr int64_t kMaxPoints = int64_t{1} << 20;
inline constexpr int64_t kMaxRegisters = 1 << 12;
inline constexpr int64_t kMaxUnrolled = 64;
// The separable form always unrolls: it exists for layouts (tensor-core accumulators)
// whose register arrays nvcc keeps in registers only when every index is a constant after
// unrolling; one access indexed at run time anywhere sends the whole array to local memory.
inline constexpr int64_t kMaxSeparableUnrolled = 256;

// A perfect nest of parallel loops (ParallelChain) over a constant box.
struct ParallelBox {
  std::vector<const For*> chain;  // outermost first
  std::vector<VarRange> domain;   // the loops' ranges, in the same order
  int64_t total = 1;              // the points of the box
};

// The box of `root`'s parallel chain; nullopt where a bound is not constant, an extent is
// not positive or the box has more than kMaxPoints points.
std::optional<ParallelBox> FindParallelBox(const For& root);

// Where an access places each point of a box (in row-major order). Registers count from the
// lowest one that holds a point of the box (the walk's round 0); the accesses' register tables
// map rounds back to the layout's registers.
struct Placement {
  std::vector<int64_t> point_thread;
  std::vector<int64_t> point_register;  // minus the lowest
  int64_t registers = 0;                // 1 + the largest, minus the lowest
  std::vector<int64_t> owned;           // [r * threads + t]: the point (t, r) holds, -1 for none
};

// The placement by the (thread, register) expressions `owner` and `reg` of `box`'s loop
// variables; nullopt where they cannot be evaluated, leave [0, threads) x [0,
// kMaxRegisters), need more than kMaxPoints (t, r) pairs or put two points on one.
std::optional<Placement> FindPlacement(const Expr& owner, const Expr& reg, const ParallelBox& box,
                                       int64_t threads);

// A placement that reads back as linear index = a * t + offset[r].
struct AffinePlacement {
  int64_t a = 0;
  // Some (t, r) holds no point: the walk checks its element against the total.
  bool guard = false;
  // B[r] from r's first holder; the total for a register no thread holds, so that the
  // guard fails there. Always set (optional for Progression and SelectChain).
  std::vector<std::optional<int64_t>> offset;
};

// The affine form of `placement` (a >= 0, offsets increasing so that each thread visits its
// elements in the order of the nest, a progression where there are more than kMaxUnrolled
// registers); nullopt where it has none.
std::optional<AffinePlacement> FindAffine(const Placement& placement, int64_t threads,
                                          int64_t total);

// A placement whose coordinates are separable and bit-linear: for each dimension d of the
// nest, coord_d(t, r) = P_d(t) + Q_d(r) with P_d(t) = sum over bits b of t of
// bits[d][b] * ((t >> b) & 1) (T a power of two).
struct Separable {
  std::vector<std::vector<int64_t>> bits;  // [d][b]
  std::vector<std::vector<int64_t>> q;     // [d][r]
  // Dimensions whose coordinate leaves the box below / above at a (t, r) holding nothing.
  std::vector<bool> guard_low;
  std::vector<bool> guard_high;
};

// The separable form of the placement `owned` ((t, r) -> row-major point of `domain`, -1
// where (t, r) holds nothing), checked at every (t, r); nullopt where it does not apply
// (T not a power of two, more than kMaxSeparableUnrolled registers, no register held by
// every thread, coordinates not of that form, or a (t, r) holding nothing whose
// coordinates land inside the box).
std::optional<Separable> FindSeparable(const std::vector<VarRange>& domain,
                                       const std::vector<int64_t>& owned, int64_t registers,
                                       int64_t threads);

// Whether `values` (all set) form an arithmetic progression.
bool IsProgression(const std::vector<std::optional<int64_t>>& values);

// values[round] as b0 + round * d in `type`, where `values` (all set) form a progression.
std::optional<Expr> Progression(const std::vector<std::optional<int64_t>>& values,
                                const VarRef& round, DataType type);

// values[round] as a chain of selects over `round` (all values set).
Expr SelectChain(const std::vector<std::optional<int64_t>>& values, const VarRef& round,
                 DataType type);

// values[round] (i32) as the progression of `values`, or a select chain where there are at
// most `max_unrolled`; nullptr otherwise. Registers no element reaches (unset) take any value.
Expr RegisterTable(std::vector<std::optional<int64_t>> values, int64_t max_unrolled,
                   const VarRef& round);

// P(thread): the sum of bits[b] * ((thread >> b) & 1), each run of bits whose coefficients
// double (c, 2c, 4c, ...) one term c * (thread / 2^b0 % 2^len) (the division left out at
// bit 0, the remainder at the top bit; the thread index is never negative).
Expr BitLinear(const std::vector<int64_t>& bits, const Expr& thread, DataType type);

// The variables of `box` in order: the slots an IntProgram run over the box reads.
std::vector<const Var*> BoxSlots(const std::vector<VarRange>& box);

// Calls visit(values, point) at every point of `box` in row-major order, values[d] holding
// box[d]'s value and point counting them; false when it returned false or the box is too
// large.
template <typename Visit>
bool EnumerateBox(const std::vector<VarRange>& box, int64_t limit, Visit visit) {
  int64_t size = 1;
  for (const VarRange& range : box) {
    if (range.extent <= 0) return true;
    if (size > limit / range.extent) return false;
    size *= range.extent;
  }
  std::vector<int64_t> values(box.size());
  for (size_t d = 0; d < box.size(); ++d) values[d] = box[d].min;
  for (int64_t point = 0; point < size; ++point) {
    if (!visit(absl::Span<const int64_t>(values), point)) return false;
    for (size_t d = box.size(); d-- > 0;) {
      if (++values[d] < box[d].min + box[d].extent) break;
      values[d] = box[d].min;
    }
  }
  return true;
}

}  // namespace tile_ir::passes::thread_binding

#endif  // PASSES_TRANSFORMS_THREAD_BINDING_PLACEMENT_H_
