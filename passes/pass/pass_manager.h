// Runs a pipeline over a module with the instruments users debug passes with:
// verification after each pass, IR dumps, timing and crash reproducers.
#ifndef PASSES_PASS_PASS_MANAGER_H_
#define PASSES_PASS_PASS_MANAGER_H_

#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "passes/pass/pass.h"
#include "passes/pass/pass_pipeline.h"
#include "passes/pass/registry.h"
#include "passes/pass/target_info.h"
#include "tile_ir/module.h"

namespace tile_ir::passes {

struct PassManagerOptions {
  // The target the pipeline lowers for, given to every pass that needs one
  // (PassInfo::needs_target); null: a pipeline of target-independent passes.
  std::shared_ptr<const TargetInfo> target;
  // Run tile_ir::Verify on the input and after every pass.
  bool verify_each = true;
  // Dump the IR before each run of this pass (a registered pass name); empty = none.
  std::string print_ir_before;
  bool print_ir_after_all = false;
  // Dump the IR after a pass only when the pass says it changed it.
  bool print_ir_after_change = false;
  // Make TimingReport() report the wall time of each pass and of verification.
  bool timing = false;
  // Where to write a reproducer when a pass fails or breaks the IR; empty = none.
  std::string reproducer_path;
  // Where IR dumps and timing go (std::cerr if null). Not owned.
  std::ostream* dump = nullptr;
  // Where passes' remarks go (PassOptions::Remark), each "pass: text"; null = dropped. Not owned.
  std::vector<std::string>* remarks = nullptr;
};

class PassManager {
 public:
  // Resolves every step against the registry and checks its options. Errors
  // name what is wrong and suggest close matches:
  //   unknown pass 'simplfy'; did you mean 'simplify'?
  //   unknown option 'max-iter' of pass 'simplify'; did you mean 'max-iterations'?
  //   option 'max-iterations' of pass 'simplify' expects an integer, got 'abc'
  // A pass that needs a target without options.target:
  //   pass 'lower-tile-ops' lowers for a target; run the pipeline with one (tile-opt --target=NAME)
  // The passes are copied, so the registry need not outlive the manager.
  static absl::StatusOr<PassManager> Create(const PassRegistry& registry,
                                            std::string_view pipeline_text,
                                            PassManagerOptions options);

  // Runs the steps in order, in place. A dump starts with a header line,
  //   // -----// IR before simplify //----- //
  //   // -----// IR after simplify (changed) //----- //     (or "(unchanged)")
  // followed by the printed module. Errors say which pass failed, or which
  // pass left IR that does not verify, and where the reproducer was written.
  // On error the module is left as the failing pass left it.
  absl::Status Run(Module& module);

  // With options.timing: wall time per pipeline step, with the verifier's time
  // and the total, each with its share of the total, accumulated over every
  // Run so far. Empty without options.timing.
  std::string TimingReport() const;

  const Pipeline& pipeline() const { return pipeline_; }

 private:
  struct Step {
    PassInfo pass;
    PassOptions options;
    double seconds = 0;
  };

  PassManager(Pipeline pipeline, std::vector<Step> steps, PassManagerOptions options)
      : pipeline_(std::move(pipeline)), steps_(std::move(steps)), options_(std::move(options)) {}

  std::ostream& dump() const;
  void DumpIr(const Module& module, std::string_view header) const;
  // Writes the reproducer for a failure at step `index` (when asked to) and
  // returns `error` with where it went, or why it could not be written.
  absl::Status FailAt(size_t index, const Module& module_before, absl::Status error) const;

  Pipeline pipeline_;
  std::vector<Step> steps_;
  PassManagerOptions options_;
  double verify_seconds_ = 0;
};

}  // namespace tile_ir::passes

#endif  // PASSES_PASS_PASS_MANAGER_H_
