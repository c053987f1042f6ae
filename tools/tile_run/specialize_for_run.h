// tile-run's plan stage: each kernel of the run's name as a run compiles it, through the one
// specialization plan (runtime/jit/specialization_plan.h).
#ifndef TOOLS_TILE_RUN_SPECIALIZE_FOR_RUN_H_
#define TOOLS_TILE_RUN_SPECIALIZE_FOR_RUN_H_

#include <iosfwd>
#include <string>

#include "tile_ir/module.h"
#include "tools/tile_run/obtain_kernel.h"
#include "tools/tile_run/run_kernel.h"
#include "tools/tile_run/run_request.h"

namespace tile_ir::tools {

// Stage 5, the plan: replaces each kernel of `module` named `name` by its specialization for
// `options.dims`, saying on `out` which dims are compiled in and which classes required, and adds
// the dims compiled in to `options.specialized_dims`. kGoOn, or 2 after an error on `err`.
int SpecializeForRun(const RunRequest& request, const Compiler& compiler, const std::string& name,
                     Module& module, RunOptions& options, std::ostream& out, std::ostream& err);

}  // namespace tile_ir::tools

#endif  // TOOLS_TILE_RUN_SPECIALIZE_FOR_RUN_H_
