// The `target=NAME` option that target-dependent lowering passes share: its spec and the
// lookup of the target it names.
#ifndef PASSES_TARGET_OPTION_H_
#define PASSES_TARGET_OPTION_H_

#include <memory>
#include <string_view>

#include "absl/status/statusor.h"
#include "passes/pass.h"
#include "passes/target_info.h"

namespace tile_ir::passes {

// The spec of a string option `target` whose default, empty, names no target.
OptionSpec TargetOptionSpec();

// The registered target the `target` option of pass `pass_name` names: InvalidArgument
// when the option is empty ("pass 'p' needs a target: write p{target=NAME}"), NotFound
// listing the registered targets when none has that name.
absl::StatusOr<std::shared_ptr<const TargetInfo>> FindTargetOption(std::string_view pass_name,
                                                                   const PassOptions& options);

}  // namespace tile_ir::passes

#endif  // PASSES_TARGET_OPTION_H_
