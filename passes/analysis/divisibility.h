// The largest power of two known to divide integer expressions of thread-level IR, through the
// lets that bind their variables: what async-copies proves alignment with, what
// core-matrix-tiles proves vector accesses stay inside one 16-byte chunk with, and what the
// C-source emitter proves wide (uint2, uint4) moves aligned with.
#ifndef PASSES_ANALYSIS_DIVISIBILITY_H_
#define PASSES_ANALYSIS_DIVISIBILITY_H_

#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "tile_ir/buffer.h"
#include "tile_ir/expr.h"
#include "tile_ir/module.h"
#include "tile_ir/visitor.h"

namespace tile_ir::passes {

class Divisibility : public IRVisitor {
 public:
  using IRVisitor::Visit;

  // Divisors are tracked up to this power of two; larger ones change no alignment decision.
  static constexpr int64_t kMaxDivisor = int64_t{1} << 20;

  // The largest power of two dividing `value`, up to kMaxDivisor (which 0 gets).
  static int64_t OfConstant(int64_t value);

  // Visit the kernel's body first, so that the lets are known (or add them one by one).
  // Of a vector: of its first lane.
  int64_t Of(const Expr& e) const;
  // The power of two dividing the element offset of `indices` in `buffer`.
  int64_t OffsetOf(const BufferNode& buffer, const std::vector<Expr>& indices) const;

  // Learns what divides the variable of an integer let, for a caller that walks the IR in
  // its own order: the C-source emitter adds each let as it emits it.
  void AddLet(const Let& let);
  // Learns what divides the dimensions the kernel's shape contract constrains: a requirement
  // `D % c == 0` (alone or in a conjunction) makes the power of two dividing c divide D.
  void AddRequirements(const KernelNode& kernel);

 protected:
  void VisitLet(const Let& node) override;

 private:
  absl::flat_hash_map<const Var*, int64_t> lets_;
};

}  // namespace tile_ir::passes

#endif  // PASSES_ANALYSIS_DIVISIBILITY_H_
