#include "fuzz/target_pipeline_check.h"

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "fuzz/fuzz_checks.h"
#include "tile_ir/printer.h"
#include "tile_ir/verifier.h"

namespace tile_ir::fuzz {
namespace {

// Other codes are refusals (what the target does not support, limits it
// names); kInternal is what the compiler reserves for its own bugs.
void FailOnInternal(const std::string& step, const absl::Status& status, const Module& input) {
  if (status.code() != absl::StatusCode::kInternal) return;
  Fail(step + " failed with an internal error on verified input",
       std::string(status.message()) + "\n--- input:\n" + Print(input));
}

}  // namespace

void CheckTargetPipeline(const targets::Target& target, const Module& module) {
  const std::string name = target.ToString();
  absl::StatusOr<Module> lowered = target.Lower(module);
  if (!lowered.ok()) {
    FailOnInternal(name + "'s pipeline", lowered.status(), module);
    return;
  }
  if (absl::Status valid = Verify(*lowered); !valid.ok()) {
    Fail(name + "'s pipeline produced IR that does not verify",
         std::string(valid.message()) + "\n--- input:\n" + Print(module));
  }
  absl::StatusOr<std::string> source = target.Emit(*lowered, {});
  if (!source.ok()) FailOnInternal(name + "'s code generator", source.status(), module);
}

}  // namespace tile_ir::fuzz
