// `tile-matrix run` in stages: parse the flags and what to probe -> read the records -> probe each
// (operator, target) -> report, then write the records alone or merge and render them.
#include "tools/tile_matrix/run_command.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "tools/common/cli.h"
#include "tools/tile_matrix/current_code.h"
#include "tools/tile_matrix/prober.h"
#include "tools/tile_matrix/record.h"
#include "tools/tile_matrix/render.h"
#include "tools/tile_matrix/subcommand_common.h"

namespace tile_ir::matrix {
namespace {

cli::ArgParser MakeRunParser(const TileMatrixEnvironment& env,
                             const std::vector<std::string>& backends) {
  cli::ArgParser parser(
      absl::StrCat(env.program, " run"), "[options]",
      absl::StrCat(
          "Probes every operator of the suite on each backend's targets as far as this machine\n"
          "allows: generate the source; compile it when the backend's real compiler is here;\n"
          "run it and check it against the float64 reference when the hardware is here. Each\n"
          "(operator, target) gets one record with its evidence. With --out the records go to\n"
          "FILE alone (fold them in with `merge`, here or after a run on another machine); with\n"
          "--merge they are merged into the committed records and the committed pages are\n"
          "re-rendered (three files under docs/). One of the two is required.\n"
          "This binary's backends: ",
          absl::StrJoin(backends, ", "), ".\nExit status 1 when a cell failed (it is recorded)."));
  parser.Add(
      {"backends", "LIST", "backends to probe, comma-separated", absl::StrJoin(backends, ",")});
  parser.Add({"ops", "LIST", "operators to probe, comma-separated (default: the whole suite)"});
  parser.Add({"seed", "N", "seed of the random inputs of the runs", "1"});
  parser.Add({"out", "FILE", "write the new records to FILE instead of merging them"});
  parser.Add({"commit", "REV", "the project commit to record (default: git rev-parse)"});
  parser.Add({"merge", "", "merge into the committed records and re-render the pages"});
  parser.Add(
      {"no-render", "", "with --merge: merge without rewriting the Markdown and HTML pages"});
  AddPathOptions(parser, /*with_outputs=*/true);
  return parser;
}

// What `run` probes, read from --backends, --ops and --seed.
struct ProbePlan {
  std::vector<BackendProber*> backends;
  std::vector<const ops::OpCase*> ops;
  uint64_t seed = 1;
};

// --backends' probers; an unknown name is a usage error (2).
std::optional<int> ChooseBackends(const cli::ArgParser& parser, const Probers& probers,
                                  const std::vector<std::string>& backends, ProbePlan& plan,
                                  std::ostream& err) {
  for (absl::string_view name : absl::StrSplit(parser.Get("backends"), ',', absl::SkipEmpty())) {
    auto it = std::find_if(probers.begin(), probers.end(),
                           [&](const auto& p) { return p->backend() == name; });
    if (it == probers.end()) {
      err << parser.program() << ": --backends: this binary has no backend '" << name
          << "'; it has: " << absl::StrJoin(backends, ", ") << "\n";
      return 2;
    }
    plan.backends.push_back(it->get());
  }
  return std::nullopt;
}

// --ops' operators, else the whole suite; then --seed. A bad value is a usage error (2).
std::optional<int> ChooseOps(const cli::ArgParser& parser, const std::vector<ops::OpCase>& suite,
                             ProbePlan& plan, std::ostream& err) {
  if (parser.Has("ops")) {
    for (absl::string_view name : absl::StrSplit(parser.Get("ops"), ',', absl::SkipEmpty())) {
      const ops::OpCase* op = nullptr;
      for (const ops::OpCase& each : suite) {
        if (each.name == name) op = &each;
      }
      if (op == nullptr) {
        err << parser.program() << ": --ops: no operator '" << name
            << "' in the suite (tile-run --list lists them)\n";
        return 2;
      }
      plan.ops.push_back(op);
    }
  } else {
    for (const ops::OpCase& op : suite) plan.ops.push_back(&op);
  }
  if (!absl::SimpleAtoi(parser.Get("seed"), &plan.seed)) {
    err << parser.program() << ": --seed: '" << parser.Get("seed") << "' is not a number\n";
    return 2;
  }
  return std::nullopt;
}

// What this machine can do on `target`: generate; compile with what; run on what.
void AnnounceTarget(const TargetSpec& target, const MachineFacts& facts, std::ostream& err) {
  err << target.target << ": generate; "
      << (facts.compiler.empty() ? absl::StrCat("no compile (", facts.no_compiler, ")")
                                 : absl::StrCat("compile with ", facts.compiler))
      << "; "
      << (facts.hardware.empty()
              ? absl::StrCat("no run (",
                             facts.compiler.empty() ? "nothing to run" : facts.no_hardware, ")")
              : absl::StrCat("run on ", facts.hardware))
      << "\n";
}

// Probes every operator of the plan on every target of its backends, a progress line per cell on
// `err`; `counts` tallies the statuses. 1 when a record is invalid (nothing is recorded then).
std::optional<int> ProbeAll(const cli::ArgParser& parser, const ProbePlan& plan,
                            const ProbeContext& context, std::vector<Record>& records,
                            std::map<std::string, int>& counts, std::ostream& err) {
  size_t total = 0;
  for (BackendProber* prober : plan.backends) total += prober->Targets().size() * plan.ops.size();
  const auto start = std::chrono::steady_clock::now();
  for (BackendProber* prober : plan.backends) {
    for (const TargetSpec& target : prober->Targets()) {
      MachineFacts facts = prober->Discover(target);
      AnnounceTarget(target, facts, err);
      for (const ops::OpCase* op : plan.ops) {
        Record record = ProbeOperator(*prober, target, facts, *op, context);
        double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        err << "[" << records.size() + 1 << "/" << total << ", " << static_cast<int>(seconds)
            << "s] " << CellName(record) << ": " << CellSummary(record);
        if (record.status == Status::kFailed || record.status == Status::kUnsupported)
          err << ": " << record.detail.substr(0, record.detail.find('\n'));
        err << "\n";
        if (absl::Status valid = ValidateRecord(record); !valid.ok()) {
          err << parser.program() << ": internal error, refusing to record: " << valid.message()
              << "\n";
          return 1;
        }
        ++counts[std::string(StatusName(record.status))];
        records.push_back(std::move(record));
      }
    }
  }
  return std::nullopt;
}

// The new records folded into `matrix`, written to `records_path`, and the pages re-rendered
// unless --no-render; `result` unless writing or rendering fails.
int MergeAndRender(const cli::ArgParser& parser, const TileMatrixEnvironment& env,
                   const std::string& records_path, std::vector<Record>& matrix,
                   const std::vector<Record>& records, int result, std::ostream& out,
                   std::ostream& err) {
  std::vector<MergeEvent> events = MergeRecords(matrix, records);
  for (const MergeEvent& event : events) {
    if (event.action == MergeAction::kKeptStronger)
      out << "  kept " << event.cell << ": " << event.what << "\n";
  }
  if (absl::Status written = WriteRecordsFile(records_path, matrix); !written.ok()) {
    return Fail(parser, err, written.message());
  }
  out << "wrote " << records_path << " (" << matrix.size() << " records)\n";
  if (parser.Has("no-render")) return result;
  CurrentCode code = DescribeCurrentCode(*env.suite, env.make_probers(), env.code_hash_cache);
  int rendered = Render(matrix, code, env, parser, records_path, false, out, err);
  return rendered != 0 ? rendered : result;
}

}  // namespace

int RunCommand(int argc, char** argv, std::ostream& out, std::ostream& err,
               const TileMatrixEnvironment& env) {
  Probers probers = env.make_probers();
  std::vector<std::string> backends;
  for (const auto& prober : probers) backends.push_back(prober->backend());
  cli::ArgParser parser = MakeRunParser(env, backends);
  if (std::optional<int> done = ParseOptionsOnly(parser, argc, argv, out, err)) return *done;
  // Asked before the long run: the committed files change only when asked to.
  if (parser.Has("out") && parser.Has("merge")) {
    err << parser.program() << ": --out and --merge exclude each other (see --help)\n";
    return 2;
  }
  if (!parser.Has("out") && !parser.Has("merge")) {
    err << parser.program() << ": where do the records go? --out=FILE writes them to FILE; --merge "
        << "merges them into " << kRecordsPath << " and re-renders " << kMarkdownPath << " and "
        << kHtmlPath << " (see --help)\n";
    return 2;
  }
  if (parser.Has("no-render") && !parser.Has("merge")) {
    err << parser.program() << ": --no-render goes with --merge (--out renders nothing)\n";
    return 2;
  }
  ProbePlan plan;
  if (std::optional<int> done = ChooseBackends(parser, probers, backends, plan, err)) return *done;
  if (std::optional<int> done = ChooseOps(parser, *env.suite, plan, err)) return *done;

  std::string records_path = Path(env, parser, "records", kRecordsPath);
  std::vector<Record> matrix;
  if (parser.Has("merge")) {
    // Read before the long run, so that a bad file stops it at once.
    absl::StatusOr<std::vector<Record>> existing = ReadRecordsFileOrEmpty(records_path);
    if (!existing.ok()) return Fail(parser, err, existing.status().message());
    matrix = *std::move(existing);
  }
  ProbeContext context;
  context.commit = parser.Has("commit") ? parser.Get("commit") : env.commit();
  context.date = env.now();
  context.machine = env.machine();
  context.seed = plan.seed;

  std::vector<Record> records;
  std::map<std::string, int> counts;
  if (std::optional<int> done = ProbeAll(parser, plan, context, records, counts, err)) return *done;
  std::vector<std::string> tally;
  for (const auto& [name, count] : counts) tally.push_back(absl::StrCat(count, " ", name));
  out << records.size() << " records: " << absl::StrJoin(tally, ", ") << "\n";
  int result = counts.count("failed") ? 1 : 0;
  if (parser.Has("merge")) {
    return MergeAndRender(parser, env, records_path, matrix, records, result, out, err);
  }
  if (absl::Status written = WriteRecordsFile(parser.Get("out"), records); !written.ok()) {
    return Fail(parser, err, written.message());
  }
  out << "wrote " << parser.Get("out") << "; fold it in with `tile-matrix merge "
      << parser.Get("out") << "`\n";
  return result;
}

}  // namespace tile_ir::matrix
