// tile-run's command line: flags, reading the module, picking the kernel and
// its operator entry, and printing the run's report.
#include "tools/tile_run/tile_run_main.h"

#include <chrono>
#include <map>
#include <ostream>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "frontends/io/module_io.h"
#include "tile_ir/verifier.h"
#include "tools/common/cli.h"
#include "tools/tile_run/dump_artifacts.h"
#include "tools/tile_run/report.h"
#include "tools/tile_run/run_kernel.h"
#include "tools/tile_run/suite_runner.h"

namespace tile_ir::tools {
namespace {

cli::ArgParser MakeParser() {
  cli::ArgParser parser(
      "tile-run", "[options] FILE | --all | --list",
      "Runs a kernel of FILE (.tile, .tilepb or .json) on a device with seeded random inputs,\n"
      "poisoned outputs and, with --check, compares every output with the float64 reference\n"
      "of the operator-suite entry named like the kernel.\n"
      "Example: tile-run gemm_f16.tile --shapes M=1000,N=777,K=333 --check --bench");
  parser.Add({"target", "TARGET", "device to run on", "cpu"});
  parser.Add({"kernel", "NAME", "the kernel to run (needed when FILE has several)"});
  parser.Add({"shapes", "DIMS", "dimension values, e.g. M=1000,N=777 (default: the operator's)"});
  parser.Add({"scalars", "VALUES",
              "scalar parameter values, e.g. alpha=0.5 (default: the "
              "operator's)"});
  parser.Add({"seed", "N", "seed of the random inputs (default: from the clock, printed)"});
  parser.Add({"check", "", "compare the outputs with the reference; exit 1 unless all pass"});
  parser.Add({"bench", "", "time --iters launches after --warmup ones; report the median"});
  parser.Add({"iters", "N", "timed launches for --bench", "20"});
  parser.Add({"warmup", "N", "untimed launches before --bench times", "3"});
  parser.Add({"ragged", "", "use the operator's ragged shapes (not multiples of its tiles)"});
  parser.Add({"all", "", "check every operator of the suite and print a table"});
  parser.Add({"list", "", "print the operator suite"});
  parser.Add({"dump-cubin", "DIR",
              "write each compiled kernel's device code to DIR as <kernel>.cu, .ptx and "
              ".cubin (cuda)"});
  parser.Add({"help", "", "show this help"});
  return parser;
}

// "M=1000,N=777" into name -> value; `parse` reads one value.
template <typename T, typename Parse>
absl::StatusOr<std::map<std::string, T>> ParseAssignments(const std::string& flag,
                                                          const std::string& text, Parse parse) {
  std::map<std::string, T> values;
  for (absl::string_view item : absl::StrSplit(text, ',', absl::SkipEmpty())) {
    std::vector<std::string> parts = absl::StrSplit(item, absl::MaxSplits('=', 1));
    T value;
    if (parts.size() != 2 || parts[0].empty() || !parse(parts[1], &value)) {
      return absl::InvalidArgumentError(
          absl::StrCat("--", flag, ": expected NAME=VALUE, got '", item, "'"));
    }
    values[parts[0]] = value;
  }
  return values;
}

bool ParseInt64(const std::string& text, int64_t* value) { return absl::SimpleAtoi(text, value); }
bool ParseDouble(const std::string& text, double* value) { return absl::SimpleAtod(text, value); }

absl::StatusOr<int> PositiveCount(const cli::ArgParser& parser, const std::string& flag,
                                  int minimum) {
  int value = 0;
  if (!absl::SimpleAtoi(parser.Get(flag), &value) || value < minimum) {
    return absl::InvalidArgumentError(absl::StrCat("--", flag, " must be an integer >= ", minimum,
                                                   ", got '", parser.Get(flag), "'"));
  }
  return value;
}

const ops::OpCase* FindOp(const std::vector<ops::OpCase>& suite, const std::string& name) {
  for (const ops::OpCase& op : suite) {
    if (op.name == name) return &op;
  }
  return nullptr;
}

absl::StatusOr<const KernelNode*> PickKernel(const Module& module, const std::string& path,
                                             const cli::ArgParser& parser) {
  std::vector<std::string> names;
  for (const Kernel& kernel : module.kernels) names.push_back(kernel->name);
  if (parser.Has("kernel")) {
    for (const Kernel& kernel : module.kernels) {
      if (kernel->name == parser.Get("kernel")) return kernel.get();
    }
    return absl::NotFoundError(absl::StrCat(path, ": no kernel named '", parser.Get("kernel"),
                                            "' (kernels: ", absl::StrJoin(names, ", "), ")"));
  }
  if (module.kernels.size() != 1) {
    return absl::InvalidArgumentError(module.kernels.empty()
                                          ? absl::StrCat(path, ": the module has no kernel")
                                          : absl::StrCat(path, ": the module has ", names.size(),
                                                         " kernels (", absl::StrJoin(names, ", "),
                                                         "); choose one with --kernel"));
  }
  return module.kernels.front().get();
}

// Runs one kernel of a module file; returns the exit status.
int RunFile(const cli::ArgParser& parser, const RunOptions& base, runtime::Device& device,
            const std::vector<ops::OpCase>& suite, std::ostream& out, std::ostream& err) {
  const std::string path = parser.positional().front();
  absl::StatusOr<Module> module = io::ReadModuleFile(path);
  if (!module.ok()) {
    err << "tile-run: error: " << module.status().message() << "\n";
    return 1;
  }
  if (absl::Status status = Verify(*module); !status.ok()) {
    err << "tile-run: error: " << path << ": invalid input IR:\n" << status.message() << "\n";
    return 1;
  }
  absl::StatusOr<const KernelNode*> kernel = PickKernel(*module, path, parser);
  if (!kernel.ok()) {
    err << "tile-run: error: " << kernel.status().message() << "\n";
    return 2;
  }
  const std::string& name = (*kernel)->name;
  const ops::OpCase* op = FindOp(suite, name);
  RunOptions options = base;
  if (op == nullptr) {
    if (options.check) {
      err << "tile-run: error: no reference for kernel '" << name
          << "': --check needs an operator-suite entry (see --list)\n";
      return 2;
    }
    if (parser.Has("ragged")) {
      err << "tile-run: error: kernel '" << name
          << "' has no operator-suite entry, so no ragged shapes; give --shapes\n";
      return 2;
    }
  } else {
    if (parser.Has("ragged") && op->ragged_shapes.empty()) {
      err << "tile-run: error: operator '" << name << "' has no ragged shapes\n";
      return 2;
    }
    ops::Shapes dims = parser.Has("ragged") ? op->ragged_shapes : op->default_shapes;
    for (const auto& [dim, value] : options.dims) dims[dim] = value;  // --shapes wins
    options.dims = dims;
    std::map<std::string, double> scalars = op->scalars;
    for (const auto& [scalar, value] : options.scalars) scalars[scalar] = value;
    options.scalars = scalars;
  }
  std::vector<std::string> order;
  for (const VarRef& dim : (*kernel)->dims) {
    order.push_back(dim->name);
    if (!options.dims.contains(dim->name)) {
      err << "tile-run: error: no value for dimension '" << dim->name << "' of kernel '" << name
          << "'" << (op ? "" : " (it is not in the operator suite)") << "; give it with --shapes "
          << dim->name << "=N\n";
      return 2;
    }
  }

  absl::StatusOr<std::unique_ptr<runtime::LoadedKernel>> loaded = device.Load(*module, name);
  if (!loaded.ok()) {
    err << "tile-run: error: " << path << ": " << loaded.status().message() << "\n";
    return 1;
  }
  if (parser.Has("dump-cubin")) {
    absl::Status dumped = DumpArtifacts(**loaded, device.name(), parser.Get("dump-cubin"));
    if (!dumped.ok()) {
      err << "tile-run: error: " << dumped.message() << "\n";
      return 1;
    }
  }
  out << "kernel " << name << " from " << path << " on " << device.description() << "\n"
      << "  shapes  " << FormatShapes(options.dims, order) << "\n"
      << "  seed    " << options.seed << "\n";
  absl::StatusOr<RunResult> result = RunKernel(device, **loaded, op, options);
  if (!result.ok()) {
    err << "tile-run: error: " << path << ": " << result.status().message() << "\n";
    return 1;
  }
  out << "  launch  " << FormatSeconds(result->launch_seconds) << "\n";
  for (const OutputCheck& check : result->checks) out << "  check   " << FormatCheck(check) << "\n";
  if (result->median_seconds) out << "  bench   " << FormatBench(*result, options.iters) << "\n";
  if (!options.check) {
    out << "ran (outputs not checked" << (op ? "; --check compares them" : "") << ")\n";
    return 0;
  }
  out << (result->passed() ? "PASS" : "FAIL") << " (rerun with --seed=" << options.seed << ")\n";
  return result->passed() ? 0 : 1;
}

}  // namespace

int TileRunMain(int argc, char** argv, std::ostream& out, std::ostream& err,
                const TileRunEnvironment& env) {
  static const std::vector<ops::OpCase> kNoOperators;
  const std::vector<ops::OpCase>& suite = env.suite ? *env.suite : kNoOperators;
  cli::ArgParser parser = MakeParser();
  if (absl::Status status = parser.Parse(argc, argv); !status.ok()) {
    err << "tile-run: error: " << status.message() << "\n";
    return 2;
  }
  if (parser.Has("help")) {
    out << parser.Help();
    return 0;
  }
  if (parser.Has("list")) {
    out << ListOperators(suite);
    return 0;
  }

  RunOptions options;
  options.check = parser.Has("check");
  options.bench = parser.Has("bench");
  absl::StatusOr<int> iters = PositiveCount(parser, "iters", 1);
  absl::StatusOr<int> warmup = PositiveCount(parser, "warmup", 0);
  absl::StatusOr<std::map<std::string, int64_t>> dims =
      ParseAssignments<int64_t>("shapes", parser.Get("shapes"), ParseInt64);
  absl::StatusOr<std::map<std::string, double>> scalars =
      ParseAssignments<double>("scalars", parser.Get("scalars"), ParseDouble);
  for (const absl::Status& status :
       {iters.status(), warmup.status(), dims.status(), scalars.status()}) {
    if (!status.ok()) {
      err << "tile-run: error: " << status.message() << "\n";
      return 2;
    }
  }
  options.iters = *iters;
  options.warmup = *warmup;
  options.dims = *dims;
  options.scalars = *scalars;
  if (parser.Has("seed")) {
    if (!absl::SimpleAtoi(parser.Get("seed"), &options.seed)) {
      err << "tile-run: error: --seed must be a non-negative integer, got '" << parser.Get("seed")
          << "'\n";
      return 2;
    }
  } else {
    // Small enough to retype from the report.
    options.seed = static_cast<uint64_t>(
        std::chrono::system_clock::now().time_since_epoch().count() % 1000000000);
  }

  if (parser.Has("dump-cubin") && parser.Get("dump-cubin").empty()) {
    err << "tile-run: error: --dump-cubin needs a folder\n";
    return 2;
  }
  const bool all = parser.Has("all");
  if (all && (!parser.positional().empty() || parser.Has("kernel") || parser.Has("shapes") ||
              parser.Has("scalars"))) {
    err << "tile-run: error: --all runs every operator at its own shapes; it takes no FILE, "
           "--kernel, --shapes or --scalars\n";
    return 2;
  }
  if (!all && parser.positional().size() != 1) {
    err << "tile-run: error: expected exactly one FILE (or --all, or --list); see --help\n";
    return 2;
  }

  const std::string target = parser.Get("target");
  if (!env.open_device) {
    err << "tile-run: error: --target=" << target << ": no devices are available\n";
    return 1;
  }
  absl::StatusOr<std::unique_ptr<runtime::Device>> device = env.open_device(target);
  if (!device.ok()) {
    err << "tile-run: error: --target=" << target << ": " << device.status().message() << "\n";
    return 1;
  }
  if (all) {
    SuiteRunOptions suite_options;
    suite_options.seed = options.seed;
    suite_options.ragged = parser.Has("ragged");
    suite_options.bench = options.bench;
    suite_options.warmup = options.warmup;
    suite_options.iters = options.iters;
    suite_options.dump_dir = parser.Get("dump-cubin");
    return RunSuite(suite, **device, suite_options, out, err) ? 0 : 1;
  }
  return RunFile(parser, options, **device, suite, out, err);
}

}  // namespace tile_ir::tools
