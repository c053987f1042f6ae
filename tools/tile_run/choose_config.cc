// tile-run OP's config without --config or --autotune (see choose_config.h).
#include "tools/tile_run/choose_config.h"

#include "absl/strings/str_cat.h"
#include "tools/tile_run/autotune_op.h"

namespace tile_ir::tools {

ChosenConfig ChooseConfig(const ops::OpCase& op, const ops::Shapes& dims, bool static_shapes,
                          runtime::jit::KernelCache* cache, const targets::Target& target) {
  const runtime::jit::ConfigSpace space = ToJitSpace(op.config_space);
  runtime::jit::Config own;
  for (const runtime::jit::TuningParam& param : space.params) own[param.name] = param.default_value;
  ChosenConfig chosen;
  if (cache != nullptr) {
    AutotuneRequest request;
    request.dims = dims;
    request.static_shapes = static_shapes;
    chosen.tuned = StoredTuningOp(*cache, op, request);
  }
  if (chosen.tuned) {
    chosen.config = chosen.tuned->best;
    chosen.why = absl::StrCat("tuned for these shapes on ", chosen.tuned->device, ", ",
                              chosen.tuned->date,
                              " (the cache's choice; --autotune shows the table, --retune with it "
                              "tunes again)");
  } else {
    chosen.config = runtime::jit::DefaultConfig(
        space, dims, PreferencesOf(op, target, dims, static_shapes), nullptr);
    chosen.why = "the default for these shapes (--explain says why)";
  }
  chosen.own = chosen.config == own;
  if (!chosen.own && !chosen.tuned) {
    absl::StrAppend(&chosen.why, ", not the operator's own ", ConfigName(op, own));
  }
  return chosen;
}

}  // namespace tile_ir::tools
