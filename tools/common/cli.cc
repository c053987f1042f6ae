#include "tools/common/cli.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "passes/pass/close_matches.h"

namespace tile_ir::cli {

const OptionDecl* ArgParser::Find(const std::string& name) const {
  for (const OptionDecl& d : decls_) {
    if (d.name == name) return &d;
  }
  return nullptr;
}

absl::Status ArgParser::Parse(int argc, char** argv) {
  bool only_positional = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (only_positional || arg == "-" || arg.empty() || arg[0] != '-') {
      positional_.push_back(arg);
      continue;
    }
    if (arg == "--") {
      only_positional = true;
      continue;
    }
    std::string body = arg.substr(arg.rfind("--", 0) == 0 ? 2 : 1);
    std::string name = body;
    std::string value;
    bool has_value = false;
    if (size_t eq = body.find('='); eq != std::string::npos) {
      name = body.substr(0, eq);
      value = body.substr(eq + 1);
      has_value = true;
    }
    const OptionDecl* decl = Find(name);
    if (!decl) {
      std::vector<std::string> names;
      for (const OptionDecl& d : decls_) names.push_back(d.name);
      std::string message = absl::StrCat("unknown option '", arg, "'");
      std::vector<std::string> close = passes::CloseMatches(name, names);
      if (!close.empty()) absl::StrAppend(&message, "; did you mean '--", close.front(), "'?");
      absl::StrAppend(&message, " (see --help)");
      return absl::InvalidArgumentError(message);
    }
    if (decl->value_name.empty()) {
      if (has_value && value != "true" && value != "false") {
        return absl::InvalidArgumentError(
            absl::StrCat("option '--", name, "' is a flag; it takes no value (got '", value, "')"));
      }
      values_[name] = has_value ? value : "true";
      continue;
    }
    if (!has_value) {
      if (i + 1 >= argc) {
        return absl::InvalidArgumentError(
            absl::StrCat("option '", arg, "' needs a value (", decl->value_name, ")"));
      }
      value = argv[++i];
    }
    values_[name] = value;
    all_values_[name].push_back(value);
  }
  return absl::OkStatus();
}

std::string ArgParser::Get(const std::string& name) const {
  if (auto it = values_.find(name); it != values_.end()) return it->second;
  const OptionDecl* decl = Find(name);
  return decl ? decl->default_value : "";
}

std::vector<std::string> ArgParser::GetAll(const std::string& name) const {
  auto it = all_values_.find(name);
  return it != all_values_.end() ? it->second : std::vector<std::string>{};
}

std::string ArgParser::Help() const {
  std::string text = absl::StrCat("Usage: ", program_, " ", usage_, "\n\n", description_, "\n\nOptions:\n");
  for (const OptionDecl& d : decls_) {
    std::string left = d.name.size() == 1 ? absl::StrCat("  -", d.name) : absl::StrCat("  --", d.name);
    if (!d.value_name.empty()) absl::StrAppend(&left, d.name.size() == 1 ? " " : "=", d.value_name);
    if (left.size() < 32) {
      left.resize(32, ' ');
    } else {
      absl::StrAppend(&left, "\n", std::string(32, ' '));
    }
    absl::StrAppend(&text, left, d.help);
    if (!d.default_value.empty()) absl::StrAppend(&text, " (default: ", d.default_value, ")");
    absl::StrAppend(&text, "\n");
  }
  return text;
}

}  // namespace tile_ir::cli
