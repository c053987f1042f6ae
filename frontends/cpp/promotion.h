// TileLang's implicit type rules for the C++ API, the same as tile.language's
// (python/tile/language/promotion.py; docs/LANGUAGE.md, "Types"): the type two
// operands meet at, as TVM's BinaryOpMatchTypes gives it, and the conversion of a
// value to a type, a constant converted where it stands and anything else through
// an explicit cast node (the IR itself requires equal types).
#ifndef FRONTENDS_CPP_PROMOTION_H_
#define FRONTENDS_CPP_PROMOTION_H_

#include <optional>

#include "tile_ir/expr.h"

namespace tile_ir::dsl {

// The type operands of types a and b meet at; nullopt where TileLang refuses the mix
// (two different float8 formats) or the lane counts differ. In TVM's order: two of
// f16/f32/f64 meet at the wider; one of them beats an integer, bool, bf16 or a float8;
// then bf16 beats the rest; then a float8; bool meets an integer at the integer; integers
// of one signedness meet at the wider; i8 and u8 meet at u8.
std::optional<DataType> CommonType(DataType a, DataType b);

// `e` as `dtype`: an integer or float constant folded (toward zero into an integer
// type, `!= 0` into bool), anything else wrapped in a Cast.
Expr ConvertTo(const Expr& e, DataType dtype);

}  // namespace tile_ir::dsl

#endif  // FRONTENDS_CPP_PROMOTION_H_
