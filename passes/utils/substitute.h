// Replacing variables by expressions, for passes that remap indices (block
// rasterization) or instantiate index maps (layouts).
#ifndef PASSES_UTILS_SUBSTITUTE_H_
#define PASSES_UTILS_SUBSTITUTE_H_

#include <vector>

#include "absl/container/flat_hash_map.h"
#include "tile_ir/expr.h"
#include "tile_ir/module.h"
#include "tile_ir/stmt.h"

namespace tile_ir::passes {

// Variables are keyed by identity; a variable not in the map stays.
using VarMap = absl::flat_hash_map<const Var*, Expr>;

// `e` with every mapped variable replaced; the same pointer when none occurs.
Expr Substitute(const Expr& e, const VarMap& map);

// The same for every expression of `s`, including the shapes and strides of
// the buffers it uses and declares (a buffer whose shape changes is rebuilt
// once and the new one used everywhere in `s`).
Stmt Substitute(const Stmt& s, const VarMap& map);

// The same for a whole kernel: grid extents, body and the shapes and strides of its
// buffer parameters (one rebuilt buffer per parameter, used in the body too). Dims and
// scalar parameters are kept; a caller that binds them removes them itself.
Kernel Substitute(const Kernel& kernel, const VarMap& map);

// A kernel whose grid indices are remapped: `map` substituted in its body, `lets` (which compute
// the map's values from the old indices) in front of it, launched with `launch`
// (rasterize-blocks, longest-blocks-first).
Kernel RemapBlockIndices(const Kernel& kernel, Launch launch, std::vector<Stmt> lets,
                         const VarMap& map);

}  // namespace tile_ir::passes

#endif  // PASSES_UTILS_SUBSTITUTE_H_
