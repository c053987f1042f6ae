// The statements of a loop body.
#include "passes/utils/loop_body.h"

namespace tile_ir::passes {

std::vector<Stmt> LoopBodyStmts(const For& loop) {
  if (const Seq* seq = As<Seq>(loop.body)) return seq->stmts;
  return {loop.body};
}

}  // namespace tile_ir::passes
