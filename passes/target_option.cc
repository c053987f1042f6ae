// Resolves a pass's `target` option against the target registry.
#include "passes/target_option.h"

#include <string>

#include "absl/strings/str_cat.h"

namespace tile_ir::passes {

OptionSpec TargetOptionSpec() {
  return {"target", OptionType::kString, "", "the registered target to lower for (e.g. cpu)"};
}

absl::StatusOr<std::shared_ptr<const TargetInfo>> FindTargetOption(std::string_view pass_name,
                                                                   const PassOptions& options) {
  const std::string& name = options.GetString("target");
  if (name.empty()) {
    std::string pass(pass_name);
    return absl::InvalidArgumentError(
        absl::StrCat("pass '", pass, "' needs a target: write ", pass, "{target=NAME}"));
  }
  return FindTarget(name);
}

}  // namespace tile_ir::passes
