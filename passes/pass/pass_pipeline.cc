// Recursive-descent parser and canonical printer for pipeline strings.
#include "passes/pass/pass_pipeline.h"

#include <set>

#include "absl/strings/str_cat.h"

namespace tile_ir::passes {
namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

bool IsNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.' || c == '-';
}

bool IsBareValueChar(char c) {
  return !IsSpace(c) && c != ',' && c != '{' && c != '}' && c != '=' && c != '"';
}

class PipelineParser {
 public:
  explicit PipelineParser(std::string_view text) : text_(text) {}

  absl::StatusOr<Pipeline> Parse() {
    Pipeline pipeline;
    SkipSpace();
    if (AtEnd()) return pipeline;
    while (true) {
      absl::StatusOr<PipelineStep> step = ParseStep();
      if (!step.ok()) return step.status();
      pipeline.push_back(*std::move(step));
      SkipSpace();
      if (AtEnd()) return pipeline;
      if (!Consume(',')) return Expected("',' between passes or the end of the pipeline");
      SkipSpace();
    }
  }

 private:
  absl::StatusOr<PipelineStep> ParseStep() {
    PipelineStep step;
    step.pass = ParseName();
    if (step.pass.empty()) return Expected("a pass name");
    SkipSpace();
    if (!Consume('{')) return step;
    SkipSpace();
    if (Consume('}')) return step;
    std::set<std::string, std::less<>> seen;
    while (true) {
      size_t name_pos = pos_;
      std::string name = ParseName();
      if (name.empty()) return Expected("an option name");
      if (!seen.insert(name).second) {
        return Error(name_pos,
                     absl::StrCat("option '", name, "' is given twice for pass '", step.pass, "'"));
      }
      SkipSpace();
      if (!Consume('=')) return Expected("'=' after option name");
      SkipSpace();
      absl::StatusOr<std::string> value = ParseValue();
      if (!value.ok()) return value.status();
      step.options.emplace_back(std::move(name), *std::move(value));
      SkipSpace();
      if (Consume('}')) return step;
      if (!Consume(',')) return Expected("',' or '}' after option value");
      SkipSpace();
    }
  }

  std::string ParseName() {
    size_t start = pos_;
    while (!AtEnd() && IsNameChar(text_[pos_])) ++pos_;
    return std::string(text_.substr(start, pos_ - start));
  }

  absl::StatusOr<std::string> ParseValue() {
    if (!Consume('"')) {
      size_t start = pos_;
      while (!AtEnd() && IsBareValueChar(text_[pos_])) ++pos_;
      if (pos_ == start) return Expected("an option value");
      return std::string(text_.substr(start, pos_ - start));
    }
    std::string value;
    while (!AtEnd() && text_[pos_] != '"') {
      if (text_[pos_] == '\\') {
        ++pos_;
        if (AtEnd() || (text_[pos_] != '"' && text_[pos_] != '\\')) {
          return Expected("'\"' or '\\' after '\\' in a quoted value");
        }
      }
      value += text_[pos_++];
    }
    if (!Consume('"')) return Expected("'\"' to close the quoted value");
    return value;
  }

  bool AtEnd() const { return pos_ >= text_.size(); }

  bool Consume(char c) {
    if (AtEnd() || text_[pos_] != c) return false;
    ++pos_;
    return true;
  }

  void SkipSpace() {
    while (!AtEnd() && IsSpace(text_[pos_])) ++pos_;
  }

  absl::Status Expected(std::string_view what) const {
    std::string found =
        AtEnd() ? "the end of the pipeline" : "'" + std::string(1, text_[pos_]) + "'";
    return Error(pos_, "expected " + std::string(what) + ", found " + found);
  }

  absl::Status Error(size_t pos, const std::string& message) const {
    return absl::InvalidArgumentError(
        absl::StrCat("invalid pass pipeline at column ", pos + 1, ": ", message));
  }

  std::string_view text_;
  size_t pos_ = 0;
};

std::string PrintValue(const std::string& value) {
  bool bare = !value.empty();
  for (char c : value) bare = bare && IsBareValueChar(c);
  if (bare) return value;
  std::string quoted = "\"";
  for (char c : value) {
    if (c == '"' || c == '\\') quoted += '\\';
    quoted += c;
  }
  return quoted + "\"";
}

}  // namespace

absl::StatusOr<Pipeline> ParsePipeline(std::string_view text) {
  return PipelineParser(text).Parse();
}

std::string PrintPipeline(const Pipeline& pipeline) {
  std::string text;
  for (size_t i = 0; i < pipeline.size(); ++i) {
    if (i > 0) text += ',';
    text += pipeline[i].pass;
    if (pipeline[i].options.empty()) continue;
    text += '{';
    for (size_t j = 0; j < pipeline[i].options.size(); ++j) {
      const auto& [name, value] = pipeline[i].options[j];
      if (j > 0) text += ',';
      absl::StrAppend(&text, name, "=", PrintValue(value));
    }
    text += '}';
  }
  return text;
}

}  // namespace tile_ir::passes
