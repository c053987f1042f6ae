// Rewriting traversal: each Mutate<Node> returns the replacement node, and the
// defaults rebuild a node only when one of its children changed, so untouched
// subtrees stay shared.
#ifndef TILE_IR_MUTATOR_H_
#define TILE_IR_MUTATOR_H_

#include "tile_ir/buffer.h"
#include "tile_ir/expr.h"
#include "tile_ir/module.h"
#include "tile_ir/node_list.h"
#include "tile_ir/stmt.h"

namespace tile_ir {

class IRMutator {
 public:
  virtual ~IRMutator() = default;

  virtual Expr Mutate(const Expr& e);
  // A statement mutator may return nullptr to delete the statement from its
  // Seq; where a statement is required (a loop body) it becomes an empty Seq.
  virtual Stmt Mutate(const Stmt& s);
  // The kernel with its body (and grid extents) mutated; the same pointer when
  // nothing changed.
  virtual Kernel MutateKernel(const Kernel& kernel);

 protected:
#define TILE_IR_DECLARE_MUTATE_EXPR(Name) \
  virtual Expr Mutate##Name(const Name& node, const Expr& self);
  TILE_IR_FOR_EACH_EXPR(TILE_IR_DECLARE_MUTATE_EXPR)
#undef TILE_IR_DECLARE_MUTATE_EXPR
#define TILE_IR_DECLARE_MUTATE_STMT(Name) \
  virtual Stmt Mutate##Name(const Name& node, const Stmt& self);
  TILE_IR_FOR_EACH_STMT(TILE_IR_DECLARE_MUTATE_STMT)
#undef TILE_IR_DECLARE_MUTATE_STMT

  // Applied at every use and declaration of a buffer; override to replace
  // buffers (e.g. to give a shared tile more stages).
  virtual Buffer MutateBuffer(const Buffer& buffer) { return buffer; }
  Region MutateRegion(const Region& region);
  // Mutates a list; `changed` is set when any element changed.
  std::vector<Expr> MutateExprs(const std::vector<Expr>& exprs, bool* changed);
  // A required statement: nullptr becomes an empty Seq.
  Stmt MutateBody(const Stmt& s);
};

// True when the two regions hold the same pointers.
bool SameRegion(const Region& a, const Region& b);

}  // namespace tile_ir

#endif  // TILE_IR_MUTATOR_H_
