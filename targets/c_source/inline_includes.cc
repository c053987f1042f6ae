// InlineIncludes: a line-by-line walk that pastes embedded headers depth first.
#include "targets/c_source/inline_includes.h"

#include <optional>
#include <set>
#include <string>

namespace tile_ir::c_source {
namespace {

std::string_view StripSpaces(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r')) {
    text.remove_suffix(1);
  }
  return text;
}

// Consumes `prefix` and the spaces after it.
bool ConsumeWord(std::string_view* text, std::string_view prefix) {
  if (text->substr(0, prefix.size()) != prefix) return false;
  *text = StripSpaces(text->substr(prefix.size()));
  return true;
}

// NAME of a line `#include "NAME"` (spaces allowed around '#'), else nullopt.
std::optional<std::string_view> QuotedInclude(std::string_view line) {
  std::string_view rest = StripSpaces(line);
  if (!ConsumeWord(&rest, "#") || !ConsumeWord(&rest, "include")) return std::nullopt;
  if (rest.size() < 2 || rest.front() != '"' || rest.back() != '"') return std::nullopt;
  return rest.substr(1, rest.size() - 2);
}

bool IsPragmaOnce(std::string_view line) {
  std::string_view rest = StripSpaces(line);
  return ConsumeWord(&rest, "#") && ConsumeWord(&rest, "pragma") && rest == "once";
}

class Inliner {
 public:
  explicit Inliner(absl::Span<const EmbeddedFile> files) : files_(files) {}

  void Append(std::string_view text, bool is_header) {
    while (!text.empty()) {
      size_t end = text.find('\n');
      std::string_view line = text.substr(0, end);
      text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
      if (is_header && IsPragmaOnce(line)) continue;
      const EmbeddedFile* file = nullptr;
      if (std::optional<std::string_view> name = QuotedInclude(line)) file = Find(*name);
      if (file == nullptr) {
        out_.append(line).append("\n");
        continue;
      }
      // Marked before its text is pasted, so that an include cycle ends.
      if (!pasted_.insert(file->name).second) {
        out_.append("// ").append(file->name).append(" was pasted above\n");
        continue;
      }
      out_.append("// ---- ").append(file->name).append(" from ").append(file->origin);
      out_.append(" ----\n");
      Append(file->source, /*is_header=*/true);
      out_.append("// ---- end of ").append(file->name).append(" ----\n");
    }
  }

  std::string Take() { return std::move(out_); }

 private:
  const EmbeddedFile* Find(std::string_view name) const {
    for (const EmbeddedFile& file : files_) {
      if (file.name == name) return &file;
    }
    return nullptr;
  }

  absl::Span<const EmbeddedFile> files_;
  std::set<std::string_view> pasted_;
  std::string out_;
};

}  // namespace

std::string InlineIncludes(std::string_view source, absl::Span<const EmbeddedFile> files) {
  Inliner inliner(files);
  inliner.Append(source, /*is_header=*/false);
  return inliner.Take();
}

}  // namespace tile_ir::c_source
