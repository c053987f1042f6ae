// tile-opt as a library: read a module (.tile, .tilepb, .json or stdin), run a
// pass pipeline over it, write it in any form. The binary is a one-line main.
#ifndef TOOLS_TILE_OPT_TILE_OPT_MAIN_H_
#define TOOLS_TILE_OPT_TILE_OPT_MAIN_H_

#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "passes/pass/registry.h"
#include "passes/pass/target_info.h"

namespace tile_ir::tools {

// What `--target=NAME` gives a run: the TargetInfo the passes ask, the passes
// its pipelines resolve against (the generic ones and the target's own), and
// its default pipeline (run when --pass-pipeline is not given).
struct PipelineTarget {
  std::string name;  // canonical
  std::shared_ptr<const passes::TargetInfo> info;
  passes::PassRegistry passes;
  std::string default_pipeline;
};

struct TileOptTargets {
  std::function<absl::StatusOr<PipelineTarget>(std::string_view name)> resolve;
  // The accepted spellings, for --list-targets.
  std::string description;
  // The targets (family names) whose own passes include `pass`, for the hint on a pass that
  // is unknown without --target; empty where none does or the binary links no targets.
  std::function<std::vector<std::string>(std::string_view pass)> targets_with_pass;
};

// Returns the process exit status: 0 only when everything succeeded.
int TileOptMain(int argc, char** argv, std::istream& in, std::ostream& out, std::ostream& err,
                const TileOptTargets& targets);

}  // namespace tile_ir::tools

#endif  // TOOLS_TILE_OPT_TILE_OPT_MAIN_H_
