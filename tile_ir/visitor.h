// Read-only traversal of expressions and statements. Override a Visit<Node>
// method and call the base version to keep descending.
#ifndef TILE_IR_VISITOR_H_
#define TILE_IR_VISITOR_H_

#include "tile_ir/buffer.h"
#include "tile_ir/expr.h"
#include "tile_ir/module.h"
#include "tile_ir/node_list.h"
#include "tile_ir/stmt.h"

namespace tile_ir {

class IRVisitor {
 public:
  virtual ~IRVisitor() = default;

  // Dispatch on the node kind; null statements (an absent else) are ignored.
  virtual void Visit(const Expr& e);
  virtual void Visit(const Stmt& s);
  // The parameters' shapes, the grid extents and the body.
  virtual void VisitKernel(const KernelNode& kernel);

 protected:
#define TILE_IR_DECLARE_VISIT(Name) virtual void Visit##Name(const Name& node);
  TILE_IR_FOR_EACH_EXPR(TILE_IR_DECLARE_VISIT)
  TILE_IR_FOR_EACH_STMT(TILE_IR_DECLARE_VISIT)
#undef TILE_IR_DECLARE_VISIT

  // Called at each use of a buffer (load, store, region); declarations go
  // through VisitAllocate or VisitKernel instead.
  virtual void VisitBufferUse(const Buffer& buffer) {}
  virtual void VisitRegion(const Region& region);
  // Shape and stride expressions of a declared buffer; layouts are not visited
  // because their variables are bound only inside the layout.
  virtual void VisitBufferDecl(const Buffer& buffer);
};

}  // namespace tile_ir

#endif  // TILE_IR_VISITOR_H_
