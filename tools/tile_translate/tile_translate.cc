// tile-translate: prints the source a target generates for a module (see --help).
#include <iostream>

#include "targets/target_registry.h"
#include "tools/common/working_directory.h"
#include "tools/tile_translate/tile_translate_main.h"

int main(int argc, char** argv) {
  tile_ir::cli::EnterUserWorkingDirectory();
  return tile_ir::tools::TileTranslateMain(argc, argv, std::cout, std::cerr,
                                           tile_ir::targets::LinkedTargets());
}
