// tile-opt as a library: read a module (.tile, .tilepb, .json or stdin), run a
// pass pipeline over it, write it in any form. The binary is a one-line main.
#ifndef TOOLS_TILE_OPT_TILE_OPT_MAIN_H_
#define TOOLS_TILE_OPT_TILE_OPT_MAIN_H_

#include <iosfwd>

namespace tile_ir::tools {

// Returns the process exit status: 0 only when everything succeeded.
int TileOptMain(int argc, char** argv, std::istream& in, std::ostream& out, std::ostream& err);

}  // namespace tile_ir::tools

#endif  // TOOLS_TILE_OPT_TILE_OPT_MAIN_H_
