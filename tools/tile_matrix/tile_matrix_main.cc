// tile-matrix's subcommands merge, query and render, the dispatch to them and run
// (run_command.h), and the binaries' environment.
#include "tools/tile_matrix/tile_matrix_main.h"

#include <unistd.h>

#include <array>
#include <cstdio>
#include <ctime>
#include <map>
#include <optional>
#include <ostream>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tools/common/cli.h"
#include "tools/tile_matrix/code_hash_cache.h"
#include "tools/tile_matrix/current_code.h"
#include "tools/tile_matrix/record.h"
#include "tools/tile_matrix/render.h"
#include "tools/tile_matrix/run_command.h"
#include "tools/tile_matrix/subcommand_common.h"

namespace tile_ir::matrix {
namespace {

constexpr char kUsage[] =
    "Usage: tile-matrix SUBCOMMAND [options]\n\n"
    "The support matrix: per operator of the suite and per target one status with its\n"
    "evidence (verified, compiled, generated, failed, unsupported).\n\n"
    "Subcommands:\n"
    "  run      probe the suite on the backends at hand and record the statuses\n"
    "  merge    fold records written elsewhere (run --out) into the committed matrix\n"
    "  query    print the records of an operator, with their evidence\n"
    "  render   write docs/SUPPORT_MATRIX.md and docs/support_matrix/index.html\n\n"
    "`tile-matrix SUBCOMMAND --help` describes each.\n";

int MergeCommand(int argc, char** argv, std::ostream& out, std::ostream& err,
                 const TileMatrixEnvironment& env) {
  cli::ArgParser parser(
      absl::StrCat(env.program, " merge"), "[options] FILE...",
      "Folds the records of each FILE (written by `run --out` on another machine) into the\n"
      "committed records: a newer record replaces an older one of the same cell, except\n"
      "that a weaker success (generated, compiled) never replaces a stronger one for the\n"
      "same code. Then re-renders the pages. Every record is checked for its evidence first;\n"
      "a bad file changes nothing.");
  parser.Add({"no-render", "", "merge without rewriting the Markdown and HTML pages"});
  AddPathOptions(parser, /*with_outputs=*/true);
  if (std::optional<int> done = ParseCommandLine(parser, argc, argv, out, err)) return *done;
  if (parser.positional().empty()) {
    err << parser.program() << ": which records? give one or more FILEs (see --help)\n";
    return 2;
  }
  std::string records_path = Path(env, parser, "records", kRecordsPath);
  absl::StatusOr<std::vector<Record>> matrix = ReadRecordsFileOrEmpty(records_path);
  if (!matrix.ok()) return Fail(parser, err, matrix.status().message());
  std::map<MergeAction, int> actions;
  for (const std::string& file : parser.positional()) {
    absl::StatusOr<std::vector<Record>> incoming = ReadRecordsFile(file);
    if (!incoming.ok()) return Fail(parser, err, incoming.status().message());
    for (const MergeEvent& event : MergeRecords(*matrix, *incoming)) {
      ++actions[event.action];
      if (event.action != MergeAction::kAdded && event.action != MergeAction::kReplaced)
        out << "  kept " << event.cell << ": " << event.what << "\n";
      else
        out << "  " << (event.action == MergeAction::kAdded ? "added " : "updated ") << event.cell
            << ": " << event.what << "\n";
    }
  }
  out << actions[MergeAction::kAdded] << " added, " << actions[MergeAction::kReplaced]
      << " replaced, " << actions[MergeAction::kKeptOlder] + actions[MergeAction::kKeptStronger]
      << " kept as they were\n";
  CurrentCode code = DescribeCurrentCode(*env.suite, env.make_probers(), env.code_hash_cache);
  PrintStale(*matrix, code, err);
  if (absl::Status written = WriteRecordsFile(records_path, *matrix); !written.ok()) {
    return Fail(parser, err, written.message());
  }
  out << "wrote " << records_path << " (" << matrix->size() << " records)\n";
  if (parser.Has("no-render")) return 0;
  return Render(*matrix, code, env, parser, records_path, false, out, err);
}

bool OpMatches(const std::string& name, const std::string& wanted) {
  return name == wanted || name.rfind(wanted + "_", 0) == 0;
}

int QueryCommand(int argc, char** argv, std::ostream& out, std::ostream& err,
                 const TileMatrixEnvironment& env) {
  cli::ArgParser parser(
      absl::StrCat(env.program, " query"), "[--op=NAME] [--backend=B] [--dtype=D] [--target=T]",
      "Prints the committed records that match, each with its evidence. --op matches an\n"
      "operator's name or the names it begins (gemm matches gemm_f16 and gemm_bf16).\n"
      "Exit status 0 when a record matched, 1 when none did.\n"
      "Example: tile-matrix query --op=gemm --backend=hip");
  parser.Add({"op", "NAME", "operator name or name prefix (gemm, flash_attn, softmax_f16)"});
  parser.Add({"backend", "B", "cpu, cuda, hip or metal"});
  parser.Add({"target", "T", "one target, e.g. cuda:sm_90a"});
  parser.Add({"dtype", "D", "the operator's dtype, e.g. bf16"});
  parser.Add({"brief", "", "one line per record, no evidence"});
  AddPathOptions(parser, /*with_outputs=*/false);
  if (std::optional<int> done = ParseOptionsOnly(parser, argc, argv, out, err, "; use --op=NAME")) {
    return *done;
  }
  std::string records_path = Path(env, parser, "records", kRecordsPath);
  absl::StatusOr<std::vector<Record>> records = ReadRecordsFile(records_path);
  if (!records.ok()) return Fail(parser, err, records.status().message());
  CurrentCode code = DescribeCurrentCode(*env.suite, env.make_probers(), env.code_hash_cache);
  std::vector<const Record*> found;
  for (const Record& record : *records) {
    if (parser.Has("op") && !OpMatches(record.op, parser.Get("op"))) continue;
    if (parser.Has("backend") && record.backend != parser.Get("backend")) continue;
    if (parser.Has("target") && record.target != parser.Get("target")) continue;
    if (parser.Has("dtype") && record.dtype != parser.Get("dtype")) continue;
    found.push_back(&record);
  }
  if (found.empty()) {
    std::set<std::string> ops, backends, dtypes;
    for (const Record& record : *records) {
      ops.insert(record.op);
      backends.insert(record.backend);
      dtypes.insert(record.dtype);
    }
    err << parser.program() << ": no record in " << records_path << " matches";
    for (const char* flag : {"op", "backend", "target", "dtype"}) {
      if (parser.Has(flag)) err << " --" << flag << "=" << parser.Get(flag);
    }
    err << "\n  operators: " << absl::StrJoin(ops, ", ")
        << "\n  backends: " << absl::StrJoin(backends, ", ")
        << "\n  dtypes: " << absl::StrJoin(dtypes, ", ") << "\n";
    return 1;
  }
  for (const Record* record : found) {
    std::string why = StaleReason(*record, code);
    out << CellName(*record) << ": " << CellSummary(*record)
        << (why.empty() ? "" : " (stale: " + why + ")") << "\n";
    if (!parser.Has("brief")) out << FormatEvidence(*record);
  }
  return 0;
}

int RenderCommand(int argc, char** argv, std::ostream& out, std::ostream& err,
                  const TileMatrixEnvironment& env) {
  cli::ArgParser parser(
      absl::StrCat(env.program, " render"), "[options]",
      "Writes the matrix from the records: a Markdown table and a self-contained HTML page\n"
      "whose cells open to the evidence. Records whose kernel, lowering or generated code\n"
      "changed since they were made are marked stale (judging the code generates every\n"
      "operator for every target: a minute unoptimized the first time, then read from the\n"
      "code-hash cache of this build). With --check, compares instead of writing (exit 1 when\n"
      "a page differs).");
  AddPathOptions(parser, /*with_outputs=*/true);
  parser.Add({"check", "", "compare the pages with what render would write; write nothing"});
  if (std::optional<int> done = ParseOptionsOnly(parser, argc, argv, out, err)) return *done;
  std::string records_path = Path(env, parser, "records", kRecordsPath);
  absl::StatusOr<std::vector<Record>> records = ReadRecordsFile(records_path);
  if (!records.ok()) return Fail(parser, err, records.status().message());
  CurrentCode code = DescribeCurrentCode(*env.suite, env.make_probers(), env.code_hash_cache);
  PrintStale(*records, code, err);
  return Render(*records, code, env, parser, records_path, parser.Has("check"), out, err);
}

std::string RunCapture(const char* command) {
  std::string output;
  FILE* pipe = popen(command, "r");
  if (pipe == nullptr) return output;
  std::array<char, 256> buffer;
  while (fgets(buffer.data(), buffer.size(), pipe) != nullptr) output += buffer.data();
  if (pclose(pipe) != 0) return "";
  while (!output.empty() && (output.back() == '\n' || output.back() == ' ')) output.pop_back();
  return output;
}

}  // namespace

TileMatrixEnvironment DefaultEnvironment(std::string program,
                                         std::function<Probers()> make_probers) {
  TileMatrixEnvironment env;
  env.program = std::move(program);
  env.make_probers = std::move(make_probers);
  env.suite = &ops::OperatorSuite();
  if (const char* workspace = std::getenv("BUILD_WORKSPACE_DIRECTORY")) env.root = workspace;
  env.code_hash_cache = CodeHashCacheDirectory().value_or("");
  std::string root = env.root;
  env.commit = [root] {
    std::string in = root.empty() ? "" : absl::StrCat("-C '", root, "' ");
    std::string head =
        RunCapture(absl::StrCat("git ", in, "rev-parse --short HEAD 2>/dev/null").c_str());
    if (head.empty()) return std::string("unknown");
    std::string changes = RunCapture(
        absl::StrCat("git ", in, "status --porcelain --untracked-files=no 2>/dev/null").c_str());
    return changes.empty() ? head : head + "+changes";
  };
  env.now = [] {
    std::time_t now = std::time(nullptr);
    std::tm utc;
    gmtime_r(&now, &utc);
    char buffer[32];
    std::strftime(buffer, sizeof(buffer), "%Y-%m-%dT%H:%M:%SZ", &utc);
    return std::string(buffer);
  };
  env.machine = [] {
    char name[256] = {};
    if (gethostname(name, sizeof(name) - 1) != 0) return std::string("unknown");
    return std::string(name);
  };
  return env;
}

int TileMatrixMain(int argc, char** argv, std::ostream& out, std::ostream& err,
                   const TileMatrixEnvironment& env) {
  if (argc < 2) {
    err << kUsage;
    return 2;
  }
  std::string command = argv[1];
  if (command == "--help" || command == "-h" || command == "help") {
    out << kUsage;
    return 0;
  }
  // The subcommand stands in for argv[0] of its own command line.
  if (command == "run") return RunCommand(argc - 1, argv + 1, out, err, env);
  if (command == "merge") return MergeCommand(argc - 1, argv + 1, out, err, env);
  if (command == "query") return QueryCommand(argc - 1, argv + 1, out, err, env);
  if (command == "render") return RenderCommand(argc - 1, argv + 1, out, err, env);
  err << env.program << ": unknown subcommand '" << command
      << "'; expected run, merge, query or render (see --help)\n";
  return 2;
}

}  // namespace tile_ir::matrix
