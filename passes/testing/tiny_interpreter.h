// Runs one block of a lowered kernel on float64 values, for tests that check
// what lowered loops compute rather than how they are spelled.
#ifndef PASSES_TESTING_TINY_INTERPRETER_H_
#define PASSES_TESTING_TINY_INTERPRETER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "tile_ir/module.h"

namespace tile_ir::passes::testing {

// Every value is a double (integers stay exact below 2^53); buffers are dense
// row-major and keyed by name, which a kernel declares once. Loops of every
// kind run in order, as one thread would run them. Allocations start as NaN,
// so reading an element nobody wrote shows. Supported: Seq, For, If, Let,
// Allocate, Store, Evaluate of atomic_add_at, and the scalar expressions with
// the abs intrinsic. Anything else is an Unimplemented error.
class TinyInterpreter {
 public:
  // Values of parameters (buffers by name) and of dimensions and block
  // indices (by name), set before Run. Buffer parameters left unset start as NaN.
  void SetBuffer(const std::string& name, std::vector<double> values);
  void SetInt(const std::string& name, int64_t value);

  absl::Status Run(const KernelNode& kernel);

  const std::vector<double>& buffer(const std::string& name) const { return buffers_.at(name); }

 private:
  absl::Status Exec(const Stmt& s);
  absl::StatusOr<double> Eval(const Expr& e);
  absl::StatusOr<int64_t> Offset(const BufferNode& buffer, const std::vector<Expr>& indices);

  absl::flat_hash_map<std::string, std::vector<double>> buffers_;
  absl::flat_hash_map<std::string, double> vars_;
};

}  // namespace tile_ir::passes::testing

#endif  // PASSES_TESTING_TINY_INTERPRETER_H_
