// A recursive-descent JSON reader (RFC 8259, \u escapes included) and string quoting.
#include "tools/tile_matrix/json.h"

#include <cstdio>
#include <cstdlib>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace tile_ir::matrix {
namespace {

constexpr int kMaxDepth = 32;

class Reader {
 public:
  explicit Reader(absl::string_view text) : text_(text) {}

  absl::StatusOr<JsonValue> Document() {
    absl::StatusOr<JsonValue> value = Value(0);
    if (!value.ok()) return value;
    SkipSpace();
    if (pos_ < text_.size()) return Error("end of input after the value");
    return value;
  }

 private:
  absl::Status Error(absl::string_view expected) const {
    int line = 1, column = 1;
    for (size_t i = 0; i < pos_ && i < text_.size(); ++i) {
      if (text_[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    std::string found = pos_ < text_.size() ? absl::StrCat("'", text_.substr(pos_, 1), "'")
                                            : std::string("the end of the file");
    return absl::InvalidArgumentError(
        absl::StrCat(line, ":", column, ": expected ", expected, ", found ", found));
  }

  // Counted on from where it was last asked (values are read forwards): a count from the start
  // for every value made reading the records file quadratic (a second for 400 records).
  int Line() {
    for (; line_pos_ < pos_ && line_pos_ < text_.size(); ++line_pos_) {
      line_ += text_[line_pos_] == '\n';
    }
    return line_;
  }

  void SkipSpace() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\n' ||
                                   text_[pos_] == '\r' || text_[pos_] == '\t'))
      ++pos_;
  }

  bool Consume(absl::string_view word) {
    if (text_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }

  absl::StatusOr<JsonValue> Value(int depth) {
    if (depth > kMaxDepth) return Error("at most 32 nested arrays and objects");
    SkipSpace();
    JsonValue value;
    value.line = Line();
    if (pos_ >= text_.size()) return Error("a value");
    char c = text_[pos_];
    if (c == '{') return Object(depth, value);
    if (c == '[') return Array(depth, value);
    if (c == '"') {
      absl::StatusOr<std::string> s = String();
      if (!s.ok()) return s.status();
      value.kind = JsonValue::Kind::kString;
      value.string = *std::move(s);
      return value;
    }
    if (Consume("true") || Consume("false")) {
      value.kind = JsonValue::Kind::kBool;
      value.boolean = text_[pos_ - 1] == 'e' && text_[pos_ - 2] == 'u';
      return value;
    }
    if (Consume("null")) return value;
    if (c == '-' || (c >= '0' && c <= '9')) return Number(value);
    return Error("a value (object, array, string, number, true, false or null)");
  }

  absl::StatusOr<JsonValue> Number(JsonValue& value) {
    size_t start = pos_;
    if (text_[pos_] == '-') ++pos_;
    auto digits = [&] {
      size_t from = pos_;
      while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') ++pos_;
      return pos_ > from;
    };
    if (!digits()) return Error("a digit");
    if (pos_ < text_.size() && text_[pos_] == '.') {
      ++pos_;
      if (!digits()) return Error("a digit after the decimal point");
    }
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      ++pos_;
      if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) ++pos_;
      if (!digits()) return Error("a digit in the exponent");
    }
    value.kind = JsonValue::Kind::kNumber;
    value.number = std::strtod(std::string(text_.substr(start, pos_ - start)).c_str(), nullptr);
    return value;
  }

  static void AppendUtf8(std::string& out, unsigned code) {
    if (code < 0x80) {
      out += static_cast<char>(code);
    } else if (code < 0x800) {
      out += static_cast<char>(0xC0 | (code >> 6));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else if (code < 0x10000) {
      out += static_cast<char>(0xE0 | (code >> 12));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (code >> 18));
      out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    }
  }

  absl::StatusOr<unsigned> Hex4() {
    if (pos_ + 4 > text_.size()) return Error("four hex digits");
    unsigned code = 0;
    for (int i = 0; i < 4; ++i) {
      char h = text_[pos_];
      int digit = h >= '0' && h <= '9'   ? h - '0'
                  : h >= 'a' && h <= 'f' ? h - 'a' + 10
                  : h >= 'A' && h <= 'F' ? h - 'A' + 10
                                         : -1;
      if (digit < 0) return Error("a hex digit");
      code = code * 16 + digit;
      ++pos_;
    }
    return code;
  }

  absl::StatusOr<std::string> String() {
    ++pos_;  // the opening quote
    std::string out;
    while (true) {
      if (pos_ >= text_.size()) return Error("'\"' closing the string");
      char c = text_[pos_];
      if (c == '"') {
        ++pos_;
        return out;
      }
      if (static_cast<unsigned char>(c) < 0x20) return Error("no control character in a string");
      if (c != '\\') {
        out += c;
        ++pos_;
        continue;
      }
      ++pos_;
      if (pos_ >= text_.size()) return Error("an escape");
      char e = text_[pos_++];
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          absl::StatusOr<unsigned> code = Hex4();
          if (!code.ok()) return code.status();
          if (*code >= 0xD800 && *code < 0xDC00 && Consume("\\u")) {
            absl::StatusOr<unsigned> low = Hex4();
            if (!low.ok()) return low.status();
            if (*low < 0xDC00 || *low >= 0xE000) return Error("a low surrogate");
            *code = 0x10000 + ((*code - 0xD800) << 10) + (*low - 0xDC00);
          }
          AppendUtf8(out, *code);
          break;
        }
        default: --pos_; return Error("an escape (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)");
      }
    }
  }

  absl::StatusOr<JsonValue> Array(int depth, JsonValue& value) {
    ++pos_;
    value.kind = JsonValue::Kind::kArray;
    SkipSpace();
    if (Consume("]")) return value;
    while (true) {
      absl::StatusOr<JsonValue> element = Value(depth + 1);
      if (!element.ok()) return element.status();
      value.array.push_back(*std::move(element));
      SkipSpace();
      if (Consume("]")) return value;
      if (!Consume(",")) return Error("',' or ']' in the array");
    }
  }

  absl::StatusOr<JsonValue> Object(int depth, JsonValue& value) {
    ++pos_;
    value.kind = JsonValue::Kind::kObject;
    SkipSpace();
    if (Consume("}")) return value;
    while (true) {
      SkipSpace();
      if (pos_ >= text_.size() || text_[pos_] != '"') return Error("a quoted key");
      absl::StatusOr<std::string> key = String();
      if (!key.ok()) return key.status();
      for (const auto& [existing, unused] : value.object) {
        if (existing == *key) return Error(absl::StrCat("no second \"", *key, "\" in one object"));
      }
      SkipSpace();
      if (!Consume(":")) return Error("':' after the key");
      absl::StatusOr<JsonValue> member = Value(depth + 1);
      if (!member.ok()) return member.status();
      value.object.emplace_back(*std::move(key), *std::move(member));
      SkipSpace();
      if (Consume("}")) return value;
      if (!Consume(",")) return Error("',' or '}' in the object");
    }
  }

  absl::string_view text_;
  size_t pos_ = 0;
  size_t line_pos_ = 0;  // Line() has counted the newlines before this
  int line_ = 1;
};

}  // namespace

absl::string_view JsonKindName(JsonValue::Kind kind) {
  switch (kind) {
    case JsonValue::Kind::kNull: return "null";
    case JsonValue::Kind::kBool: return "a boolean";
    case JsonValue::Kind::kNumber: return "a number";
    case JsonValue::Kind::kString: return "a string";
    case JsonValue::Kind::kArray: return "an array";
    case JsonValue::Kind::kObject: return "an object";
  }
  return "?";
}

absl::StatusOr<JsonValue> ParseJson(absl::string_view text) { return Reader(text).Document(); }

std::string JsonQuote(absl::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buffer[8];
          std::snprintf(buffer, sizeof(buffer), "\\u%04x", static_cast<unsigned char>(c));
          out += buffer;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

}  // namespace tile_ir::matrix
