// tile-run's config stage: the module a run compiles (--config's config, a tuning stored for these
// shapes, the operator's default, or --autotune's choice), and --explain's account of it.
#ifndef TOOLS_TILE_RUN_CHOOSE_MODULE_H_
#define TOOLS_TILE_RUN_CHOOSE_MODULE_H_

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "ops/op_suite.h"
#include "runtime/jit/autotuner.h"
#include "tile_ir/module.h"
#include "tools/tile_run/load_kernel.h"
#include "tools/tile_run/obtain_kernel.h"
#include "tools/tile_run/run_kernel.h"
#include "tools/tile_run/run_request.h"

namespace tile_ir::tools {

// Each returns kGoOn, or the exit status of what it reported.

// Stage 4, the config: --config's, else the one --explain explains or a tuning stored for these
// shapes; `input.module` replaced by its build where it is not the operator's own. `given`
// receives --config's.
int ChooseModule(const RunRequest& request, LoadedInput& input, Compiler& compiler,
                 const RunOptions& options, std::optional<runtime::jit::Config>& given,
                 std::ostream& out, std::ostream& err);

// --explain: the config's why and the lowering's remarks (or, for a kernel without a config space,
// that it runs as written). Explaining only (no device), it ends the run.
int ExplainRun(const RunRequest& request, const LoadedInput& input, const Compiler& compiler,
               const RunOptions& options, const std::vector<std::string>& order,
               const std::optional<runtime::jit::Config>& given, std::ostream& out,
               std::ostream& err);

// --autotune: tunes `op`, prints the candidates, and replaces `module` by the best config's.
int Autotune(const RunRequest& request, const ops::OpCase& op, const RunOptions& options,
             const std::vector<std::string>& order, Compiler& compiler, Module& module,
             std::ostream& out, std::ostream& err, bool progress_bar);

}  // namespace tile_ir::tools

#endif  // TOOLS_TILE_RUN_CHOOSE_MODULE_H_
