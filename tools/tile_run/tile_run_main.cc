// tile-run's command line: flags, reading the module (or building an
// operator's), picking the kernel and its operator entry, compiling it through
// the kernel cache (autotuned on request), and printing the run's report.
#include "tools/tile_run/tile_run_main.h"

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <ostream>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "frontends/cpp/builder.h"
#include "frontends/io/module_io.h"
#include "ops/op_tensors.h"
#include "passes/pass/target_info.h"
#include "runtime/jit/autotuner.h"
#include "runtime/jit/kernel_cache.h"
#include "tile_ir/printer.h"
#include "tile_ir/verifier.h"
#include "tools/common/assignments.h"
#include "tools/common/cli.h"
#include "tools/tile_run/autotune_op.h"
#include "tools/tile_run/choose_config.h"
#include "tools/tile_run/dump_artifacts.h"
#include "tools/tile_run/explain_op.h"
#include "tools/tile_run/file_run.h"
#include "tools/tile_run/report.h"
#include "tools/tile_run/run_kernel.h"
#include "tools/tile_run/run_values.h"
#include "tools/tile_run/signature.h"
#include "tools/tile_run/suite_runner.h"

namespace tile_ir::tools {
namespace {

cli::ArgParser MakeParser() {
  cli::ArgParser parser(
      "tile-run", "[options] FILE | OP | --all | --list",
      "Runs a kernel of FILE (.tile, .tilepb or .json), or the operator OP of the suite, on a\n"
      "device with seeded random inputs, poisoned outputs and, with --check, compares every\n"
      "output with the float64 reference of the operator-suite entry named like the kernel.\n"
      "A kernel is matched to its operator by name, then its signature is checked: the\n"
      "parameter names and order, dtypes, ranks, shape expressions and dimensions must be the\n"
      "operator's (--list prints each), else tile-run refuses naming the difference; a kernel\n"
      "named like no operator runs with --shapes but cannot be checked.\n"
      "--check runs the kernel twice, on standard normal inputs and on the operator's own\n"
      "input ranges (integer inputs keep theirs), and reports both; one --seed replays both.\n"
      "Kernels compile through the JIT's kernel cache, so a second run loads the binary.\n"
      "--in/--out/--expect run any kernel on your own .npy arrays instead: no suite entry,\n"
      "no random inputs; buffers without --in start poisoned (NaN).\n"
      "Example: tile-run gemm_f16.tile --shapes M=1000,N=777,K=333 --check --bench\n"
      "         tile-run my.tile --in A=a.npy --in B=b.npy --expect C=c.npy --out C=got.npy\n"
      "         tile-run gemm_f16 --autotune --shapes M=4096,N=4096,K=4096 --target=cuda");
  parser.Add({"target", "TARGET", "device to run on", "cpu"});
  parser.Add({"kernel", "NAME", "the kernel to run (needed when FILE has several)"});
  parser.Add({"shapes", "DIMS", "dimension values, e.g. M=1000,N=777 (default: the operator's)"});
  parser.Add({"scalars", "VALUES",
              "scalar parameter values, e.g. alpha=0.5; an integer parameter's passed exactly, "
              "within its dtype (default: the operator's)"});
  parser.Add({"in", "NAME=FILE",
              "an input from a .npy file (repeatable); dimensions are bound from the arrays' "
              "shapes, dtypes checked against the signature"});
  parser.Add({"out", "NAME=FILE", "write an output to a .npy file after the run (repeatable)"});
  parser.Add({"expect", "NAME=FILE",
              "compare an output with a .npy file of any numeric dtype (repeatable); exit 1 "
              "unless every element is within --atol + --rtol * |expected|"});
  parser.Add({"rtol", "X", "relative tolerance of --expect (default: by the output's dtype)"});
  parser.Add({"atol", "X", "absolute tolerance of --expect (default: by the output's dtype)"});
  parser.Add({"seed", "N", "seed of the random inputs (default: from the clock, printed)"});
  parser.Add({"check", "",
              "compare the outputs with the reference for both input cases; exit 1 unless all "
              "pass"});
  parser.Add({"bench", "",
              "time --iters launches after --warmup ones; report the median (on a GPU each "
              "launch is timed by events behind a write of twice the L2, as "
              "triton.testing.do_bench times its calls)"});
  parser.Add({"iters", "N", "timed launches for --bench", "20"});
  parser.Add({"warmup", "N", "untimed launches before --bench times", "3"});
  parser.Add({"ragged", "", "use the operator's ragged shapes (not multiples of its tiles)"});
  parser.Add({"static-shapes", "",
              "compile for this run's shapes as constants (specialize-dims): no bound checks "
              "where they are proved, aligned vector and asynchronous copies; the binary then "
              "serves only these shapes"});
  parser.Add({"all", "", "check every operator of the suite and print a table"});
  parser.Add({"list", "",
              "print the operator suite: each operator's signature, shapes, scalars and inputs"});
  parser.Add({"dump-cubin", "DIR",
              "write each compiled kernel's device code to DIR as <kernel>.cu, .ptx and "
              ".cubin (cuda); compiles afresh, bypassing the cache"});
  parser.Add({"cache-dir", "DIR",
              "the kernel cache's folder (default: $TILE_CACHE_DIR, else $XDG_CACHE_HOME/tile, "
              "else ~/.cache/tile; TILE_DISABLE_CACHE=1 keeps kernels in memory)"});
  parser.Add({"autotune", "",
              "compile every candidate config of the operator's space, check each against the "
              "reference at small shapes, time each at --shapes (with --static-shapes, compiled "
              "for them), run the fastest; the choice and its evidence are cached, so a second "
              "run reads it"});
  parser.Add({"retune", "", "with --autotune: tune again even when the cache holds a choice"});
  parser.Add({"config", "NAME",
              "run the operator at one config of its space instead of its own, e.g. "
              "128x256x64_s4 (an unknown name lists them); combines with --static-shapes"});
  parser.Add(
      {"explain", "",
       "print the operator's default config for these shapes and target (or --config's), why, "
       "and what the target's lowering decides for it (its remarks: e.g. whether sm_90a gives "
       "the copies to a producer warpgroup); for a kernel without a config space, that it runs "
       "as written, and its remarks; alone it opens no device, so GPU targets are explained "
       "anywhere"});
  parser.Add({"help", "", "show this help"});
  return parser;
}

// --shapes and --scalars as given (name -> text): their values are read once the kernel is
// known, against its dtypes (tools/common/assignments.h, run_values.h).
struct GivenValues {
  std::map<std::string, std::string> shapes;
  std::map<std::string, std::string> scalars;
};

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

absl::StatusOr<Kernel> PickKernel(const Module& module, const std::string& path,
                                  const std::optional<std::string>& kernel_flag) {
  std::vector<std::string> names;
  for (const Kernel& kernel : module.kernels) names.push_back(kernel->name);
  if (kernel_flag) {
    for (const Kernel& kernel : module.kernels) {
      if (kernel->name == *kernel_flag) return kernel;
    }
    return absl::NotFoundError(absl::StrCat(path, ": no kernel named '", *kernel_flag,
                                            "' (kernels: ", absl::StrJoin(names, ", "), ")"));
  }
  if (module.kernels.size() != 1) {
    return absl::InvalidArgumentError(module.kernels.empty()
                                          ? absl::StrCat(path, ": the module has no kernel")
                                          : absl::StrCat(path, ": the module has ", names.size(),
                                                         " kernels (", absl::StrJoin(names, ", "),
                                                         "); choose one with --kernel"));
  }
  return module.kernels.front();
}

// Where a run's kernel is compiled: through the kernel cache on a JIT
// backend's device when the binary has one, else by Device::Load (the device's
// target compiles, the device loads; no cache).
struct Compiler {
  runtime::Device* device = nullptr;            // null when only explaining
  runtime::jit::JitBackend* backend = nullptr;  // with `cache`
  std::unique_ptr<runtime::jit::KernelCache> cache;
  std::string target;  // --target
  // What --explain asks: the backend's target, or the one --target names (no device opened),
  // which `resolved` then owns.
  const targets::Target* target_object = nullptr;
  std::shared_ptr<const targets::Target> resolved;
};

// -1: go on to the next stage; else the exit status of what was reported.
constexpr int kGoOn = -1;

// What the command line asks, read and checked before anything is opened or read.
struct RunRequest {
  std::string path;                   // FILE or OP
  std::optional<std::string> kernel;  // --kernel
  RunOptions base;                    // --check, --bench, --iters, --warmup, --seed
  GivenValues given;                  // --shapes, --scalars
  FileFlags file_flags;               // --in, --out, --expect, --rtol, --atol
  bool all = false;
  bool ragged = false;
  bool static_shapes = false;
  bool autotune = false;
  bool retune = false;
  bool explain = false;
  std::optional<std::string> config;    // --config
  std::optional<std::string> dump_dir;  // --dump-cubin
  std::optional<std::string> cache_dir;
  std::string target;
  // --explain alone describes compile-time choices: the target, not a device, answers it.
  bool explain_only() const {
    return explain && !base.check && !base.bench && !autotune && !ragged;
  }
};

// A run's kernel, read once: from FILE, or built from the operator of that name.
struct LoadedInput {
  Module module;
  Kernel kernel;  // kept alive when --config or --autotune replace the module
  std::string name;
  // The suite's operator of the kernel's name (none with --in/--out/--expect), and its own
  // kernel, built once (the kernel read, when it came from the suite).
  const ops::OpCase* op = nullptr;
  Kernel suite_kernel;
};

// FILE when it exists; otherwise the operator of that name, whose kernel `built` receives.
absl::StatusOr<Module> ReadInput(const std::string& path, const std::vector<ops::OpCase>& suite,
                                 Kernel& built) {
  const ops::OpCase* op = FindOp(suite, path);
  if (op == nullptr || std::filesystem::exists(path)) {
    absl::StatusOr<Module> module = io::ReadModuleFile(path);
    if (!module.ok() && op == nullptr && !std::filesystem::exists(path)) {
      return absl::Status(module.status().code(),
                          absl::StrCat(module.status().message(),
                                       " (nor is it an operator of the suite; see --list)"));
    }
    return module;
  }
  absl::StatusOr<Kernel> kernel = op->build();
  if (!kernel.ok()) return kernel.status();
  built = *kernel;
  return dsl::MakeModule({*kernel});
}

// Stage 2: the module read, verified, and its kernel picked.
int LoadKernel(const RunRequest& request, const std::vector<ops::OpCase>& suite, LoadedInput& input,
               std::ostream& err) {
  absl::StatusOr<Module> module = ReadInput(request.path, suite, input.suite_kernel);
  if (!module.ok()) {
    err << "tile-run: error: " << module.status().message() << "\n";
    return 1;
  }
  if (absl::Status status = Verify(*module); !status.ok()) {
    err << "tile-run: error: " << request.path << ": invalid input IR:\n"
        << status.message() << "\n";
    return 1;
  }
  input.module = *std::move(module);
  absl::StatusOr<Kernel> kernel = PickKernel(input.module, request.path, request.kernel);
  if (!kernel.ok()) {
    err << "tile-run: error: " << kernel.status().message() << "\n";
    return 2;
  }
  input.kernel = *kernel;
  input.name = input.kernel->name;
  return kGoOn;
}

// The suite's operator of the kernel's name: its reference, shapes and inputs go by its
// signature, which the kernel must share. Built here only when the kernel came from a file.
int MatchOperator(const RunRequest& request, const std::vector<ops::OpCase>& suite,
                  LoadedInput& input, std::ostream& err) {
  input.op = FindOp(suite, input.name);
  if (input.op == nullptr) return kGoOn;
  if (!input.suite_kernel) {
    absl::StatusOr<Kernel> own = input.op->build();
    if (!own.ok()) {
      err << "tile-run: error: building operator '" << input.name << "': " << own.status().message()
          << "\n";
      return 1;
    }
    input.suite_kernel = *own;
  }
  const KernelNode& own = *input.suite_kernel;
  if (std::optional<std::string> difference = SignatureDifference(*input.kernel, own)) {
    err << "tile-run: error: " << request.path << ": kernel '" << input.name
        << "' is named like the suite operator but " << *difference << "; "
        << (request.base.check ? "--check compares with that operator's reference"
                               : "tile-run runs it with that operator's shapes, inputs and outputs")
        << ", so the signatures must match (the operator's: " << FormatSignature(own)
        << "; rename the kernel to run it outside the suite)\n";
    return 2;
  }
  return kGoOn;
}

// Whether the kernel read is the suite's own kernel of its operator (a file may hold a changed
// copy of it, which a config of the suite's would silently replace).
bool IsSuiteKernel(const LoadedInput& input) {
  return Print(*input.suite_kernel) == Print(*input.kernel);
}

// --shapes and --scalars read against the kernel's dtypes, with the operator's (or --ragged's)
// for the rest, and --in's files; every value checked before anything is compiled or allocated.
int ResolveValues(const RunRequest& request, const LoadedInput& input, RunOptions& options,
                  std::optional<FileTensors>& files, std::ostream& err) {
  const KernelNode& kernel = *input.kernel;
  absl::StatusOr<ops::Shapes> given_dims = cli::ShapeValues(kernel, request.given.shapes);
  if (!given_dims.ok()) {
    err << "tile-run: error: " << given_dims.status().message() << "\n";
    return 2;
  }
  options.dims = *std::move(given_dims);
  if (absl::Status status =
          ScalarValues(kernel, request.given.scalars, options.scalars, options.integer_scalars);
      !status.ok()) {
    err << "tile-run: error: " << status.message() << "\n";
    return 2;
  }
  if (request.file_flags.any()) {
    absl::StatusOr<FileTensors> loaded = LoadFileTensors(kernel, request.file_flags, options.dims);
    if (!loaded.ok()) {
      err << "tile-run: error: " << request.path << ": " << loaded.status().message() << "\n";
      return 2;
    }
    files = *std::move(loaded);
  }
  return kGoOn;
}

// The operator's shapes and scalars under the given ones; what a kernel without an operator
// cannot do refused.
int MergeOperatorValues(const RunRequest& request, const LoadedInput& input, RunOptions& options,
                        std::ostream& err) {
  const ops::OpCase* op = input.op;
  if (op == nullptr) {
    if (options.check) {
      err << "tile-run: error: no reference for kernel '" << input.name
          << "': --check needs an operator-suite entry (see --list)\n";
      return 2;
    }
    if (request.ragged) {
      err << "tile-run: error: kernel '" << input.name
          << "' has no operator-suite entry, so no ragged shapes; give --shapes\n";
      return 2;
    }
    return kGoOn;
  }
  if (request.ragged && op->ragged_shapes.empty()) {
    err << "tile-run: error: operator '" << input.name << "' has no ragged shapes\n";
    return 2;
  }
  ops::Shapes dims = request.ragged ? op->ragged_shapes : op->default_shapes;
  for (const auto& [dim, value] : options.dims) dims[dim] = value;  // --shapes wins
  options.dims = dims;
  std::map<std::string, double> scalars = op->scalars;
  for (const auto& [scalar, value] : options.scalars) scalars[scalar] = value;
  options.scalars = scalars;
  return kGoOn;
}

// Every dim has a value, and the host memory the run needs is there.
int CheckRunnable(const RunRequest& request, const LoadedInput& input, const Compiler& compiler,
                  bool with_files, const RunOptions& options, std::ostream& err) {
  for (const VarRef& dim : input.kernel->dims) {
    if (!options.dims.contains(dim->name)) {
      err << "tile-run: error: no value for dimension '" << dim->name << "' of kernel '"
          << input.name << "'" << (input.op ? "" : " (it is not in the operator suite)")
          << "; give it with --shapes " << dim->name << "=N\n";
      return 2;
    }
  }
  if (!with_files && compiler.device != nullptr) {
    // Before anything is allocated: the host copies and references the run will make.
    if (absl::Status memory = CheckHostMemory(*input.kernel, options.dims, PhysicalMemoryBytes());
        !memory.ok()) {
      err << "tile-run: error: " << request.path << ": " << memory.message() << "\n";
      return 2;
    }
  }
  return kGoOn;
}

// --autotune needs a config space and a kernel cache.
int CheckTunable(const RunRequest& request, const LoadedInput& input, const Compiler& compiler,
                 const std::vector<ops::OpCase>& suite, std::ostream& err) {
  if (!request.autotune) return kGoOn;
  if (input.op == nullptr || input.op->config_space.candidates.empty()) {
    std::vector<std::string> tunable;
    for (const ops::OpCase& each : suite) {
      if (!each.config_space.candidates.empty()) tunable.push_back(each.name);
    }
    err << "tile-run: error: kernel '" << input.name << "' has no config space to tune"
        << " (operators with one: " << (tunable.empty() ? "none" : absl::StrJoin(tunable, ", "))
        << ")\n";
    return 2;
  }
  if (compiler.cache == nullptr) {
    err << "tile-run: error: --autotune needs a JIT backend for --target=" << compiler.target
        << ", which this binary lacks\n";
    return 2;
  }
  return kGoOn;
}

// Tunes `op`, prints the candidates, and replaces `module` by the best
// config's; returns an exit status, -1 to go on.
int Autotune(const RunRequest& request, const ops::OpCase& op, const RunOptions& options,
             const std::vector<std::string>& order, Compiler& compiler, Module& module,
             std::ostream& out, std::ostream& err, bool progress_bar) {
  AutotuneRequest tuning;
  tuning.dims = options.dims;
  tuning.scalars = options.scalars;
  tuning.integer_scalars = options.integer_scalars;
  tuning.seed = options.seed;
  tuning.warmup = options.warmup;
  tuning.iters = options.iters;
  tuning.retune = request.retune;
  tuning.static_shapes = request.static_shapes;
  if (progress_bar) {
    tuning.progress = [&err](int done, int total, const std::string& what) {
      err << runtime::jit::ProgressBar(done, total, what) << std::flush;
    };
  }
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<runtime::jit::TuningResult> result = AutotuneOp(*compiler.cache, op, tuning);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (progress_bar) err << "\r\x1b[K";
  if (!result.ok()) {
    err << "tile-run: error: " << result.status().message() << "\n";
    return 1;
  }
  const std::optional<runtime::jit::DiskCache>& disk = compiler.cache->disk();
  if (result->from_cache) {
    err << "autotune: " << op.name << ": the cached choice (key " << result->key << ")\n";
  } else {
    err << "autotune: " << op.name << ": " << result->candidates.size()
        << " candidates compiled, checked and timed in " << FormatSeconds(seconds) << "\n";
  }
  out << "autotune " << op.name << " at " << FormatShapes(options.dims, order) << " (checked at "
      << FormatShapes(TuningCheckShapes(*compiler.cache, op, tuning), order) << ") on "
      << result->device << ", " << result->date << (result->from_cache ? ", from the cache" : "")
      << "\n"
      << FormatTuningTable(op, *result, options.dims)
      << FormatCandidateRemarks(op, *result, options.dims, tuning.static_shapes,
                                compiler.backend->target())
      << "best " << ConfigName(op, result->best) << " ("
      << runtime::jit::ConfigToString(result->best) << "); "
      << (disk ? absl::StrCat(result->from_cache ? "read from " : "stored in ", disk->directory(),
                              " as ", result->key)
               : std::string("not stored: the disk cache is off"))
      << "\n";
  absl::StatusOr<Module> best = BuildConfig(op, result->best);
  if (!best.ok()) {
    err << "tile-run: error: " << best.status().message() << "\n";
    return 1;
  }
  module = *std::move(best);
  return -1;
}

// Replaces `module` by the operator's config named `config_name`, which `picked` receives;
// returns an exit status, -1 to go on. The config rebuilds the operator from the suite, so a kernel
// read that differs from the suite's is refused rather than silently replaced.
int PickConfig(const std::string& config_name, const LoadedInput& input, Module& module,
               runtime::jit::Config& picked, std::ostream& out, std::ostream& err) {
  const ops::OpCase* op = input.op;
  if (op == nullptr || op->config_space.candidates.empty()) {
    err << "tile-run: error: kernel '" << input.name << "' has no config space to pick '"
        << config_name << "' from\n";
    return 2;
  }
  if (!IsSuiteKernel(input)) {
    err << "tile-run: error: --config rebuilds operator '" << op->name
        << "' from the suite, and this kernel differs from the suite's; run the operator by "
           "name, or give the file without --config\n";
    return 2;
  }
  std::vector<std::string> names;
  for (const ops::OpConfig& candidate : op->config_space.candidates) {
    names.push_back(candidate.name);
    if (candidate.name != config_name) continue;
    absl::StatusOr<Module> built = BuildConfig(*op, candidate.values);
    if (!built.ok()) {
      err << "tile-run: error: " << built.status().message() << "\n";
      return 1;
    }
    module = *std::move(built);
    picked = runtime::jit::Config(candidate.values.begin(), candidate.values.end());
    out << "config  " << config_name << " of " << op->name << "'s space\n";
    return -1;
  }
  err << "tile-run: error: operator '" << op->name << "' has no config '" << config_name
      << "'; its configs: " << absl::StrJoin(names, ", ") << "\n";
  return 2;
}

// The run on --in/--out/--expect files; returns the exit status.
int ReportFileRun(runtime::Device& device, runtime::LoadedKernel& loaded, const FileTensors& files,
                  const RunOptions& options, const std::string& path, std::ostream& out,
                  std::ostream& err) {
  std::vector<std::string> inputs;
  for (const auto& [name, buffer] : files.inputs) inputs.push_back(name);
  out << "  inputs  " << (inputs.empty() ? "none" : absl::StrJoin(inputs, ", ")) << " from files\n";
  absl::StatusOr<FileRunResult> result =
      RunOnFiles(device, loaded, files, options.scalars, options.integer_scalars);
  if (!result.ok()) {
    err << "tile-run: error: " << path << ": " << result.status().message() << "\n";
    return 1;
  }
  out << "  launch  " << FormatSeconds(result->launch_seconds) << "\n";
  for (const std::string& written : result->written) out << "  wrote   " << written << "\n";
  for (const OutputCheck& check : result->checks) {
    auto [rtol, atol] = files.tolerances.at(check.name);
    out << "  check   " << FormatCheck(check) << " (rtol " << FormatError(rtol) << ", atol "
        << FormatError(atol) << ")\n";
  }
  if (result->checks.empty()) {
    out << "ran (no --expect to compare with)\n";
    return 0;
  }
  out << (result->passed() ? "PASS" : "FAIL") << "\n";
  return result->passed() ? 0 : 1;
}

// Stage 4, the config: --config's, else the one --explain explains or a tuning stored for these
// shapes; `module` replaced by its build where it is not the operator's own. `given` receives
// --config's.
int ChooseModule(const RunRequest& request, LoadedInput& input, Compiler& compiler,
                 const RunOptions& options, std::optional<runtime::jit::Config>& given,
                 std::ostream& out, std::ostream& err) {
  const ops::OpCase* op = input.op;
  if (request.config) {
    given.emplace();
    return PickConfig(*request.config, input, input.module, *given, out, err);
  }
  if (op == nullptr || op->config_space.candidates.empty() || request.autotune ||
      compiler.device == nullptr || !IsSuiteKernel(input)) {
    return kGoOn;
  }
  ChosenConfig chosen = ChooseConfig(*op, options.dims, request.static_shapes, compiler.cache.get(),
                                     compiler.device->target());
  if (!chosen.own || chosen.tuned) {
    absl::StatusOr<Module> built = BuildConfig(*op, chosen.config);
    if (!built.ok()) {
      err << "tile-run: error: " << built.status().message() << "\n";
      return 1;
    }
    input.module = *std::move(built);
    out << "config  " << ConfigName(*op, chosen.config) << ": " << chosen.why << "\n";
  }
  if (chosen.tuned && request.explain) {
    out << "(--explain's default gives way to the tuned choice above)\n";
  }
  return kGoOn;
}

// --explain: the config's why and the lowering's remarks (or, for a kernel without a config space,
// that it runs as written). Explaining only, it ends the run.
int ExplainRun(const RunRequest& request, const LoadedInput& input, const Compiler& compiler,
               const RunOptions& options, const std::vector<std::string>& order,
               const std::optional<runtime::jit::Config>& given, std::ostream& out,
               std::ostream& err) {
  if (!request.explain) return kGoOn;
  if (compiler.target_object == nullptr) {
    err << "tile-run: error: --explain: this binary cannot look up the target '" << compiler.target
        << "'\n";
    return 2;
  }
  const bool as_written = input.op == nullptr || input.op->config_space.candidates.empty();
  const bool lowers = as_written
                          ? ExplainAsWritten(input.kernel, options.dims, request.static_shapes,
                                             *compiler.target_object, out)
                          : Explain(*input.op, options.dims, order, request.static_shapes,
                                    *compiler.target_object, out, given ? &*given : nullptr);
  if (compiler.device != nullptr) return kGoOn;
  if (!lowers) {
    err << "tile-run: error: --explain: kernel '" << input.name << "' does not lower for "
        << compiler.target << " (the reason is above)\n";
    return 1;
  }
  return 0;
}

// Stage 5, the plan: each kernel of the run's name as a run compiles it (runtime/jit/
// specialization_plan.h), saying which dims are compiled in and which classes required.
int SpecializeForRun(const RunRequest& request, const Compiler& compiler, const std::string& name,
                     Module& module, RunOptions& options, std::ostream& out, std::ostream& err) {
  for (Kernel& each : module.kernels) {
    if (each->name != name) continue;
    absl::StatusOr<RunSpecialization> run =
        SpecializeAsRun(each, options.dims, request.static_shapes,
                        compiler.target_object ? compiler.target_object->info().get() : nullptr);
    if (!run.ok()) {
      err << "tile-run: error: " << request.path << ": " << run.status().message() << "\n";
      return 2;
    }
    if (!request.static_shapes && !run->compiled_in.empty()) {
      out << "specialized " << absl::StrJoin(run->compiled_in, ", ")
          << " (sizing fragments, so compiled in as constants)\n";
    }
    if (!run->requirements.empty()) {
      out << "divisibility " << absl::StrJoin(run->requirements, ", ")
          << " (compiled in; the shapes stay dynamic)\n";
    }
    options.specialized_dims.insert(options.specialized_dims.end(), run->compiled_in.begin(),
                                    run->compiled_in.end());
    each = std::move(run->kernel);
  }
  return kGoOn;
}

// A loaded kernel, however it was obtained, and the report's cache line.
struct ObtainedKernel {
  std::unique_ptr<runtime::LoadedKernel> owned;  // when not the cache's
  runtime::LoadedKernel* loaded = nullptr;
  std::string cache_line;
};

// Stage 6, one interface over the three ways to a loaded kernel: the kernel cache; a fresh
// compile on the backend (--dump-cubin bypasses the cache); the device's own Load (no backend).
absl::StatusOr<ObtainedKernel> ObtainKernel(const RunRequest& request, Compiler& compiler,
                                            const Module& module, const std::string& name) {
  ObtainedKernel obtained;
  if (compiler.cache != nullptr && !request.dump_dir) {
    absl::StatusOr<runtime::jit::CachedKernel> cached = compiler.cache->Get(module, name);
    if (!cached.ok()) return cached.status();
    obtained.loaded = cached->kernel;
    const std::optional<runtime::jit::DiskCache>& disk = compiler.cache->disk();
    obtained.cache_line = absl::StrCat(
        std::string(runtime::jit::CacheSourceName(cached->source)), ", key ", cached->key,
        disk ? absl::StrCat(" in ", disk->directory()) : std::string(" (memory only)"));
    return obtained;
  }
  absl::StatusOr<std::unique_ptr<runtime::LoadedKernel>> compiled;
  obtained.cache_line = "off (this binary compiles on the device)";
  if (compiler.backend != nullptr) {
    absl::StatusOr<runtime::jit::CompiledKernel> fresh = compiler.backend->Compile(module, name);
    if (!fresh.ok()) return fresh.status();
    compiled = std::move(fresh->kernel);
    obtained.cache_line = "bypassed (--dump-cubin)";
  } else {
    compiled = compiler.device->Load(module, name);
  }
  if (!compiled.ok()) return compiled.status();
  obtained.owned = *std::move(compiled);
  obtained.loaded = obtained.owned.get();
  return obtained;
}

// Stage 7: the run on the suite's random inputs (checked against the reference with --check),
// and its report; the exit status.
int ReportRun(runtime::Device& device, runtime::LoadedKernel& loaded, const ops::OpCase* op,
              const RunOptions& options, const std::string& cache_line, const std::string& path,
              std::ostream& out, std::ostream& err) {
  // The cases RunKernel runs: every one with --check, the first without. The kernel read may be
  // gone (--config and --autotune replace the module); the loaded one has its parameters.
  const ops::OpCase no_op{};
  for (ops::InputCase input_case : ops::kInputCases) {
    out << (input_case == ops::kInputCases[0] ? "  inputs  " : "          ")
        << ops::InputCaseName(input_case) << ": "
        << ops::DescribeInputs(op ? *op : no_op, loaded.signature(), input_case) << "\n";
    if (!options.check) break;
  }
  out << "  cache   " << cache_line << "\n";
  absl::StatusOr<RunResult> result = RunKernel(device, loaded, op, options);
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

// Stages 2-4 for one run: the kernel loaded, its values resolved and checked, its config chosen
// and explained (and tuned). kGoOn with `input`, `options` and `files` ready to specialize.
int PrepareRun(const RunRequest& request, Compiler& compiler, const std::vector<ops::OpCase>& suite,
               LoadedInput& input, RunOptions& options, std::optional<FileTensors>& files,
               std::vector<std::string>& order, std::ostream& out, std::ostream& err,
               bool progress_bar) {
  int status = LoadKernel(request, suite, input, err);
  if (status == kGoOn) status = ResolveValues(request, input, options, files, err);
  // With files, the suite's operator of the same name lends nothing: no shapes, inputs or
  // reference.
  if (status == kGoOn && !files) status = MatchOperator(request, suite, input, err);
  if (status == kGoOn) status = MergeOperatorValues(request, input, options, err);
  if (status == kGoOn)
    status = CheckRunnable(request, input, compiler, files.has_value(), options, err);
  if (status == kGoOn) status = CheckTunable(request, input, compiler, suite, err);
  if (status != kGoOn) return status;
  for (const VarRef& dim : input.kernel->dims) order.push_back(dim->name);
  std::optional<runtime::jit::Config> given;  // --config's, which --explain explains
  status = ChooseModule(request, input, compiler, options, given, out, err);
  if (status == kGoOn)
    status = ExplainRun(request, input, compiler, options, order, given, out, err);
  if (status == kGoOn && request.autotune) {
    status = Autotune(request, *input.op, options, order, compiler, input.module, out, err,
                      progress_bar);
  }
  return status;
}

// Runs one kernel of a module file (or an operator): load, values, config, plan, obtain, run and
// report; returns the exit status.
int RunFile(const RunRequest& request, Compiler& compiler, const std::vector<ops::OpCase>& suite,
            std::ostream& out, std::ostream& err, bool progress_bar) {
  LoadedInput input;
  RunOptions options = request.base;
  std::optional<FileTensors> files;
  std::vector<std::string> order;
  if (int status = PrepareRun(request, compiler, suite, input, options, files, order, out, err,
                              progress_bar);
      status != kGoOn) {
    return status;
  }
  if (int status = SpecializeForRun(request, compiler, input.name, input.module, options, out, err);
      status != kGoOn) {
    return status;
  }
  absl::StatusOr<ObtainedKernel> obtained =
      ObtainKernel(request, compiler, input.module, input.name);
  if (!obtained.ok()) {
    err << "tile-run: error: " << request.path << ": " << obtained.status().message() << "\n";
    return 1;
  }
  runtime::Device& device = *compiler.device;
  if (request.dump_dir) {
    if (absl::Status dumped = DumpArtifacts(*obtained->loaded, device.name(), *request.dump_dir);
        !dumped.ok()) {
      err << "tile-run: error: " << dumped.message() << "\n";
      return 1;
    }
  }
  out << "kernel " << input.name << " from " << request.path << " on " << device.description()
      << "\n"
      << "  shapes  " << FormatShapes(options.dims, order) << "\n"
      << "  seed    " << options.seed << "\n";
  if (files) {
    out << "  cache   " << obtained->cache_line << "\n";
    return ReportFileRun(device, *obtained->loaded, *files, options, request.path, out, err);
  }
  return ReportRun(device, *obtained->loaded, input.op, options, obtained->cache_line, request.path,
                   out, err);
}

// --iters, --warmup, --shapes and --scalars as given (the values are read once the kernel is
// known), and --seed.
int ParseRunValues(const cli::ArgParser& parser, RunRequest& request, std::ostream& err) {
  RunOptions& options = request.base;
  options.check = parser.Has("check");
  options.bench = parser.Has("bench");
  absl::StatusOr<int> iters = PositiveCount(parser, "iters", 1);
  absl::StatusOr<int> warmup = PositiveCount(parser, "warmup", 0);
  absl::StatusOr<std::map<std::string, std::string>> dims =
      cli::ParseAssignments("shapes", parser.Get("shapes"));
  absl::StatusOr<std::map<std::string, std::string>> scalars =
      cli::ParseAssignments("scalars", parser.Get("scalars"));
  for (const absl::Status& status :
       {iters.status(), warmup.status(), dims.status(), scalars.status()}) {
    if (!status.ok()) {
      err << "tile-run: error: " << status.message() << "\n";
      return 2;
    }
  }
  options.iters = *iters;
  options.warmup = *warmup;
  request.given = GivenValues{*std::move(dims), *std::move(scalars)};
  return kGoOn;
}

// --in, --out, --expect and their tolerances.
int ParseFileFlags(const cli::ArgParser& parser, RunRequest& request, std::ostream& err) {
  FileFlags& file_flags = request.file_flags;
  file_flags.inputs = parser.GetAll("in");
  file_flags.outputs = parser.GetAll("out");
  file_flags.expects = parser.GetAll("expect");
  for (auto [flag, tolerance] :
       {std::pair{"rtol", &file_flags.rtol}, std::pair{"atol", &file_flags.atol}}) {
    if (!parser.Has(flag)) continue;
    double value = 0;
    if (!absl::SimpleAtod(parser.Get(flag), &value) || !(value >= 0)) {
      err << "tile-run: error: --" << flag << " must be a number >= 0, got '" << parser.Get(flag)
          << "'\n";
      return 2;
    }
    if (file_flags.expects.empty()) {
      err << "tile-run: error: --" << flag << " is the tolerance of --expect, which is absent\n";
      return 2;
    }
    *tolerance = value;
  }
  return kGoOn;
}

int ParseSeed(const cli::ArgParser& parser, RunRequest& request, std::ostream& err) {
  if (!parser.Has("seed")) {
    // Small enough to retype from the report.
    request.base.seed = static_cast<uint64_t>(
        std::chrono::system_clock::now().time_since_epoch().count() % 1000000000);
    return kGoOn;
  }
  if (!absl::SimpleAtoi(parser.Get("seed"), &request.base.seed)) {
    err << "tile-run: error: --seed must be a non-negative integer, got '" << parser.Get("seed")
        << "'\n";
    return 2;
  }
  return kGoOn;
}

// What runs (--all, or one FILE), and the flags that cannot go together.
int CheckFlagConflicts(const cli::ArgParser& parser, const RunRequest& request, std::ostream& err) {
  if (request.all &&
      (!parser.positional().empty() || parser.Has("kernel") || parser.Has("shapes") ||
       parser.Has("in") || parser.Has("out") || parser.Has("expect") || parser.Has("scalars") ||
       parser.Has("autotune") || parser.Has("explain") || parser.Has("cache-dir"))) {
    err << "tile-run: error: --all runs every operator at its own shapes and config; it takes "
           "no FILE, --kernel, --shapes, --scalars, --in, --out, --expect, --autotune, --explain "
           "or --cache-dir\n";
    return 2;
  }
  if (request.all) return kGoOn;
  if (parser.positional().size() != 1) {
    err << "tile-run: error: expected exactly one FILE (or --all, or --list); see --help\n";
    return 2;
  }
  if (request.file_flags.any()) {
    for (const char* flag :
         {"check", "ragged", "bench", "autotune", "retune", "explain", "config"}) {
      if (!parser.Has(flag)) continue;
      err << "tile-run: error: --" << flag
          << " works on the suite's random inputs and references; --in/--out/--expect run "
             "the kernel on your files: give one or the other\n";
      return 2;
    }
  }
  if (request.autotune && request.config) {
    err << "tile-run: error: --config picks a config, and --autotune searches for one; give one "
           "of them\n";
    return 2;
  }
  if (request.retune && !request.autotune) {
    err << "tile-run: error: --retune goes with --autotune\n";
    return 2;
  }
  return kGoOn;
}

std::optional<std::string> OptionalFlag(const cli::ArgParser& parser, const char* flag) {
  return parser.Has(flag) ? std::optional(parser.Get(flag)) : std::nullopt;
}

// Stage 1: the command line as a request, every usage error decided before anything is opened.
int ParseRequest(const cli::ArgParser& parser, RunRequest& request, std::ostream& err) {
  if (int status = ParseRunValues(parser, request, err); status != kGoOn) return status;
  if (int status = ParseFileFlags(parser, request, err); status != kGoOn) return status;
  if (int status = ParseSeed(parser, request, err); status != kGoOn) return status;
  for (const char* flag : {"dump-cubin", "cache-dir"}) {
    if (parser.Has(flag) && parser.Get(flag).empty()) {
      err << "tile-run: error: --" << flag << " needs a folder\n";
      return 2;
    }
  }
  request.all = parser.Has("all");
  request.ragged = parser.Has("ragged");
  request.static_shapes = parser.Has("static-shapes");
  request.autotune = parser.Has("autotune");
  request.retune = parser.Has("retune");
  request.explain = parser.Has("explain");
  request.kernel = OptionalFlag(parser, "kernel");
  request.config = OptionalFlag(parser, "config");
  request.dump_dir = OptionalFlag(parser, "dump-cubin");
  request.cache_dir = OptionalFlag(parser, "cache-dir");
  request.target = parser.Get("target");
  if (!parser.positional().empty()) request.path = parser.positional().front();
  return CheckFlagConflicts(parser, request, err);
}

// The kernel cache over the backend: --cache-dir's folder unless TILE_DISABLE_CACHE=1, which wins
// over --cache-dir: it is the switch for every tool.
std::unique_ptr<runtime::jit::KernelCache> OpenCache(runtime::jit::JitBackend& backend,
                                                     const RunRequest& request, std::ostream& err) {
  runtime::jit::KernelCacheOptions options = runtime::jit::KernelCacheOptions::FromEnvironment();
  const char* disable = std::getenv("TILE_DISABLE_CACHE");
  if (request.cache_dir && !(disable != nullptr && std::string(disable) == "1")) {
    options.directory = *request.cache_dir;
  }
  options.warn = [&err](const std::string& message) {
    err << "tile-run: warning: " << message << "\n";
  };
  return std::make_unique<runtime::jit::KernelCache>(backend, options);
}

// Stage 3 onwards on a device: the JIT backend's where the binary has one, else a bare device's;
// --all checks the suite on the device.
int RunOnDevice(const RunRequest& request, const TileRunEnvironment& env,
                const std::vector<ops::OpCase>& suite, std::ostream& out, std::ostream& err) {
  Compiler compiler;
  compiler.target = request.target;
  if (!request.all && env.open_jit_backend) {
    absl::StatusOr<std::unique_ptr<runtime::jit::JitBackend>> backend =
        env.open_jit_backend(request.target);
    if (!backend.ok()) {
      err << "tile-run: error: --target=" << request.target << ": " << backend.status().message()
          << "\n";
      return 1;
    }
    compiler.backend = backend->get();
    compiler.target_object = &(*backend)->target();
    compiler.device = &(*backend)->device();
    compiler.cache = OpenCache(**backend, request, err);
    return RunFile(request, compiler, suite, out, err, env.progress_bar);
  }
  if (!env.open_device) {
    err << "tile-run: error: --target=" << request.target << ": no devices are available\n";
    return 1;
  }
  absl::StatusOr<std::unique_ptr<runtime::Device>> device = env.open_device(request.target);
  if (!device.ok()) {
    err << "tile-run: error: --target=" << request.target << ": " << device.status().message()
        << "\n";
    return 1;
  }
  if (request.all) {
    SuiteRunOptions suite_options;
    suite_options.seed = request.base.seed;
    suite_options.ragged = request.ragged;
    suite_options.bench = request.base.bench;
    suite_options.warmup = request.base.warmup;
    suite_options.iters = request.base.iters;
    suite_options.dump_dir = request.dump_dir.value_or("");
    return RunSuite(suite, **device, suite_options, out, err) ? 0 : 1;
  }
  compiler.device = device->get();
  return RunFile(request, compiler, suite, out, err, env.progress_bar);
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
  RunRequest request;
  if (int status = ParseRequest(parser, request, err); status != kGoOn) return status;
  // The target's name is checked first, by the one parser of target names, so that a bad option
  // is named as such whatever device would open it.
  std::shared_ptr<const targets::Target> resolved;
  if (env.resolve_target) {
    absl::StatusOr<std::shared_ptr<const targets::Target>> target =
        env.resolve_target(request.target);
    if (!target.ok()) {
      err << "tile-run: error: --target: " << target.status().message() << "\n";
      return 2;
    }
    resolved = *std::move(target);
  }
  if (!request.all && request.explain_only() && resolved != nullptr) {
    Compiler compiler;
    compiler.target = request.target;
    compiler.target_object = resolved.get();
    compiler.resolved = std::move(resolved);
    return RunFile(request, compiler, suite, out, err, env.progress_bar);
  }
  return RunOnDevice(request, env, suite, out, err);
}

}  // namespace tile_ir::tools
