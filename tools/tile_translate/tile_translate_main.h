// tile-translate as a library: read a module, lower it with a target's
// pipeline and print the source that target would compile (CUDA C++ for
// cuda:<arch>, LLVM IR for cpu), or the thread-level IR it comes from. The
// binary is a one-line main.
#ifndef TOOLS_TILE_TRANSLATE_TILE_TRANSLATE_MAIN_H_
#define TOOLS_TILE_TRANSLATE_TILE_TRANSLATE_MAIN_H_

#include <iosfwd>

namespace tile_ir::tools {

// Returns the process exit status: 0 only when everything succeeded. Register
// the targets first (cli::RegisterAllTargets), so that their intrinsics parse.
int TileTranslateMain(int argc, char** argv, std::ostream& out, std::ostream& err);

}  // namespace tile_ir::tools

#endif  // TOOLS_TILE_TRANSLATE_TILE_TRANSLATE_MAIN_H_
