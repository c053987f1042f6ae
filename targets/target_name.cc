// Reading and printing target names.
#include "targets/target_name.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace tile_ir::targets {
namespace {

bool IsNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.';
}

class NameReader {
 public:
  explicit NameReader(std::string_view text) : text_(text) {}

  absl::StatusOr<TargetName> Read() {
    TargetName name;
    if (absl::Status s = Word("a target family (cpu, cuda, hip, metal)", name.family); !s.ok()) {
      return s;
    }
    if (Peek(':')) {
      ++pos_;
      if (absl::Status s = Word("an architecture after ':'", name.arch); !s.ok()) return s;
    }
    if (Peek('{')) {
      ++pos_;
      for (;;) {
        std::pair<std::string, std::string> option;
        if (absl::Status s = Word("an option name", option.first); !s.ok()) return s;
        if (!Peek('=')) return Error(absl::StrCat("expected '=' after option '", option.first, "'"));
        ++pos_;
        if (absl::Status s = Word("a value for option '" + option.first + "'", option.second);
            !s.ok()) {
          return s;
        }
        for (const auto& [key, unused] : name.options) {
          if (key == option.first) return Error(absl::StrCat("option '", key, "' given twice"));
        }
        name.options.push_back(std::move(option));
        if (Peek(',')) {
          ++pos_;
          continue;
        }
        if (Peek('}')) {
          ++pos_;
          break;
        }
        return Error("expected ',' or '}' after an option");
      }
    }
    if (pos_ != text_.size()) return Error("expected ':', '{' or the end of the name");
    std::sort(name.options.begin(), name.options.end());
    return name;
  }

 private:
  bool Peek(char c) const { return pos_ < text_.size() && text_[pos_] == c; }

  absl::Status Word(std::string_view what, std::string& out) {
    size_t start = pos_;
    while (pos_ < text_.size() && IsNameChar(text_[pos_])) ++pos_;
    if (pos_ == start) return Error(absl::StrCat("expected ", std::string(what)));
    out = std::string(text_.substr(start, pos_ - start));
    return absl::OkStatus();
  }

  absl::Status Error(std::string_view what) const {
    std::string found = pos_ < text_.size() ? absl::StrCat("'", std::string(text_.substr(pos_, 1)), "'")
                                            : std::string("the end");
    return absl::InvalidArgumentError(absl::StrCat("target '", std::string(text_), "': at column ", pos_ + 1,
                                                   ", ", std::string(what), ", found ", found));
  }

  std::string_view text_;
  size_t pos_ = 0;
};

}  // namespace

std::string TargetName::Option(std::string_view key) const {
  for (const auto& [k, v] : options) {
    if (k == key) return v;
  }
  return "";
}

std::string TargetName::ToString() const {
  std::string text = family;
  if (!arch.empty()) absl::StrAppend(&text, ":", arch);
  if (!options.empty()) {
    text += '{';
    for (size_t i = 0; i < options.size(); ++i) {
      absl::StrAppend(&text, i ? "," : "", options[i].first, "=", options[i].second);
    }
    text += '}';
  }
  return text;
}

absl::StatusOr<TargetName> ParseTargetName(std::string_view text) {
  return NameReader(text).Read();
}

}  // namespace tile_ir::targets
