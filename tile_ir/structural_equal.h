// Structural equality of expressions: same kinds, types, values and the same
// variable and buffer objects (variables compare by identity, not by name).
#ifndef TILE_IR_STRUCTURAL_EQUAL_H_
#define TILE_IR_STRUCTURAL_EQUAL_H_

#include "tile_ir/expr.h"

namespace tile_ir {

bool StructuralEqual(const Expr& a, const Expr& b);

}  // namespace tile_ir

#endif  // TILE_IR_STRUCTURAL_EQUAL_H_
