// `tile-matrix run`: probes the suite on the backends at hand and records a status per operator
// and target, merged into the committed records (and the pages re-rendered) or written alone.
#ifndef TOOLS_TILE_MATRIX_RUN_COMMAND_H_
#define TOOLS_TILE_MATRIX_RUN_COMMAND_H_

#include <iosfwd>

#include "tools/tile_matrix/tile_matrix_main.h"

namespace tile_ir::matrix {

// argv[0] is the subcommand. Returns the exit status: 0, 1 when a cell failed (it is recorded) or
// a file could not be read or written, 2 for a bad command line.
int RunCommand(int argc, char** argv, std::ostream& out, std::ostream& err,
               const TileMatrixEnvironment& env);

}  // namespace tile_ir::matrix

#endif  // TOOLS_TILE_MATRIX_RUN_COMMAND_H_
