// Op(BinaryOp::kAdd, a, b): the shorthand for Binary::Make that passes and
// tests build index arithmetic with, beside expr.h's Int, Float and Bool.
#ifndef TILE_IR_OP_SHORTHAND_H_
#define TILE_IR_OP_SHORTHAND_H_

#include <utility>

#include "tile_ir/expr.h"

namespace tile_ir {

inline Expr Op(BinaryOp op, Expr a, Expr b) { return Binary::Make(op, std::move(a), std::move(b)); }

}  // namespace tile_ir

#endif  // TILE_IR_OP_SHORTHAND_H_
