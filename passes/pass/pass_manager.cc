// The pass manager: pipeline resolution, the run loop and its instruments.
#include "passes/pass/pass_manager.h"

#include <chrono>
#include <iostream>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "passes/pass/close_matches.h"
#include "passes/pass/reproducer.h"
#include "tile_ir/printer.h"
#include "tile_ir/verifier.h"

namespace tile_ir::passes {
namespace {

absl::Status UnknownPass(const PassRegistry& registry, std::string_view name) {
  std::vector<std::string> names = registry.Names();
  std::vector<std::string> matches = CloseMatches(name, names);
  std::string hint = matches.empty()
                         ? absl::StrCat(" (registered passes: ", absl::StrJoin(names, ", "), ")")
                         : DidYouMean(matches);
  return absl::InvalidArgumentError("unknown pass '" + std::string(name) + "'" + hint);
}

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

absl::StatusOr<PassManager> PassManager::Create(const PassRegistry& registry,
                                                std::string_view pipeline_text,
                                                PassManagerOptions options) {
  absl::StatusOr<Pipeline> pipeline = ParsePipeline(pipeline_text);
  if (!pipeline.ok()) return pipeline.status();
  std::vector<Step> steps;
  for (const PipelineStep& step : *pipeline) {
    const PassInfo* pass = registry.Find(step.pass);
    if (pass == nullptr) return UnknownPass(registry, step.pass);
    absl::StatusOr<PassOptions> pass_options =
        PassOptions::Create(pass->name, pass->options, step.options);
    if (!pass_options.ok()) return pass_options.status();
    if (pass->needs_target && options.target == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("pass '", pass->name,
                       "' lowers for a target; run the pipeline with one (tile-opt --target=NAME)"));
    }
    pass_options->set_target(options.target.get());
    pass_options->set_remarks(options.remarks);
    steps.push_back(Step{*pass, *std::move(pass_options)});
  }
  if (!options.print_ir_before.empty() && registry.Find(options.print_ir_before) == nullptr) {
    absl::Status unknown = UnknownPass(registry, options.print_ir_before);
    return absl::InvalidArgumentError(
        absl::StrCat("cannot print the IR before it: ", unknown.message()));
  }
  return PassManager(*std::move(pipeline), std::move(steps), std::move(options));
}

absl::Status PassManager::Run(Module& module) {
  if (options_.verify_each) {
    auto start = std::chrono::steady_clock::now();
    absl::Status valid = Verify(module);
    verify_seconds_ += SecondsSince(start);
    if (!valid.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("the input IR does not verify (before any pass ran):\n", valid.message()));
    }
  }
  for (size_t i = 0; i < steps_.size(); ++i) {
    Step& step = steps_[i];
    const std::string& name = step.pass.name;
    // Kernels are immutable shared nodes, so this copy is shallow and cheap.
    Module before = module;
    if (options_.print_ir_before == name) DumpIr(module, absl::StrCat("IR before ", name));

    auto start = std::chrono::steady_clock::now();
    absl::StatusOr<bool> changed = RunPass(step.pass, module, step.options);
    step.seconds += SecondsSince(start);
    if (!changed.ok()) {
      absl::Status error(changed.status().code(),
                         absl::StrCat("pass '", name, "' failed: ", changed.status().message()));
      return FailAt(i, before, std::move(error));
    }

    if (options_.verify_each) {
      start = std::chrono::steady_clock::now();
      absl::Status valid = Verify(module);
      verify_seconds_ += SecondsSince(start);
      if (!valid.ok()) {
        return FailAt(
            i, before,
            absl::InternalError(absl::StrCat(
                "pass '", name, "' produced IR that does not verify:\n", valid.message())));
      }
    }
    if (options_.print_ir_after_all || (options_.print_ir_after_change && *changed)) {
      DumpIr(module, absl::StrCat("IR after ", name, *changed ? " (changed)" : " (unchanged)"));
    }
  }
  return absl::OkStatus();
}

std::ostream& PassManager::dump() const {
  return options_.dump != nullptr ? *options_.dump : std::cerr;
}

void PassManager::DumpIr(const Module& module, std::string_view header) const {
  dump() << "// -----// " << header << " //----- //\n" << Print(module);
}

absl::Status PassManager::FailAt(size_t index, const Module& module_before,
                                 absl::Status error) const {
  if (options_.reproducer_path.empty()) return error;
  Pipeline remaining(pipeline_.begin() + index, pipeline_.end());
  absl::Status written =
      WriteReproducer(options_.reproducer_path, module_before, PrintPipeline(remaining),
                      options_.target != nullptr ? options_.target->name() : "");
  std::string note = written.ok() ? absl::StrCat("reproducer written to ", options_.reproducer_path)
                                  : std::string(written.message());
  return absl::Status(error.code(), absl::StrCat(error.message(), "\n", note));
}

std::string PassManager::TimingReport() const {
  if (!options_.timing) return "";
  double total = verify_seconds_;
  for (const Step& step : steps_) total += step.seconds;
  auto row = [total](double seconds, std::string_view what) {
    double share = total > 0 ? 100.0 * seconds / total : 0.0;
    return absl::StrFormat("  %13.6f  %6.1f%%  %s\n", seconds, share, std::string(what));
  };
  std::string report = "// ----- pass execution timing report ----- //\n";
  absl::StrAppend(&report, absl::StrFormat("  %13s  %7s  %s\n", "wall time (s)", "share", "pass"));
  for (const Step& step : steps_) absl::StrAppend(&report, row(step.seconds, step.pass.name));
  if (options_.verify_each) absl::StrAppend(&report, row(verify_seconds_, "(verifier)"));
  absl::StrAppend(&report, row(total, "total"));
  return report;
}

}  // namespace tile_ir::passes
