// tile-run's flags, and the command line read into a RunRequest with its usage errors decided.
#include "tools/tile_run/run_request.h"

#include <chrono>
#include <cstdint>
#include <ostream>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "tools/common/assignments.h"

namespace tile_ir::tools {
namespace {

absl::StatusOr<int> PositiveCount(const cli::ArgParser& parser, const std::string& flag,
                                  int minimum) {
  int value = 0;
  if (!absl::SimpleAtoi(parser.Get(flag), &value) || value < minimum) {
    return absl::InvalidArgumentError(absl::StrCat("--", flag, " must be an integer >= ", minimum,
                                                   ", got '", parser.Get(flag), "'"));
  }
  return value;
}

// --check, --bench, --iters, --warmup, and --shapes and --scalars as given (the values are read
// once the kernel is known).
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

}  // namespace

cli::ArgParser MakeRunParser() {
  cli::ArgParser parser(
      "tile-run", "[options] FILE | OP | --all | --list",
      "Runs a kernel of FILE (.tile, .tilepb or .json), or the operator OP of the suite, on a\n"
      "device with seeded random inputs, poisoned outputs and, with --check, compares every\n"
      "output with the float64 reference of the operator-suite entry named like the kernel.\n"
      "A kernel is matched to its operator by name, then its signature is checked: the\n"
      "parameter names and order, dtypes, ranks, shape expressions and dimensions must be the\n"
      "operator's (--list prints each), else tile-run refuses naming the difference; a kernel\n"
      "named like no operator runs with --shapes but cannot be checked.\n"
      "FILE runs as written, even where its kernel is a suite operator's with a config space:\n"
      "only --config or --autotune run another config. OP (a name, no file) runs the\n"
      "operator at the config chosen for the shapes (a tuning cached for them, else the\n"
      "default, which --explain explains).\n"
      "--check runs the kernel twice, on standard normal inputs and on the operator's own\n"
      "input ranges (integer inputs keep theirs), and reports both; one --seed replays both.\n"
      "Kernels compile through the JIT's kernel cache, so a second run loads the binary.\n"
      "--in/--out/--expect run any kernel on your own .npy arrays instead: no suite entry,\n"
      "no random inputs; every buffer needs one of them, and one without --in starts\n"
      "poisoned (NaN).\n"
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
       "print what runs and what the target's lowering decides for it (its remarks: e.g. "
       "whether sm_90a gives the copies to a producer warpgroup): for OP, its default config "
       "for these shapes and target (or --config's) and why; for FILE, or a kernel without a "
       "config space, the kernel as written; alone it opens no device, so GPU targets are "
       "explained anywhere"});
  parser.Add({"help", "", "show this help"});
  return parser;
}

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

}  // namespace tile_ir::tools
