// The visible-name scope of the verifier.
#include "tile_ir/verifier_scope.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace tile_ir::verifier {

void NameScope::ExitFrame() {
  auto [num_vars, num_buffers] = frames_.back();
  frames_.pop_back();
  for (size_t i = num_vars; i < vars_.size(); ++i) var_set_.erase(vars_[i]);
  for (size_t i = num_buffers; i < buffers_.size(); ++i) buffer_set_.erase(buffers_[i]);
  vars_.resize(num_vars);
  buffers_.resize(num_buffers);
}

void NameScope::AddVar(const Var* var) {
  if (var_set_.insert(var).second) vars_.push_back(var);
}

void NameScope::AddBuffer(const BufferNode* buffer) {
  if (buffer_set_.insert(buffer).second) buffers_.push_back(buffer);
}

std::string NameScope::UndefinedVarMessage(const Var& var) const {
  if (!confinement_.empty()) {
    return absl::StrCat("variable '", var.name, "' cannot be used here: only ", confinement_,
                        " may appear");
  }
  bool same_name_visible =
      std::any_of(vars_.begin(), vars_.end(), [&](const Var* v) { return v->name == var.name; });
  if (same_name_visible) {
    return absl::StrCat("variable '", var.name, "' is not the variable of that name in scope ",
                        "(variables are compared by identity, not by name)");
  }
  return absl::StrCat("variable '", var.name, "' is used but not defined here");
}

std::string NameScope::UndefinedBufferMessage(const BufferNode& buffer) const {
  if (!confinement_.empty()) {
    return absl::StrCat("buffer '", buffer.name, "' cannot be used here: only ", confinement_,
                        " may appear");
  }
  bool same_name_visible = std::any_of(buffers_.begin(), buffers_.end(),
                                       [&](const BufferNode* b) { return b->name == buffer.name; });
  if (same_name_visible) {
    return absl::StrCat("buffer '", buffer.name, "' is not the buffer of that name in scope ",
                        "(buffers are compared by identity, not by name)");
  }
  return absl::StrCat("buffer '", buffer.name,
                      "' is used but not declared here (it must be a kernel parameter or be "
                      "allocated earlier in an enclosing block)");
}

}  // namespace tile_ir::verifier
