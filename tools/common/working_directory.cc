#include "tools/common/working_directory.h"

#include <unistd.h>

#include <cstdlib>

namespace tile_ir::cli {

void EnterUserWorkingDirectory() {
  if (const char* dir = std::getenv("BUILD_WORKING_DIRECTORY"); dir != nullptr && *dir != '\0') {
    // A failure leaves the runfiles directory current; the tool then reports
    // any relative input it cannot open, naming the path.
    (void)chdir(dir);
  }
}

}  // namespace tile_ir::cli
