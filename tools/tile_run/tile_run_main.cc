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

// Where a run's kernel is compiled: through the kernel cache on a JIT
// backend's device when the binary has one, else by Device::Load (the device's
// target compiles, the device loads; no cache).
struct Compiler {
  runtime::Device* device = nullptr;            // null when only explaining
  runtime::jit::JitBackend* backend = nullptr;  // with `cache`
  std::unique_ptr<runtime::jit::KernelCache> cache;
  std::string target;  // --target
  // What --explain asks: the backend's target, or the one --target names (no device opened).
  std::shared_ptr<const targets::Target> target_object;
};

// FILE when it exists; otherwise the operator of that name.
absl::StatusOr<Module> ReadInput(const std::string& path, const std::vector<ops::OpCase>& suite) {
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
  return dsl::MakeModule({*kernel});
}

// Tunes `op`, prints the candidates, and replaces `module` by the best
// config's; returns an exit status, -1 to go on.
int Autotune(const cli::ArgParser& parser, const ops::OpCase& op, const RunOptions& options,
             const std::vector<std::string>& order, Compiler& compiler, Module& module,
             std::ostream& out, std::ostream& err, bool progress_bar) {
  AutotuneRequest request;
  request.dims = options.dims;
  request.scalars = options.scalars;
  request.integer_scalars = options.integer_scalars;
  request.seed = options.seed;
  request.warmup = options.warmup;
  request.iters = options.iters;
  request.retune = parser.Has("retune");
  request.static_shapes = parser.Has("static-shapes");
  if (progress_bar) {
    request.progress = [&err](int done, int total, const std::string& what) {
      err << runtime::jit::ProgressBar(done, total, what) << std::flush;
    };
  }
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<runtime::jit::TuningResult> result = AutotuneOp(*compiler.cache, op, request);
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
      << FormatShapes(TuningCheckShapes(*compiler.cache, op, request), order) << ") on "
      << result->device << ", " << result->date << (result->from_cache ? ", from the cache" : "")
      << "\n"
      << FormatTuningTable(op, *result, options.dims)
      << FormatCandidateRemarks(op, *result, options.dims, request.static_shapes,
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

// Whether `kernel` is the suite's own kernel of `op` (a file may hold a changed copy of it,
// which a config of the suite's would silently replace).
bool IsSuiteKernel(const ops::OpCase& op, const KernelNode& kernel) {
  absl::StatusOr<Kernel> own = op.build();
  return !own.ok() || Print(**own) == Print(kernel);
}

// Replaces `module` by the operator's config named `config_name`, which `picked` receives;
// returns an exit status, -1 to go on. `kernel` is the kernel read (from a file or the suite): the
// config rebuilds the operator from the suite, so a kernel that differs from the suite's is refused
// rather than silently replaced.
int PickConfig(const std::string& config_name, const ops::OpCase* op, const KernelNode& kernel,
               Module& module, runtime::jit::Config& picked, std::ostream& out, std::ostream& err) {
  if (op == nullptr || op->config_space.candidates.empty()) {
    err << "tile-run: error: kernel '" << kernel.name << "' has no config space to pick '"
        << config_name << "' from\n";
    return 2;
  }
  if (!IsSuiteKernel(*op, kernel)) {
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

// Runs one kernel of a module file (or an operator); returns the exit status.
int RunFile(const cli::ArgParser& parser, const RunOptions& base, const GivenValues& values,
            const FileFlags& file_flags, Compiler& compiler, const std::vector<ops::OpCase>& suite,
            std::ostream& out, std::ostream& err, bool progress_bar) {
  const std::string path = parser.positional().front();
  absl::StatusOr<Module> module = ReadInput(path, suite);
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
  const std::string name = (*kernel)->name;
  // Every value is checked against the kernel's dtypes before anything is compiled or allocated.
  absl::StatusOr<ops::Shapes> given_dims = cli::ShapeValues(**kernel, values.shapes);
  if (!given_dims.ok()) {
    err << "tile-run: error: " << given_dims.status().message() << "\n";
    return 2;
  }
  ops::Shapes base_dims = *std::move(given_dims);
  std::map<std::string, double> given_scalars;
  std::map<std::string, int64_t> integer_scalars;
  if (absl::Status status = ScalarValues(**kernel, values.scalars, given_scalars, integer_scalars);
      !status.ok()) {
    err << "tile-run: error: " << status.message() << "\n";
    return 2;
  }
  std::optional<FileTensors> files;
  if (file_flags.any()) {
    for (const char* flag :
         {"check", "ragged", "bench", "autotune", "retune", "explain", "config"}) {
      if (parser.Has(flag)) {
        err << "tile-run: error: --" << flag
            << " works on the suite's random inputs and references; --in/--out/--expect run "
               "the kernel on your files: give one or the other\n";
        return 2;
      }
    }
    absl::StatusOr<FileTensors> loaded_files = LoadFileTensors(**kernel, file_flags, base_dims);
    if (!loaded_files.ok()) {
      err << "tile-run: error: " << path << ": " << loaded_files.status().message() << "\n";
      return 2;
    }
    files = *std::move(loaded_files);
  }
  // With files, the suite's operator of the same name lends nothing: no shapes, inputs or
  // reference.
  const ops::OpCase* op = files ? nullptr : FindOp(suite, name);
  if (op != nullptr) {
    // The operator is found by name; its reference, shapes and inputs then go by the
    // operator's signature, which the kernel must share.
    absl::StatusOr<Kernel> own = op->build();
    if (!own.ok()) {
      err << "tile-run: error: building operator '" << name << "': " << own.status().message()
          << "\n";
      return 1;
    }
    if (std::optional<std::string> difference = SignatureDifference(**kernel, **own)) {
      err << "tile-run: error: " << path << ": kernel '" << name
          << "' is named like the suite operator but " << *difference << "; "
          << (base.check ? "--check compares with that operator's reference"
                         : "tile-run runs it with that operator's shapes, inputs and outputs")
          << ", so the signatures must match (the operator's: " << FormatSignature(**own)
          << "; rename the kernel to run it outside the suite)\n";
      return 2;
    }
  }
  RunOptions options = base;
  options.dims = base_dims;
  options.scalars = given_scalars;
  options.integer_scalars = integer_scalars;
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
  if (!files && compiler.device != nullptr) {
    // Before anything is allocated: the host copies and references the run will make.
    if (absl::Status memory = CheckHostMemory(**kernel, options.dims, PhysicalMemoryBytes());
        !memory.ok()) {
      err << "tile-run: error: " << path << ": " << memory.message() << "\n";
      return 2;
    }
  }

  const bool tune = parser.Has("autotune");
  if (tune && parser.Has("config")) {
    err << "tile-run: error: --config picks a config, and --autotune searches for one; give one "
           "of them\n";
    return 2;
  }
  // --explain of a kernel without a config space says so and gives its lowering's remarks.
  const bool as_written = op == nullptr || op->config_space.candidates.empty();
  if (parser.Has("retune") && !tune) {
    err << "tile-run: error: --retune goes with --autotune\n";
    return 2;
  }
  if (tune) {
    if (as_written) {
      std::vector<std::string> tunable;
      for (const ops::OpCase& each : suite) {
        if (!each.config_space.candidates.empty()) tunable.push_back(each.name);
      }
      err << "tile-run: error: kernel '" << name << "' has no config space to tune"
          << " (operators with one: " << (tunable.empty() ? "none" : absl::StrJoin(tunable, ", "))
          << ")\n";
      return 2;
    }
    if (compiler.cache == nullptr) {
      err << "tile-run: error: --autotune needs a JIT backend for --target=" << compiler.target
          << ", which this binary lacks\n";
      return 2;
    }
  }
  std::optional<runtime::jit::Config> given;  // --config's, which --explain explains
  if (parser.Has("config")) {
    given.emplace();
    if (int status = PickConfig(parser.Get("config"), op, **kernel, *module, *given, out, err);
        status >= 0) {
      return status;
    }
  } else if (op != nullptr && !op->config_space.candidates.empty() && !tune &&
             compiler.device != nullptr && IsSuiteKernel(*op, **kernel)) {
    // What --explain explains, or the choice a tuning stored for these shapes.
    ChosenConfig chosen = ChooseConfig(*op, options.dims, parser.Has("static-shapes"),
                                       compiler.cache.get(), compiler.device->target());
    if (!chosen.own || chosen.tuned) {
      absl::StatusOr<Module> built = BuildConfig(*op, chosen.config);
      if (!built.ok()) {
        err << "tile-run: error: " << built.status().message() << "\n";
        return 1;
      }
      module = *std::move(built);
      out << "config  " << ConfigName(*op, chosen.config) << ": " << chosen.why << "\n";
    }
    if (chosen.tuned && parser.Has("explain")) {
      out << "(--explain's default gives way to the tuned choice above)\n";
    }
  }
  if (parser.Has("explain")) {
    if (compiler.target_object == nullptr) {
      err << "tile-run: error: --explain: this binary cannot look up the target '"
          << compiler.target << "'\n";
      return 2;
    }
    bool lowers = true;
    if (as_written) {
      for (const Kernel& each : module->kernels) {
        if (each.get() != *kernel) continue;
        lowers = ExplainAsWritten(each, options.dims, parser.Has("static-shapes"),
                                  *compiler.target_object, out);
      }
    } else {
      lowers = Explain(*op, options.dims, order, parser.Has("static-shapes"),
                       *compiler.target_object, out, given ? &*given : nullptr);
    }
    if (compiler.device == nullptr) {  // explaining only
      if (!lowers) {
        err << "tile-run: error: --explain: kernel '" << name << "' does not lower for "
            << compiler.target << " (the reason is above)\n";
        return 1;
      }
      return 0;
    }
  }
  runtime::Device& device = *compiler.device;
  if (tune) {
    if (int status =
            Autotune(parser, *op, options, order, compiler, *module, out, err, progress_bar);
        status >= 0) {
      return status;
    }
  }

  // Kernels being replaced stay alive until the end.
  std::vector<Kernel> replaced;
  const bool static_shapes = parser.Has("static-shapes");
  for (Kernel& each : module->kernels) {
    if (each->name != name) continue;
    // With --static-shapes every dim is compiled in; else the dims that size fragments are,
    // and where the target specializes on divisibility, the others' classes are compiled in
    // as requirements, as the runtimes compile a call.
    absl::StatusOr<RunSpecialization> run =
        SpecializeAsRun(each, options.dims, static_shapes,
                        compiler.target_object ? compiler.target_object->info().get() : nullptr);
    if (!run.ok()) {
      err << "tile-run: error: " << path << ": " << run.status().message() << "\n";
      return 2;
    }
    if (!static_shapes && !run->compiled_in.empty()) {
      out << "specialized " << absl::StrJoin(run->compiled_in, ", ")
          << " (sizing fragments, so compiled in as constants)\n";
    }
    if (!run->requirements.empty()) {
      out << "divisibility " << absl::StrJoin(run->requirements, ", ")
          << " (compiled in; the shapes stay dynamic)\n";
    }
    options.specialized_dims.insert(options.specialized_dims.end(), run->compiled_in.begin(),
                                    run->compiled_in.end());
    if (run->kernel == each) continue;
    replaced.push_back(each);
    each = std::move(run->kernel);
  }
  std::unique_ptr<runtime::LoadedKernel> owned;
  runtime::LoadedKernel* loaded = nullptr;
  std::string cache_line = "off (this binary compiles on the device)";
  if (compiler.cache != nullptr && !parser.Has("dump-cubin")) {
    absl::StatusOr<runtime::jit::CachedKernel> cached = compiler.cache->Get(*module, name);
    if (!cached.ok()) {
      err << "tile-run: error: " << path << ": " << cached.status().message() << "\n";
      return 1;
    }
    loaded = cached->kernel;
    const std::optional<runtime::jit::DiskCache>& disk = compiler.cache->disk();
    cache_line = absl::StrCat(
        std::string(runtime::jit::CacheSourceName(cached->source)), ", key ", cached->key,
        disk ? absl::StrCat(" in ", disk->directory()) : std::string(" (memory only)"));
  } else {
    absl::StatusOr<std::unique_ptr<runtime::LoadedKernel>> compiled;
    if (compiler.backend != nullptr) {
      absl::StatusOr<runtime::jit::CompiledKernel> fresh = compiler.backend->Compile(*module, name);
      compiled = fresh.ok()
                     ? std::move(fresh->kernel)
                     : absl::StatusOr<std::unique_ptr<runtime::LoadedKernel>>(fresh.status());
      cache_line = "bypassed (--dump-cubin)";
    } else {
      compiled = device.Load(*module, name);
    }
    if (!compiled.ok()) {
      err << "tile-run: error: " << path << ": " << compiled.status().message() << "\n";
      return 1;
    }
    owned = *std::move(compiled);
    loaded = owned.get();
  }
  if (parser.Has("dump-cubin")) {
    absl::Status dumped = DumpArtifacts(*loaded, device.name(), parser.Get("dump-cubin"));
    if (!dumped.ok()) {
      err << "tile-run: error: " << dumped.message() << "\n";
      return 1;
    }
  }
  out << "kernel " << name << " from " << path << " on " << device.description() << "\n"
      << "  shapes  " << FormatShapes(options.dims, order) << "\n"
      << "  seed    " << options.seed << "\n";
  if (files) {
    out << "  cache   " << cache_line << "\n";
    return ReportFileRun(device, *loaded, *files, options, path, out, err);
  }
  // The cases RunKernel runs: every one with --check, the first without. `kernel` may be
  // gone (--config and --autotune replace the module); the loaded one has its parameters.
  const ops::OpCase no_op{};
  for (ops::InputCase input_case : ops::kInputCases) {
    out << (input_case == ops::kInputCases[0] ? "  inputs  " : "          ")
        << ops::InputCaseName(input_case) << ": "
        << ops::DescribeInputs(op ? *op : no_op, loaded->signature(), input_case) << "\n";
    if (!options.check) break;
  }
  out << "  cache   " << cache_line << "\n";
  absl::StatusOr<RunResult> result = RunKernel(device, *loaded, op, options);
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
  FileFlags file_flags;
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
  options.iters = *iters;
  options.warmup = *warmup;
  const GivenValues given{*std::move(dims), *std::move(scalars)};
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

  for (const char* flag : {"dump-cubin", "cache-dir"}) {
    if (parser.Has(flag) && parser.Get(flag).empty()) {
      err << "tile-run: error: --" << flag << " needs a folder\n";
      return 2;
    }
  }
  const bool all = parser.Has("all");
  if (all &&
      (!parser.positional().empty() || parser.Has("kernel") || parser.Has("shapes") ||
       parser.Has("in") || parser.Has("out") || parser.Has("expect") || parser.Has("scalars") ||
       parser.Has("autotune") || parser.Has("explain") || parser.Has("cache-dir"))) {
    err << "tile-run: error: --all runs every operator at its own shapes and config; it takes "
           "no FILE, --kernel, --shapes, --scalars, --in, --out, --expect, --autotune, --explain "
           "or "
           "--cache-dir\n";
    return 2;
  }
  if (!all && parser.positional().size() != 1) {
    err << "tile-run: error: expected exactly one FILE (or --all, or --list); see --help\n";
    return 2;
  }

  const std::string target = parser.Get("target");
  // The target's name is checked first, by the one parser of target names, so that a bad option
  // is named as such whatever device would open it.
  std::shared_ptr<const targets::Target> resolved_target;
  if (env.resolve_target) {
    absl::StatusOr<std::shared_ptr<const targets::Target>> resolved = env.resolve_target(target);
    if (!resolved.ok()) {
      err << "tile-run: error: --target: " << resolved.status().message() << "\n";
      return 2;
    }
    resolved_target = *std::move(resolved);
  }
  // --explain alone describes compile-time choices: the target, not a device, answers it.
  const bool explain_only = parser.Has("explain") && !parser.Has("check") && !parser.Has("bench") &&
                            !parser.Has("autotune") && !parser.Has("ragged");
  if (!all && explain_only && resolved_target != nullptr) {
    Compiler compiler;
    compiler.target = target;
    compiler.target_object = std::move(resolved_target);
    return RunFile(parser, options, given, file_flags, compiler, suite, out, err, env.progress_bar);
  }
  if (!all && env.open_jit_backend) {
    absl::StatusOr<std::unique_ptr<runtime::jit::JitBackend>> backend =
        env.open_jit_backend(target);
    if (!backend.ok()) {
      err << "tile-run: error: --target=" << target << ": " << backend.status().message() << "\n";
      return 1;
    }
    runtime::jit::KernelCacheOptions cache_options =
        runtime::jit::KernelCacheOptions::FromEnvironment();
    // TILE_DISABLE_CACHE=1 wins over --cache-dir: it is the switch for every tool.
    const char* disable = std::getenv("TILE_DISABLE_CACHE");
    if (parser.Has("cache-dir") && !(disable != nullptr && std::string(disable) == "1")) {
      cache_options.directory = parser.Get("cache-dir");
    }
    cache_options.warn = [&err](const std::string& message) {
      err << "tile-run: warning: " << message << "\n";
    };
    Compiler compiler;
    compiler.backend = backend->get();
    compiler.target_object = std::shared_ptr<const targets::Target>(
        std::shared_ptr<const targets::Target>{}, &(*backend)->target());
    compiler.device = &(*backend)->device();
    compiler.cache = std::make_unique<runtime::jit::KernelCache>(**backend, cache_options);
    compiler.target = target;
    return RunFile(parser, options, given, file_flags, compiler, suite, out, err, env.progress_bar);
  }
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
  Compiler compiler;
  compiler.device = device->get();
  compiler.target = target;
  return RunFile(parser, options, given, file_flags, compiler, suite, out, err, env.progress_bar);
}

}  // namespace tile_ir::tools
