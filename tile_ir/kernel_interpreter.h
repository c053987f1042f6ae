// A direct, slow interpreter of tile IR kernels over float64 values, for tests.
// It runs tile-level kernels (copy, gemm, reduce, ...) and lowered ones alike:
// the operator suite checks its kernels against their references before any
// pass or backend sees them, and pass tests check what lowered loops compute
// rather than how they are spelled.
#ifndef TILE_IR_KERNEL_INTERPRETER_H_
#define TILE_IR_KERNEL_INTERPRETER_H_

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "tile_ir/module.h"

namespace tile_ir {

// One thread runs a block, statement after statement:
// - Loops of every kind run in order; barriers do nothing. An evaluated call
//   does nothing when it is pure, atomic_add_at is a read-modify-write, any
//   other call is an error.
// - Shared, fragment and local buffers, and buffer parameters given no
//   values, start as NaN, so an element read before it is written poisons the
//   outputs.
// - An access outside a shared, fragment or local buffer is an error; outside
//   a global one, GlobalBounds says.
// - Every float result is rounded to its expression's dtype, every store to
//   its buffer's dtype. gemm and reduce_sum accumulate in the accumulator's
//   dtype in index order, rounding each product and each sum, as a sequential
//   target does: the way to check that an op's tolerance covers fp32 sums.
// - Vector expressions (ramp, broadcast) and the atomic_add tile operation are
//   errors: no kernel checked this way uses them.
// Variables and buffers are bound by name, which a kernel declares once.
class KernelInterpreter {
 public:
  enum class GlobalBounds {
    // An access outside its tensor is an error: after bound-predication no
    // access may leave its tensor.
    kChecked,
    // An access outside its tensor reads 0 and writes nothing: what
    // bound-predication makes of a tile-level kernel's accesses at ragged edges.
    kPredicated,
  };

  explicit KernelInterpreter(GlobalBounds global_bounds = GlobalBounds::kChecked)
      : global_bounds_(global_bounds) {}

  // The value of a dim, a scalar parameter (rounded to its dtype when a run
  // binds it) or a grid variable, by name.
  void SetVar(const std::string& name, double value) { vars_[name] = value; }
  // The elements of a buffer parameter, dense and row-major, by name. They
  // persist across runs; a parameter given none starts as NaN.
  void SetBuffer(const std::string& name, std::vector<double> values) {
    buffers_[name] = std::move(values);
  }

  // Runs the one block whose grid variables SetVar bound.
  absl::Status RunBlock(const KernelNode& kernel);
  // Runs every block of the grid in turn, last grid axis fastest.
  absl::Status RunGrid(const KernelNode& kernel);

  // A buffer parameter's elements after the runs.
  const std::vector<double>& buffer(const std::string& name) const { return buffers_.at(name); }

 private:
  GlobalBounds global_bounds_;
  std::map<std::string, double> vars_;
  // A std::map: a run keeps pointers to its elements while it inserts.
  std::map<std::string, std::vector<double>> buffers_;
};

}  // namespace tile_ir

#endif  // TILE_IR_KERNEL_INTERPRETER_H_
