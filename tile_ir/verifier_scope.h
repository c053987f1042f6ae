// The variables and buffers visible at a point of a kernel, for the verifier.
#ifndef TILE_IR_VERIFIER_SCOPE_H_
#define TILE_IR_VERIFIER_SCOPE_H_

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "tile_ir/buffer.h"
#include "tile_ir/expr.h"

namespace tile_ir::verifier {

// The variables and buffers visible at a point, compared by identity (two Var
// nodes with one name are different variables). Frames nest like blocks.
class NameScope {
 public:
  // `confinement` names what a restricted scope admits (e.g. "the layout's input
  // variables"); empty for the scope of a kernel body.
  explicit NameScope(std::string confinement = "") : confinement_(std::move(confinement)) {}

  void EnterFrame() { frames_.emplace_back(vars_.size(), buffers_.size()); }
  void ExitFrame();
  void AddVar(const Var* var);
  void AddBuffer(const BufferNode* buffer);

  bool HasVar(const Var* var) const { return var_set_.contains(var); }
  bool HasBuffer(const BufferNode* buffer) const { return buffer_set_.contains(buffer); }

  // Why a use of `var` (or `buffer`), which is not visible, is wrong.
  std::string UndefinedVarMessage(const Var& var) const;
  std::string UndefinedBufferMessage(const BufferNode& buffer) const;

 private:
  std::string confinement_;
  std::vector<const Var*> vars_;
  std::vector<const BufferNode*> buffers_;
  absl::flat_hash_set<const Var*> var_set_;
  absl::flat_hash_set<const BufferNode*> buffer_set_;
  // Sizes of vars_ and buffers_ when each open frame began.
  std::vector<std::pair<size_t, size_t>> frames_;
};

}  // namespace tile_ir::verifier

#endif  // TILE_IR_VERIFIER_SCOPE_H_
