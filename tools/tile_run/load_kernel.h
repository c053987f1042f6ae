// tile-run's load stage: the module read from FILE (or the suite's operator of that name built),
// verified, its kernel picked, and matched to the suite's operator of the kernel's name.
#ifndef TOOLS_TILE_RUN_LOAD_KERNEL_H_
#define TOOLS_TILE_RUN_LOAD_KERNEL_H_

#include <iosfwd>
#include <string>
#include <vector>

#include "ops/op_suite.h"
#include "tile_ir/module.h"
#include "tools/tile_run/run_request.h"

namespace tile_ir::tools {

// A run's kernel, read once: from FILE, or built from the operator of that name.
struct LoadedInput {
  Module module;
  Kernel kernel;  // kept alive when --config or --autotune replace the module
  std::string name;
  // The suite's operator of the kernel's name (none with --in/--out/--expect), and its own
  // kernel, built once (the kernel read, when it came from the suite).
  const ops::OpCase* op = nullptr;
  Kernel suite_kernel;
  // Read from a file, which then runs as written: a config (the default for the shapes, a
  // stored tuning) replaces it only when --config or --autotune asks.
  bool from_file = false;
};

// Stage 2: the module read (FILE when it exists, else the operator of that name), verified, and
// its kernel picked (--kernel, or the only one). kGoOn, or the exit status of the error reported.
int LoadKernel(const RunRequest& request, const std::vector<ops::OpCase>& suite, LoadedInput& input,
               std::ostream& err);

// The suite's operator of the kernel's name: its reference, shapes and inputs go by its
// signature, which the kernel must share. Built here only when the kernel came from a file.
int MatchOperator(const RunRequest& request, const std::vector<ops::OpCase>& suite,
                  LoadedInput& input, std::ostream& err);

// Whether the kernel read is the suite's own kernel of its operator (a file may hold a changed
// copy of it, which a config of the suite's would silently replace).
bool IsSuiteKernel(const LoadedInput& input);

}  // namespace tile_ir::tools

#endif  // TOOLS_TILE_RUN_LOAD_KERNEL_H_
