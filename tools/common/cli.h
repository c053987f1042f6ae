// A small command-line parser shared by the tools: declared options with help
// text, `--name=value` / `--name value` / boolean `--flag`, positional
// arguments, and errors that suggest the closest option name.
#ifndef TOOLS_COMMON_CLI_H_
#define TOOLS_COMMON_CLI_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"

namespace tile_ir::cli {

struct OptionDecl {
  std::string name;         // without dashes, e.g. "pass-pipeline"; "o" for -o
  std::string value_name;   // e.g. "PIPELINE"; empty for a boolean flag
  std::string help;
  std::string default_value;  // shown in --help when not empty
};

class ArgParser {
 public:
  ArgParser(std::string program, std::string usage, std::string description)
      : program_(std::move(program)),
        usage_(std::move(usage)),
        description_(std::move(description)) {}

  void Add(OptionDecl decl) { decls_.push_back(std::move(decl)); }
  // Parses argv[1..]; a bare "-" is a positional argument (stdin).
  absl::Status Parse(int argc, char** argv);

  bool Has(const std::string& name) const { return values_.count(name) > 0; }
  // The value (the last one when repeated), or the declared default.
  std::string Get(const std::string& name) const;
  // Every value of a repeatable option in command-line order (tile-run's
  // --in A=a.npy --in B=b.npy); empty when absent.
  std::vector<std::string> GetAll(const std::string& name) const;
  const std::vector<std::string>& positional() const { return positional_; }

  std::string Help() const;
  const std::string& program() const { return program_; }

 private:
  const OptionDecl* Find(const std::string& name) const;

  std::string program_;
  std::string usage_;
  std::string description_;
  std::vector<OptionDecl> decls_;
  std::map<std::string, std::string> values_;
  std::map<std::string, std::vector<std::string>> all_values_;
  std::vector<std::string> positional_;
};

}  // namespace tile_ir::cli

#endif  // TOOLS_COMMON_CLI_H_
