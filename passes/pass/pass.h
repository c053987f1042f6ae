// What a pass is to the pass manager: a plain function over a module plus a
// name, a one-line description and typed options (docs: ARCHITECTURE.md, Passes).
#ifndef PASSES_PASS_PASS_H_
#define PASSES_PASS_PASS_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "tile_ir/module.h"

namespace tile_ir::passes {

class TargetInfo;

enum class OptionType { kInt, kBool, kString };

// "integer", "boolean" or "string", as error messages and --list-passes say it.
std::string_view OptionTypeName(OptionType type);

struct OptionSpec {
  std::string name;  // kebab-case
  OptionType type;
  std::string default_value;  // in the pipeline spelling: "4", "true", "cuda"
  std::string description;
};

// Checks that `value` spells a value of `type`: a decimal integer (optionally
// signed) that fits in 64 bits, `true` or `false`, or any string.
absl::Status CheckOptionValue(OptionType type, std::string_view value);

// The option values of one pipeline step, every declared option present
// (defaults filled in) and already checked against its spec, so a pass reads
// them without error handling. Asking for an option the pass did not declare,
// or with the wrong type, is a bug in the pass and aborts with a message.
class PassOptions {
 public:
  PassOptions() = default;

  // Validates `values` (name, value) against `specs`: an unknown name gives
  // "unknown option 'x' of pass 'p'; did you mean 'y'?", a value of the wrong
  // type "option 'x' of pass 'p' expects an integer, got 'abc'".
  static absl::StatusOr<PassOptions> Create(
      std::string_view pass_name, const std::vector<OptionSpec>& specs,
      const std::vector<std::pair<std::string, std::string>>& values);

  int64_t GetInt(std::string_view name) const;
  bool GetBool(std::string_view name) const;
  const std::string& GetString(std::string_view name) const;

  // The target the pipeline runs for (PassManagerOptions::target): given once
  // per run, never spelled in the pipeline. target() is for passes with
  // PassInfo::needs_target, which the pass manager refuses to run without one.
  const TargetInfo& target() const;
  const TargetInfo* target_or_null() const { return target_; }
  void set_target(const TargetInfo* target) { target_ = target; }

  // Remarks: what a pass did that costs the kernel and that the user may want to change (a
  // fragment read by threads that do not hold it going through shared memory). A pass says
  // them with Remark(); they are kept only where the run asked for them
  // (PassManagerOptions::remarks, tile-opt and tile-translate --remarks).
  void Remark(std::string text) const {
    if (remarks_ != nullptr) remarks_->push_back(std::move(text));
  }
  void set_remarks(std::vector<std::string>* remarks) { remarks_ = remarks; }
  std::vector<std::string>* remarks() const { return remarks_; }

 private:
  struct Value {
    OptionType type;
    std::string text;
  };
  const Value& Lookup(std::string_view name, OptionType type) const;

  std::map<std::string, Value, std::less<>> values_;
  const TargetInfo* target_ = nullptr;
  std::vector<std::string>* remarks_ = nullptr;
};

// Runs over the whole module in place; returns whether it changed anything, or an error.
using PassFn = std::function<absl::StatusOr<bool>(Module& module, const PassOptions& options)>;

// One kernel's rewrite: the new kernel, or the kernel itself (the same node) when nothing
// changed, or an error.
using KernelRewrite = std::function<absl::StatusOr<Kernel>(const Kernel& kernel)>;

// A kernel pass (TVM's PrimFuncPass, MLIR's OperationPass<FuncOp>): given the run's options,
// checked here once per run, the rewrite that is mapped over every kernel of the module.
using KernelPassFn = std::function<absl::StatusOr<KernelRewrite>(const PassOptions& options)>;

struct PassInfo {
  std::string name;         // kebab-case; also the file stem and the golden-test folder
  std::string description;  // one line
  std::vector<OptionSpec> options;
  // Whether the pass lowers for a target (asks options.target()).
  bool needs_target = false;
  // Exactly one of the two: run_kernel, the usual form, for a pass that rewrites each kernel
  // on its own; run for one that needs the whole module at once.
  KernelPassFn run_kernel;
  PassFn run;
};

// The usual kernel pass: `rewrite(kernel, options)` on every kernel.
KernelPassFn EachKernel(
    std::function<absl::StatusOr<Kernel>(const Kernel& kernel, const PassOptions& options)>
        rewrite);

// Replaces each kernel of `module`, in order, by `rewrite`'s result; whether any kernel
// changed (became another node). At the first error it stops and returns it, the kernels
// before replaced.
absl::StatusOr<bool> MapKernels(Module& module, const KernelRewrite& rewrite);

// Runs `pass` over `module` in place, whichever form it has; whether it changed anything.
absl::StatusOr<bool> RunPass(const PassInfo& pass, Module& module, const PassOptions& options);

}  // namespace tile_ir::passes

#endif  // PASSES_PASS_PASS_H_
