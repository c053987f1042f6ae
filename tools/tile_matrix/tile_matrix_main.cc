// tile-matrix's subcommands: command lines, progress and answers.
#include "tools/tile_matrix/tile_matrix_main.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <set>
#include <sstream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "tools/common/cli.h"
#include "tools/tile_matrix/current_code.h"
#include "tools/tile_matrix/record.h"
#include "tools/tile_matrix/render.h"

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

std::string Path(const TileMatrixEnvironment& env, const cli::ArgParser& args,
                 const std::string& flag, const std::string& default_path) {
  if (args.Has(flag)) return args.Get(flag);
  return env.root.empty() ? default_path : absl::StrCat(env.root, "/", default_path);
}

void AddPathOptions(cli::ArgParser& parser, bool with_outputs) {
  parser.Add({"records", "FILE", "the records file", kRecordsPath});
  if (with_outputs) {
    parser.Add({"markdown", "FILE", "the Markdown matrix", kMarkdownPath});
    parser.Add({"html", "FILE", "the HTML matrix with the evidence", kHtmlPath});
  }
}

// Adds --help and parses argv (argv[0] the subcommand). Returns the exit status
// when the subcommand is done already (0 after --help, 2 after a bad command
// line), nullopt when it goes on.
std::optional<int> ParseCommandLine(cli::ArgParser& parser, int argc, char** argv,
                                    std::ostream& out, std::ostream& err) {
  parser.Add({"help", "", "show this help"});
  absl::Status parsed = parser.Parse(argc, argv);
  if (!parsed.ok()) {
    err << parser.program() << ": " << parsed.message() << "\n";
    return 2;
  }
  if (parser.Has("help")) {
    out << parser.Help();
    return 0;
  }
  return std::nullopt;
}

// ParseCommandLine for a subcommand that takes options alone: an argument is
// refused, `instead` saying what to give.
std::optional<int> ParseOptionsOnly(cli::ArgParser& parser, int argc, char** argv,
                                    std::ostream& out, std::ostream& err,
                                    absl::string_view instead = "") {
  if (std::optional<int> done = ParseCommandLine(parser, argc, argv, out, err)) return done;
  if (!parser.positional().empty()) {
    err << parser.program() << ": unexpected argument '" << parser.positional().front() << "'"
        << instead << " (see --help)\n";
    return 2;
  }
  return std::nullopt;
}

// Reports an error that stops the subcommand; returns its exit status, 1.
int Fail(const cli::ArgParser& parser, std::ostream& err, absl::string_view message) {
  err << parser.program() << ": " << message << "\n";
  return 1;
}

absl::Status WriteTextFile(const std::string& path, const std::string& text) {
  std::string temp = path + ".tmp";
  {
    std::ofstream file(temp, std::ios::binary | std::ios::trunc);
    file << text;
    if (!file.flush()) return absl::UnavailableError(absl::StrCat(path, ": cannot write"));
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    std::remove(temp.c_str());
    return absl::UnavailableError(absl::StrCat(path, ": cannot replace the file"));
  }
  return absl::OkStatus();
}

std::string ReadTextFile(const std::string& path, bool& found) {
  std::ifstream file(path, std::ios::binary);
  found = static_cast<bool>(file);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

// The records path as the rendered pages name it: relative to the root.
std::string DisplayedRecordsPath(const TileMatrixEnvironment& env, const std::string& path) {
  std::string prefix = env.root.empty() ? "" : env.root + "/";
  if (!prefix.empty() && path.rfind(prefix, 0) == 0) return path.substr(prefix.size());
  return path;
}

// Writes the pages (--markdown, --html) rendered from `records`, or with
// `check` compares them with what is there.
int Render(const std::vector<Record>& records, const CurrentCode& code,
           const TileMatrixEnvironment& env, const cli::ArgParser& parser,
           const std::string& records_path, bool check, std::ostream& out, std::ostream& err) {
  std::string shown = DisplayedRecordsPath(env, records_path);
  std::vector<std::pair<std::string, std::string>> pages = {
      {Path(env, parser, "markdown", kMarkdownPath), RenderMarkdown(records, code, shown)},
      {Path(env, parser, "html", kHtmlPath), RenderHtml(records, code, shown)}};
  int status = 0;
  for (const auto& [path, text] : pages) {
    if (check) {
      bool found = false;
      std::string existing = ReadTextFile(path, found);
      if (existing != text) {
        err << "render: " << path << (found ? " differs from" : " is missing;")
            << " what render writes from " << records_path
            << "; run `bazel run //tools:tile-matrix -- render`\n";
        status = 1;
      } else {
        out << path << " is up to date\n";
      }
      continue;
    }
    if (absl::Status written = WriteTextFile(path, text); !written.ok()) {
      err << "render: " << written.message() << "\n";
      return 1;
    }
    out << "wrote " << path << "\n";
  }
  return status;
}

void PrintStale(const std::vector<Record>& records, const CurrentCode& code, std::ostream& err) {
  int stale = 0;
  for (const Record& record : records) {
    std::string why = StaleReason(record, code);
    if (why.empty()) continue;
    if (++stale <= 10) err << "  stale: " << CellName(record) << ": " << why << "\n";
  }
  if (stale > 10) err << "  ... and " << stale - 10 << " more stale records\n";
}

int RunCommand(int argc, char** argv, std::ostream& out, std::ostream& err,
               const TileMatrixEnvironment& env) {
  Probers probers = env.make_probers();
  std::vector<std::string> backends;
  for (const auto& prober : probers) backends.push_back(prober->backend());
  cli::ArgParser parser(
      absl::StrCat(env.program, " run"), "[options]",
      absl::StrCat(
          "Probes every operator of the suite on each backend's targets as far as this machine\n"
          "allows: generate the source; compile it when the backend's real compiler is here;\n"
          "run it and check it against the float64 reference when the hardware is here. Each\n"
          "(operator, target) gets one record with its evidence. The records are merged into\n"
          "the committed file and the pages re-rendered, or with --out written to FILE alone\n"
          "(for `merge` on another machine).\n"
          "This binary's backends: ",
          absl::StrJoin(backends, ", "), ".\nExit status 1 when a cell failed (it is recorded)."));
  parser.Add(
      {"backends", "LIST", "backends to probe, comma-separated", absl::StrJoin(backends, ",")});
  parser.Add({"ops", "LIST", "operators to probe, comma-separated (default: the whole suite)"});
  parser.Add({"seed", "N", "seed of the random inputs of the runs", "1"});
  parser.Add({"out", "FILE", "write the new records to FILE instead of merging them"});
  parser.Add({"commit", "REV", "the project commit to record (default: git rev-parse)"});
  parser.Add({"no-render", "", "merge without rewriting the Markdown and HTML pages"});
  AddPathOptions(parser, /*with_outputs=*/true);
  if (std::optional<int> done = ParseOptionsOnly(parser, argc, argv, out, err)) return *done;

  std::vector<BackendProber*> chosen;
  for (absl::string_view name : absl::StrSplit(parser.Get("backends"), ',', absl::SkipEmpty())) {
    auto it = std::find_if(probers.begin(), probers.end(),
                           [&](const auto& p) { return p->backend() == name; });
    if (it == probers.end()) {
      err << parser.program() << ": --backends: this binary has no backend '" << name
          << "'; it has: " << absl::StrJoin(backends, ", ") << "\n";
      return 2;
    }
    chosen.push_back(it->get());
  }
  std::vector<const ops::OpCase*> ops;
  if (parser.Has("ops")) {
    for (absl::string_view name : absl::StrSplit(parser.Get("ops"), ',', absl::SkipEmpty())) {
      const ops::OpCase* op = nullptr;
      for (const ops::OpCase& each : *env.suite) {
        if (each.name == name) op = &each;
      }
      if (op == nullptr) {
        err << parser.program() << ": --ops: no operator '" << name
            << "' in the suite (tile-run --list lists them)\n";
        return 2;
      }
      ops.push_back(op);
    }
  } else {
    for (const ops::OpCase& op : *env.suite) ops.push_back(&op);
  }
  uint64_t seed = 1;
  if (!absl::SimpleAtoi(parser.Get("seed"), &seed)) {
    err << parser.program() << ": --seed: '" << parser.Get("seed") << "' is not a number\n";
    return 2;
  }

  std::string records_path = Path(env, parser, "records", kRecordsPath);
  std::vector<Record> matrix;
  if (!parser.Has("out")) {
    // Read before the long run, so that a bad file stops it at once.
    absl::StatusOr<std::vector<Record>> existing = ReadRecordsFileOrEmpty(records_path);
    if (!existing.ok()) return Fail(parser, err, existing.status().message());
    matrix = *std::move(existing);
  }

  ProbeContext context;
  context.commit = parser.Has("commit") ? parser.Get("commit") : env.commit();
  context.date = env.now();
  context.machine = env.machine();
  context.seed = seed;

  std::vector<Record> records;
  std::map<std::string, int> counts;
  size_t total = 0;
  for (BackendProber* prober : chosen) total += prober->Targets().size() * ops.size();
  const auto start = std::chrono::steady_clock::now();
  for (BackendProber* prober : chosen) {
    for (const TargetSpec& target : prober->Targets()) {
      MachineFacts facts = prober->Discover(target);
      err << target.target << ": generate; "
          << (facts.compiler.empty() ? absl::StrCat("no compile (", facts.no_compiler, ")")
                                     : absl::StrCat("compile with ", facts.compiler))
          << "; "
          << (facts.hardware.empty()
                  ? absl::StrCat("no run (",
                                 facts.compiler.empty() ? "nothing to run" : facts.no_hardware, ")")
                  : absl::StrCat("run on ", facts.hardware))
          << "\n";
      for (const ops::OpCase* op : ops) {
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
  std::vector<std::string> tally;
  for (const auto& [name, count] : counts) tally.push_back(absl::StrCat(count, " ", name));
  out << records.size() << " records: " << absl::StrJoin(tally, ", ") << "\n";
  int result = counts.count("failed") ? 1 : 0;

  if (parser.Has("out")) {
    if (absl::Status written = WriteRecordsFile(parser.Get("out"), records); !written.ok()) {
      return Fail(parser, err, written.message());
    }
    out << "wrote " << parser.Get("out") << "; fold it in with `tile-matrix merge "
        << parser.Get("out") << "`\n";
    return result;
  }
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
  CurrentCode code = DescribeCurrentCode(*env.suite, probers);
  int rendered = Render(matrix, code, env, parser, records_path, false, out, err);
  return rendered != 0 ? rendered : result;
}

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
  CurrentCode code = DescribeCurrentCode(*env.suite, env.make_probers());
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
  CurrentCode code = DescribeCurrentCode(*env.suite, env.make_probers());
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
      "operator for every target). With --check, compares instead of writing (exit 1 when a\n"
      "page differs).");
  AddPathOptions(parser, /*with_outputs=*/true);
  parser.Add({"check", "", "compare the pages with what render would write; write nothing"});
  if (std::optional<int> done = ParseOptionsOnly(parser, argc, argv, out, err)) return *done;
  std::string records_path = Path(env, parser, "records", kRecordsPath);
  absl::StatusOr<std::vector<Record>> records = ReadRecordsFile(records_path);
  if (!records.ok()) return Fail(parser, err, records.status().message());
  CurrentCode code = DescribeCurrentCode(*env.suite, env.make_probers());
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
