// Exact evaluation of integer index expressions at given variable values: once
// (EvaluateInt), or compiled once and run at every point of a box (IntProgram), which is
// what layout enumeration does for every fragment of a kernel.
#ifndef PASSES_ANALYSIS_INT_EVAL_H_
#define PASSES_ANALYSIS_INT_EVAL_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/types/span.h"
#include "tile_ir/expr.h"

namespace tile_ir::passes {

// Values of integer variables, for EvaluateInt.
using IntEnv = absl::flat_hash_map<const Var*, int64_t>;

// The value of an integer or bool expression made of literals, variables bound in `env`,
// arithmetic, comparisons, logic, casts between integer types and selects; nullopt for
// anything else (a load, a call, an unbound variable) and for a division by zero or an
// overflow. A select evaluates only the side its condition picks.
std::optional<int64_t> EvaluateInt(const Expr& e, const IntEnv& env);

// An expression compiled for repeated evaluation: Run(values) returns what EvaluateInt
// would with slots[k] bound to values[k] and every other variable as in `bound` at compile
// time. A flat instruction list over a value stack replaces the tree walk and the hash
// lookups, several times faster per point.
class IntProgram {
 public:
  IntProgram(const Expr& e, absl::Span<const Var* const> slots, const IntEnv& bound = {});

  // values.size() must be slots.size().
  std::optional<int64_t> Run(absl::Span<const int64_t> values) const;

 private:
  enum class OpKind : uint8_t {
    kConst,         // push arg
    kSlot,          // push values[arg]
    kNeg,           // a -> -a in dtype
    kNot,           // a -> a == 0
    kBinary,        // a, b -> a op b in dtype (the operands' type)
    kFloorDivPow2,  // a -> a >> arg (a floor division by 2^arg), in dtype
    kFloorModPow2,  // a -> a & arg (a floor modulo by arg + 1, a power of two), in dtype
    kDivPow2,       // a -> a / 2^arg, rounding toward zero, in dtype
    kModPow2,       // a -> a % 2^arg, the sign of a, in dtype
    kToBool,        // a -> a != 0
    kCheckFits,     // fail unless the top fits dtype
    kJumpIfZero,    // pop; continue at arg when it was 0
    kJump,          // continue at arg
    kFail,          // not evaluable (a non-integer node, an unbound variable)
  };
  struct Op {
    OpKind kind;
    BinaryOp op;
    DataType dtype;
    int64_t arg;
  };

  void Emit(const Expr& e, absl::Span<const Var* const> slots, const IntEnv& bound, int depth);

  std::vector<Op> ops_;
  int max_depth_ = 0;
};

}  // namespace tile_ir::passes

#endif  // PASSES_ANALYSIS_INT_EVAL_H_
