// What tile-matrix's subcommands share: the path flags, the command line parsed with --help, a
// failure reported, and the pages rendered from the records.
#ifndef TOOLS_TILE_MATRIX_SUBCOMMAND_COMMON_H_
#define TOOLS_TILE_MATRIX_SUBCOMMAND_COMMON_H_

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "tools/common/cli.h"
#include "tools/tile_matrix/current_code.h"
#include "tools/tile_matrix/record.h"
#include "tools/tile_matrix/tile_matrix_main.h"

namespace tile_ir::matrix {

// The path `flag` gives, else `default_path` under the environment's root.
std::string Path(const TileMatrixEnvironment& env, const cli::ArgParser& args,
                 const std::string& flag, const std::string& default_path);

// --records, and with `with_outputs` --markdown and --html.
void AddPathOptions(cli::ArgParser& parser, bool with_outputs);

// Adds --help and parses argv (argv[0] the subcommand). Returns the exit status
// when the subcommand is done already (0 after --help, 2 after a bad command
// line), nullopt when it goes on.
std::optional<int> ParseCommandLine(cli::ArgParser& parser, int argc, char** argv,
                                    std::ostream& out, std::ostream& err);

// ParseCommandLine for a subcommand that takes options alone: an argument is
// refused, `instead` saying what to give.
std::optional<int> ParseOptionsOnly(cli::ArgParser& parser, int argc, char** argv,
                                    std::ostream& out, std::ostream& err,
                                    absl::string_view instead = "");

// Reports an error that stops the subcommand; returns its exit status, 1.
int Fail(const cli::ArgParser& parser, std::ostream& err, absl::string_view message);

// Writes the pages (--markdown, --html) rendered from `records`, or with
// `check` compares them with what is there.
int Render(const std::vector<Record>& records, const CurrentCode& code,
           const TileMatrixEnvironment& env, const cli::ArgParser& parser,
           const std::string& records_path, bool check, std::ostream& out, std::ostream& err);

// Names the first ten stale records on `err`, and how many more there are.
void PrintStale(const std::vector<Record>& records, const CurrentCode& code, std::ostream& err);

}  // namespace tile_ir::matrix

#endif  // TOOLS_TILE_MATRIX_SUBCOMMAND_COMMON_H_
