// tile-translate as a library: read a module, lower it with a target's
// pipeline and print the source that target would compile (CUDA C++ for
// cuda:<arch>, LLVM IR for cpu), or the thread-level IR it comes from. The
// binary is a one-line main.
#ifndef TOOLS_TILE_TRANSLATE_TILE_TRANSLATE_MAIN_H_
#define TOOLS_TILE_TRANSLATE_TILE_TRANSLATE_MAIN_H_

#include <iosfwd>

#include "targets/target_registry.h"

namespace tile_ir::tools {

// Returns the process exit status: 0 only when everything succeeded. The
// target is resolved against `targets` (whose families' intrinsics are known
// by then, so thread-level input that names them parses).
int TileTranslateMain(int argc, char** argv, std::ostream& out, std::ostream& err,
                      const targets::TargetRegistry& targets);

}  // namespace tile_ir::tools

#endif  // TOOLS_TILE_TRANSLATE_TILE_TRANSLATE_MAIN_H_
