// tile-run --explain and the autotuner's per-candidate remarks (see explain_op.h).
#include "tools/tile_run/explain_op.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "frontends/cpp/builder.h"
#include "tools/tile_run/autotune_op.h"
#include "tools/tile_run/report.h"

namespace tile_ir::tools {

namespace {

// The remarks of lowering `module` for `target`.
absl::StatusOr<std::vector<std::string>> RemarksOfLowering(const absl::StatusOr<Module>& module,
                                                           const targets::Target& target) {
  if (!module.ok()) return module.status();
  std::vector<std::string> remarks;
  absl::StatusOr<Module> lowered = target.Lower(*module, "", &remarks);
  if (!lowered.ok()) return lowered.status();
  return remarks;
}

// "its lowering for T (shapes compiled in|dynamic shapes):" and the remarks, or its failure;
// whether the lowering succeeded.
bool PrintLoweringRemarks(const absl::StatusOr<std::vector<std::string>>& remarks,
                          bool static_shapes, const targets::Target& target, std::ostream& out) {
  if (!remarks.ok()) {
    out << "its lowering for " << target.ToString() << " fails: " << remarks.status().message()
        << "\n";
    return false;
  }
  out << "its lowering for " << target.ToString()
      << (static_shapes ? " (shapes compiled in)" : " (dynamic shapes)")
      << (remarks->empty() ? ": no remarks\n" : ":\n");
  for (const std::string& remark : *remarks) out << "  " << remark << "\n";
  return true;
}

}  // namespace

absl::StatusOr<std::vector<std::string>> LoweringRemarks(const ops::OpCase& op,
                                                         const runtime::jit::Config& config,
                                                         const ops::Shapes& dims,
                                                         bool static_shapes,
                                                         const targets::Target& target) {
  return RemarksOfLowering(static_shapes ? BuildSpecializedConfig(op, config, dims)
                                         : BuildClassedConfig(op, config, dims, *target.info()),
                           target);
}

bool Explain(const ops::OpCase& op, const ops::Shapes& dims, const std::vector<std::string>& order,
             bool static_shapes, const targets::Target& target, std::ostream& out,
             const runtime::jit::Config* given) {
  const bool async_copy = target.info()->has_async_copy();
  std::vector<std::string> lines;
  LoweringRemarksByConfig lowered;  // the candidates the default's heuristics lowered
  runtime::jit::Config config =
      given != nullptr ? *given
                       : runtime::jit::DefaultConfig(
                             ToJitSpace(op.config_space), dims,
                             PreferencesOf(op, target, dims, static_shapes, &lowered), &lines);
  out << (given != nullptr ? "config given with --config" : "default config") << " of " << op.name
      << " at " << FormatShapes(dims, order) << " on " << target.ToString() << " ("
      << (async_copy ? "asynchronous copies" : "no asynchronous copies")
      << "): " << ConfigName(op, config) << "\n";
  for (const std::string& line : lines) out << "  " << line << "\n";
  auto known = lowered.find(config);
  absl::StatusOr<std::vector<std::string>> remarks =
      known != lowered.end() ? absl::StatusOr<std::vector<std::string>>(known->second)
                             : LoweringRemarks(op, config, dims, static_shapes, target);
  return PrintLoweringRemarks(remarks, static_shapes, target, out);
}

bool ExplainAsWritten(const Kernel& kernel, const std::map<std::string, int64_t>& dims,
                      bool static_shapes, const targets::Target& target, const std::string& heading,
                      std::ostream& out) {
  out << heading << "\n";
  absl::StatusOr<RunSpecialization> run =
      SpecializeAsRun(kernel, dims, static_shapes, target.info().get());
  return PrintLoweringRemarks(
      RemarksOfLowering(run.ok() ? absl::StatusOr<Module>(dsl::MakeModule({run->kernel}))
                                 : absl::StatusOr<Module>(run.status()),
                        target),
      static_shapes, target, out);
}

std::string FormatCandidateRemarks(const ops::OpCase& op, const runtime::jit::TuningResult& result,
                                   const ops::Shapes& dims, bool static_shapes,
                                   const targets::Target& target) {
  std::string text;
  for (const runtime::jit::CandidateResult& candidate : result.candidates) {
    absl::StatusOr<std::vector<std::string>> remarks =
        LoweringRemarks(op, candidate.config, dims, static_shapes, target);
    if (!remarks.ok() || remarks->empty()) continue;
    for (const std::string& remark : *remarks) {
      absl::StrAppend(&text, "  ", ConfigName(op, candidate.config), ": ", remark, "\n");
    }
  }
  return text.empty() ? text
                      : absl::StrCat("lowering remarks of the candidates (", target.ToString(),
                                     "):\n", text);
}

}  // namespace tile_ir::tools
