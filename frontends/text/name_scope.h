// The names of a kernel while it is parsed (docs/TEXT_FORMAT.md): each is
// declared once per kernel and visible from its declaration to the end of its
// block; lookups go through one hash map.
#ifndef FRONTENDS_TEXT_NAME_SCOPE_H_
#define FRONTENDS_TEXT_NAME_SCOPE_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "tile_ir/buffer.h"
#include "tile_ir/expr.h"

namespace tile_ir::text {

// What a name denotes: exactly one of var and buffer is set.
struct Binding {
  VarRef var;
  Buffer buffer;
  int line = 0;  // where it was declared
  int col = 0;
};

class NameScope {
 public:
  void Enter() { scope_starts_.push_back(visible_order_.size()); }
  // Hides every name declared since the matching Enter.
  void Exit();

  // The binding of `name` where it is visible; nullptr elsewhere.
  const Binding* Find(std::string_view name) const;
  // The binding of `name` if it was ever declared, visible or not.
  const Binding* FindDeclared(std::string_view name) const;
  // False, changing nothing, when `name` was declared before.
  bool Declare(std::string_view name, Binding binding);

 private:
  struct Entry {
    Binding binding;
    bool visible = true;
  };
  absl::flat_hash_map<std::string, Entry> declared_;
  // Declared names in order, down to those of the innermost open scope.
  std::vector<std::string> visible_order_;
  std::vector<size_t> scope_starts_;
};

}  // namespace tile_ir::text

#endif  // FRONTENDS_TEXT_NAME_SCOPE_H_
