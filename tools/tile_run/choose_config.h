// The config `tile-run OP` runs an operator of the suite at when neither --config nor
// --autotune names one: the choice a tuning stored in the kernel cache for these shapes on
// this backend, else the default heuristics' for the shapes (runtime/jit/autotuner.h's
// DefaultConfig, what --explain explains), which is the operator's own config unless a
// dimension is smaller than its tile.
#ifndef TOOLS_TILE_RUN_CHOOSE_CONFIG_H_
#define TOOLS_TILE_RUN_CHOOSE_CONFIG_H_

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "ops/op_suite.h"
#include "runtime/jit/autotuner.h"
#include "runtime/jit/kernel_cache.h"
#include "targets/target.h"
#include "tile_ir/module.h"

namespace tile_ir::tools {

struct ChosenConfig {
  runtime::jit::Config config;
  bool own = true;                                  // the operator's own config
  std::optional<runtime::jit::TuningResult> tuned;  // when the cache's choice
  std::string why;                                  // one line, for the report
};

// The config for `op` at `dims` (compiled in when `static_shapes`) on `target`; `cache` may
// be null (no stored choice is looked for then).
ChosenConfig ChooseConfig(const ops::OpCase& op, const ops::Shapes& dims, bool static_shapes,
                          runtime::jit::KernelCache* cache, const targets::Target& target);

}  // namespace tile_ir::tools

#endif  // TOOLS_TILE_RUN_CHOOSE_CONFIG_H_
