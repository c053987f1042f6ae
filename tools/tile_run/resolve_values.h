// tile-run's values stage: --shapes, --scalars and --in's files read against the kernel, the
// operator's values under them, and what the run needs (a value per dim, host memory, a config
// space and a cache for --autotune) checked before anything is compiled or allocated.
#ifndef TOOLS_TILE_RUN_RESOLVE_VALUES_H_
#define TOOLS_TILE_RUN_RESOLVE_VALUES_H_

#include <iosfwd>
#include <optional>
#include <vector>

#include "ops/op_suite.h"
#include "tools/tile_run/file_run.h"
#include "tools/tile_run/load_kernel.h"
#include "tools/tile_run/obtain_kernel.h"
#include "tools/tile_run/run_kernel.h"
#include "tools/tile_run/run_request.h"

namespace tile_ir::tools {

// Each returns kGoOn, or the exit status of the error it reported on `err`.

// --shapes and --scalars read against the kernel's dtypes into `options`, and --in's files into
// `files`; every value checked before anything is compiled or allocated.
int ResolveValues(const RunRequest& request, const LoadedInput& input, RunOptions& options,
                  std::optional<FileTensors>& files, std::ostream& err);

// The operator's shapes (or --ragged's) and scalars under the given ones; what a kernel without
// an operator cannot do refused.
int MergeOperatorValues(const RunRequest& request, const LoadedInput& input, RunOptions& options,
                        std::ostream& err);

// Every dim has a value, and the host memory the run needs is there.
int CheckRunnable(const RunRequest& request, const LoadedInput& input, const Compiler& compiler,
                  bool with_files, const RunOptions& options, std::ostream& err);

// --autotune needs a config space and a kernel cache.
int CheckTunable(const RunRequest& request, const LoadedInput& input, const Compiler& compiler,
                 const std::vector<ops::OpCase>& suite, std::ostream& err);

}  // namespace tile_ir::tools

#endif  // TOOLS_TILE_RUN_RESOLVE_VALUES_H_
