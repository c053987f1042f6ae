// Every backend's prober, in the matrix's column order: what tile-matrix and
// the committed matrix's test use.
#ifndef TOOLS_TILE_MATRIX_ALL_PROBERS_H_
#define TOOLS_TILE_MATRIX_ALL_PROBERS_H_

#include "tools/tile_matrix/prober.h"

namespace tile_ir::matrix {

Probers AllProbers();

}  // namespace tile_ir::matrix

#endif  // TOOLS_TILE_MATRIX_ALL_PROBERS_H_
