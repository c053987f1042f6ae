// What tile-matrix's subcommands share: path flags, parsing, failures and the rendered pages.
#include "tools/tile_matrix/subcommand_common.h"

#include <cstdio>
#include <fstream>
#include <ostream>
#include <sstream>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "tools/tile_matrix/render.h"

namespace tile_ir::matrix {
namespace {

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

}  // namespace

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

std::optional<int> ParseOptionsOnly(cli::ArgParser& parser, int argc, char** argv,
                                    std::ostream& out, std::ostream& err,
                                    absl::string_view instead) {
  if (std::optional<int> done = ParseCommandLine(parser, argc, argv, out, err)) return done;
  if (!parser.positional().empty()) {
    err << parser.program() << ": unexpected argument '" << parser.positional().front() << "'"
        << instead << " (see --help)\n";
    return 2;
  }
  return std::nullopt;
}

int Fail(const cli::ArgParser& parser, std::ostream& err, absl::string_view message) {
  err << parser.program() << ": " << message << "\n";
  return 1;
}

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

}  // namespace tile_ir::matrix
