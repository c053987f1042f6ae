// What padded-reductions tracks per tile, and how element-wise expressions carry it (shared by
// padded_reductions.cc, the statement walk, and padded_reductions_expr.cc).
#ifndef PASSES_ANALYSIS_PADDED_REDUCTIONS_INTERNAL_H_
#define PASSES_ANALYSIS_PADDED_REDUCTIONS_INTERNAL_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "passes/analysis/divisibility.h"
#include "tile_ir/buffer.h"
#include "tile_ir/expr.h"
#include "tile_ir/module.h"
#include "tile_ir/source_loc.h"

namespace tile_ir::passes::padding {

// The elements of a tile, along one of its dims, that a copy read from past a tensor's edge.
struct Padding {
  std::string tensor;  // the global buffer copied from
  int tensor_dim = 0;
  Expr size;                // the tensor's size along that dim (N), for the message
  int64_t tile_extent = 0;  // the region's extent there (0 when not constant)
  SourceLoc copy_loc;
  // Whether the padded elements still hold the copy's zeros (an element-wise loop that
  // multiplied them kept them; one that took exp() of them did not).
  bool zero = true;
};

// Tile dim -> the padding along it; a dim not present holds none.
using TilePadding = std::map<int, Padding>;
using PaddingState = absl::flat_hash_map<const BufferNode*, TilePadding>;
// The values of lets inside an element-wise loop nest, seen through.
using LetValues = absl::flat_hash_map<const Var*, Expr>;

enum class PadKind {
  kNone,     // the expression is not padded along the variable
  kAllZero,  // the literal 0: zero at the padded elements as everywhere
  kZero,     // padded, and 0 there
  kNonzero,  // padded, and (maybe) not 0 there: only max/min/... saw no difference before
};

struct PadValue {
  PadKind kind = PadKind::kNone;
  const Padding* origin = nullptr;  // set for kZero and kNonzero
};

// What `e`, the value a parallel loop stores, holds at the elements of the padding along the
// loop variable `var`: a load of a padded tile indexed by `var` at its padded dim is padded, and
// operators carry it by their value at 0 (x * y keeps zeros, x - m and exp(x) do not). A
// select is taken for a mask and yields kNone; so do comparisons, global loads and calls of
// unknown effect at 0, so that unclear cases raise no remark.
PadValue PadAlong(const Expr& e, const Var* var, const PaddingState& state, const LetValues& lets);

// Whether a copy's global region may pass its tensor's edge along a dim, from what the kernel
// states (requirements) and the lets the walk has met (padded_reductions_edges.cc).
class EdgeFacts {
 public:
  explicit EdgeFacts(const KernelNode& kernel);
  void AddLet(const Var* var, const Expr& value) { lets_[var] = value; }
  // False when [min, min + extent) along `dim` provably stays inside the tensor, or lands on
  // tiles that divide it.
  bool MayPassEdge(const Region& region, int dim) const;

 private:
  bool Divides(const Expr& size, int64_t extent) const;
  bool MultipleOf(const Expr& e, int64_t factor, int depth) const;

  Divisibility divisibility_;
  // The constants c of the kernel's `require D % c == 0`, per dim D.
  absl::flat_hash_map<const Var*, std::vector<int64_t>> required_divisors_;
  LetValues lets_;
};

}  // namespace tile_ir::passes::padding

#endif  // PASSES_ANALYSIS_PADDED_REDUCTIONS_INTERNAL_H_
