// What thread-binding asks of fragment layouts, answered by enumerating the elements:
// how many registers each thread needs, and whether index maps agree on a loop domain.
#ifndef PASSES_ANALYSIS_FRAGMENT_THREADS_H_
#define PASSES_ANALYSIS_FRAGMENT_THREADS_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "passes/analysis/int_eval.h"
#include "tile_ir/buffer.h"
#include "tile_ir/expr.h"

namespace tile_ir::passes {

// The registers per thread of a fragment whose layout maps each element of its constant
// shape to (thread, register): 1 + the largest register. An error naming the buffer when
// it has no layout, its shape is not constant or too large to enumerate, or an element maps
// outside [0, threads) x [0, R) or onto the place of another element (each replica of a
// replicated layout counting as an element).
absl::StatusOr<int64_t> RegistersPerThread(const BufferNode& fragment, int64_t threads);

// A variable ranging over [min, min + extent).
struct VarRange {
  const Var* var;
  int64_t min;
  int64_t extent;
};

// Whether all of `exprs` take one value at every point of the box `domain`, which must bind
// every variable they use; false when that cannot be decided (a variable outside the
// domain, an expression EvaluateInt cannot evaluate, a box too large to enumerate).
bool AgreeOnDomain(const std::vector<Expr>& exprs, const std::vector<VarRange>& domain);

}  // namespace tile_ir::passes

#endif  // PASSES_ANALYSIS_FRAGMENT_THREADS_H_
