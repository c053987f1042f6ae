// The proto3 JSON mapping read by reflection in one pass over the text, with the nesting bound
// the caller gives (json_reader.h).
#include "tile_ir/proto/json_reader.h"

#include <google/protobuf/descriptor.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "tile_ir/text_syntax.h"

namespace tile_ir::proto_json {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::EnumValueDescriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

#define JSON_RETURN_IF_ERROR(expr)                                    \
  do {                                                                \
    if (absl::Status _status = (expr); !_status.ok()) return _status; \
  } while (false)

// A JSON value that is neither an object nor an array.
struct Scalar {
  enum Kind { kString, kNumber, kTrue, kFalse, kNull };
  Kind kind = kNull;
  std::string text;   // a string's decoded contents, or a number as written
  size_t offset = 0;  // where the value starts, for errors
};

std::string Describe(const Scalar& value) {
  switch (value.kind) {
    case Scalar::kString: return absl::StrCat("the string \"", value.text, "\"");
    case Scalar::kNumber: return absl::StrCat("the number ", value.text);
    case Scalar::kTrue: return "true";
    case Scalar::kFalse: return "false";
    case Scalar::kNull: return "null";
  }
  return "a value";
}

// Whether `text` is a JSON number (RFC 8259, section 6).
bool IsJsonNumber(std::string_view text) {
  size_t i = 0;
  auto digits = [&] {
    size_t start = i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
    return i > start;
  };
  if (i < text.size() && text[i] == '-') ++i;
  if (i < text.size() && text[i] == '0') {
    ++i;
  } else if (!digits()) {
    return false;
  }
  if (i < text.size() && text[i] == '.') {
    ++i;
    if (!digits()) return false;
  }
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
    if (!digits()) return false;
  }
  return i == text.size();
}

void AppendUtf8(uint32_t code_point, std::string* out) {
  if (code_point < 0x80) {
    out->push_back(static_cast<char>(code_point));
  } else if (code_point < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (code_point >> 6)));
    out->push_back(static_cast<char>(0x80 | (code_point & 0x3F)));
  } else if (code_point < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (code_point >> 12)));
    out->push_back(static_cast<char>(0x80 | ((code_point >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (code_point & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (code_point >> 18)));
    out->push_back(static_cast<char>(0x80 | ((code_point >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((code_point >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (code_point & 0x3F)));
  }
}

class Reader {
 public:
  Reader(std::string_view json, const JsonReadOptions& options) : json_(json), options_(options) {}

  absl::Status ReadTop(Message* message) {
    JSON_RETURN_IF_ERROR(ReadMessage(message, 1));
    SkipWhitespace();
    if (pos_ != json_.size()) return ErrorAt(pos_, "unexpected text after the top-level object");
    return absl::OkStatus();
  }

 private:
  // A step of the field path, e.g. "kernels[0]".
  struct PathStep {
    std::string field;
    int index = -1;
  };

  // --- Errors.
  absl::Status ErrorAt(size_t offset, std::string_view what) const {
    int line = 1;
    int column = 1;
    for (size_t i = 0; i < offset && i < json_.size(); ++i) {
      if (json_[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    std::string where = absl::StrCat("line ", line, ", column ", column);
    if (!path_.empty()) {
      std::string path;
      for (const PathStep& step : path_) {
        if (!path.empty()) path.push_back('.');
        absl::StrAppend(&path, step.field);
        if (step.index >= 0) absl::StrAppend(&path, "[", step.index, "]");
      }
      absl::StrAppend(&where, " (", path, ")");
    }
    return absl::InvalidArgumentError(absl::StrCat(where, ": ", std::string(what)));
  }

  std::string DescribeHere() const {
    if (pos_ >= json_.size()) return "the end of the input";
    const unsigned char c = static_cast<unsigned char>(json_[pos_]);
    if (c < 0x20 || c >= 0x80) return absl::StrCat("byte 0x", absl::Hex(c, absl::kZeroPad2));
    return absl::StrCat("'", std::string(1, json_[pos_]), "'");
  }

  absl::Status Expected(std::string_view what) const {
    return ErrorAt(pos_, absl::StrCat("expected ", std::string(what), ", found ", DescribeHere()));
  }

  // --- Tokens.
  void SkipWhitespace() {
    while (pos_ < json_.size() && (json_[pos_] == ' ' || json_[pos_] == '\t' ||
                                   json_[pos_] == '\n' || json_[pos_] == '\r')) {
      ++pos_;
    }
  }

  // Skips whitespace, then consumes `c` if it is next.
  bool Accept(char c) {
    SkipWhitespace();
    if (pos_ < json_.size() && json_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  bool AtWord(std::string_view word) const { return json_.substr(pos_, word.size()) == word; }

  // Four hex digits of a \u escape at pos_.
  absl::Status ReadHex4(uint32_t* value) {
    *value = 0;
    for (int i = 0; i < 4; ++i, ++pos_) {
      char c = pos_ < json_.size() ? json_[pos_] : '\0';
      int digit = c >= '0' && c <= '9'   ? c - '0'
                  : c >= 'a' && c <= 'f' ? c - 'a' + 10
                  : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                         : -1;
      if (digit < 0) return Expected("four hex digits after \\u");
      *value = *value * 16 + static_cast<uint32_t>(digit);
    }
    return absl::OkStatus();
  }

  // A string at pos_ (just past its opening quote on entry), decoded.
  absl::Status ReadStringBody(std::string* out) {
    while (true) {
      if (pos_ >= json_.size()) return ErrorAt(pos_, "the string is not terminated");
      const char c = json_[pos_];
      if (c == '"') {
        ++pos_;
        return absl::OkStatus();
      }
      if (static_cast<unsigned char>(c) < 0x20) {
        return ErrorAt(pos_, "a control byte inside a string must be escaped");
      }
      if (static_cast<unsigned char>(c) >= 0x80) {
        size_t length = Utf8SequenceLength(json_, pos_);
        if (length == 0) return ErrorAt(pos_, "the text is not valid UTF-8");
        out->append(json_.substr(pos_, length));
        pos_ += length;
        continue;
      }
      ++pos_;
      if (c != '\\') {
        out->push_back(c);
        continue;
      }
      const char escape = pos_ < json_.size() ? json_[pos_] : '\0';
      ++pos_;
      switch (escape) {
        case '"': out->push_back('"'); break;
        case '\\': out->push_back('\\'); break;
        case '/': out->push_back('/'); break;
        case 'b': out->push_back('\b'); break;
        case 'f': out->push_back('\f'); break;
        case 'n': out->push_back('\n'); break;
        case 'r': out->push_back('\r'); break;
        case 't': out->push_back('\t'); break;
        case 'u': {
          const size_t start = pos_ - 2;
          uint32_t unit = 0;
          JSON_RETURN_IF_ERROR(ReadHex4(&unit));
          if (unit >= 0xDC00 && unit <= 0xDFFF) {
            return ErrorAt(start, "a \\u escape is a low surrogate without a high one before it");
          }
          if (unit >= 0xD800 && unit <= 0xDBFF) {
            uint32_t low = 0;
            if (!AtWord("\\u")) {
              return ErrorAt(start, "a \\u escape is a high surrogate without a low one after it");
            }
            pos_ += 2;
            JSON_RETURN_IF_ERROR(ReadHex4(&low));
            if (low < 0xDC00 || low > 0xDFFF) {
              return ErrorAt(start, "a \\u escape is a high surrogate without a low one after it");
            }
            unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
          }
          AppendUtf8(unit, out);
          break;
        }
        default: return ErrorAt(pos_ - 2, "unknown escape in a string");
      }
    }
  }

  // An object member's name and the ':' after it.
  absl::Status ReadMemberName(std::string* name) {
    SkipWhitespace();
    if (!Accept('"')) return Expected("a member name in double quotes");
    JSON_RETURN_IF_ERROR(ReadStringBody(name));
    if (!Accept(':')) return Expected("':'");
    return absl::OkStatus();
  }

  absl::Status ReadScalar(Scalar* value) {
    SkipWhitespace();
    value->offset = pos_;
    if (Accept('"')) {
      value->kind = Scalar::kString;
      return ReadStringBody(&value->text);
    }
    for (auto [word, kind] : {std::pair{"true", Scalar::kTrue}, std::pair{"false", Scalar::kFalse},
                              std::pair{"null", Scalar::kNull}}) {
      std::string_view w(word);
      if (AtWord(w)) {
        pos_ += w.size();
        value->kind = kind;
        return absl::OkStatus();
      }
    }
    size_t end = pos_;
    while (end < json_.size() &&
           std::string_view("+-.0123456789eE").find(json_[end]) != std::string_view::npos) {
      ++end;
    }
    std::string_view number = json_.substr(pos_, end - pos_);
    if (number.empty()) return Expected("a value");
    if (!IsJsonNumber(number)) {
      return ErrorAt(pos_, absl::StrCat("'", std::string(number), "' is not a JSON number"));
    }
    value->kind = Scalar::kNumber;
    value->text = std::string(number);
    pos_ = end;
    return absl::OkStatus();
  }

  // Skips the value of a member that names no field (ignore_unknown_fields), bounded like
  // messages so that skipping cannot overflow the stack either.
  absl::Status SkipValue(int depth) {
    if (depth > options_.max_message_depth) return TooDeep();
    SkipWhitespace();
    if (Accept('{')) {
      if (Accept('}')) return absl::OkStatus();
      do {
        std::string name;
        JSON_RETURN_IF_ERROR(ReadMemberName(&name));
        JSON_RETURN_IF_ERROR(SkipValue(depth + 1));
      } while (Accept(','));
      return Accept('}') ? absl::OkStatus() : Expected("',' or '}'");
    }
    if (Accept('[')) {
      if (Accept(']')) return absl::OkStatus();
      do {
        JSON_RETURN_IF_ERROR(SkipValue(depth + 1));
      } while (Accept(','));
      return Accept(']') ? absl::OkStatus() : Expected("',' or ']'");
    }
    Scalar ignored;
    return ReadScalar(&ignored);
  }

  absl::Status TooDeep() const {
    return ErrorAt(pos_,
                   absl::StrCat("objects nest more than ", options_.max_message_depth, " deep"));
  }

  // --- Messages.
  absl::Status ReadMessage(Message* message, int depth) {
    if (depth > options_.max_message_depth) return TooDeep();
    const Descriptor& descriptor = *message->GetDescriptor();
    if (!Accept('{')) return Expected(absl::StrCat("'{' for ", descriptor.full_name()));
    if (Accept('}')) return absl::OkStatus();
    std::vector<const FieldDescriptor*> seen;
    do {
      const size_t name_offset = (SkipWhitespace(), pos_);
      std::string name;
      JSON_RETURN_IF_ERROR(ReadMemberName(&name));
      const FieldDescriptor* field = descriptor.FindFieldByName(name);
      for (int i = 0; field == nullptr && i < descriptor.field_count(); ++i) {
        if (descriptor.field(i)->json_name() == name) field = descriptor.field(i);
      }
      if (field == nullptr) {
        if (options_.ignore_unknown_fields) {
          JSON_RETURN_IF_ERROR(SkipValue(depth + 1));
          continue;
        }
        return ErrorAt(name_offset,
                       absl::StrCat("unknown field \"", name, "\" in ", descriptor.full_name()));
      }
      for (const FieldDescriptor* other : seen) {
        if (other == field) {
          return ErrorAt(name_offset, absl::StrCat("field \"", name, "\" appears twice"));
        }
      }
      seen.push_back(field);
      path_.push_back({field->name()});
      absl::Status status = ReadField(message, field, depth, name_offset);
      path_.pop_back();
      JSON_RETURN_IF_ERROR(status);
    } while (Accept(','));
    if (!Accept('}')) return Expected("',' or '}'");
    return absl::OkStatus();
  }

  absl::Status ReadField(Message* message, const FieldDescriptor* field, int depth,
                         size_t name_offset) {
    if (field->is_map() || field->type() == FieldDescriptor::TYPE_BYTES ||
        field->type() == FieldDescriptor::TYPE_GROUP) {
      return ErrorAt(name_offset, "maps, bytes and groups are not supported by this reader");
    }
    const Reflection& reflection = *message->GetReflection();
    SkipWhitespace();
    if (AtWord("null")) {
      pos_ += 4;
      return absl::OkStatus();
    }
    if (const auto* oneof = field->real_containing_oneof()) {
      if (const FieldDescriptor* set = reflection.GetOneofFieldDescriptor(*message, oneof)) {
        return ErrorAt(name_offset,
                       absl::StrCat("fields \"", set->name(), "\" and \"", field->name(),
                                    "\" of oneof \"", oneof->name(), "\" are both set"));
      }
    }
    if (!field->is_repeated()) {
      if (field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
        return ReadMessage(reflection.MutableMessage(message, field), depth + 1);
      }
      Scalar value;
      JSON_RETURN_IF_ERROR(ReadScalar(&value));
      return SetScalar(message, field, value, false);
    }
    if (!Accept('[')) return Expected("'[' for a repeated field");
    if (Accept(']')) return absl::OkStatus();
    int index = 0;
    do {
      path_.back().index = index++;
      if (field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
        JSON_RETURN_IF_ERROR(ReadMessage(reflection.AddMessage(message, field), depth + 1));
      } else {
        Scalar value;
        JSON_RETURN_IF_ERROR(ReadScalar(&value));
        if (value.kind == Scalar::kNull) {
          return ErrorAt(value.offset, "null is not allowed as an element of a repeated field");
        }
        JSON_RETURN_IF_ERROR(SetScalar(message, field, value, true));
      }
    } while (Accept(','));
    path_.back().index = -1;
    if (!Accept(']')) return Expected("',' or ']'");
    return absl::OkStatus();
  }

  // --- Scalars.
  absl::Status WrongKind(const Scalar& value, std::string_view wanted) const {
    return ErrorAt(value.offset,
                   absl::StrCat("expected ", std::string(wanted), ", found ", Describe(value)));
  }

  // An integer given as a number or a string; an integral value in exponent or decimal form
  // (1e3, 2.0) counts, as in protobuf's reader.
  absl::Status ParseInteger(const Scalar& value, bool is_signed, int64_t min, uint64_t max,
                            int64_t* signed_out, uint64_t* unsigned_out) const {
    if ((value.kind != Scalar::kNumber && value.kind != Scalar::kString) ||
        (value.kind == Scalar::kString && !IsJsonNumber(value.text))) {
      return WrongKind(value, "an integer");
    }
    const std::string& text = value.text;
    auto out_of_range = [&] {
      return ErrorAt(value.offset, absl::StrCat(text, " is out of range for this field"));
    };
    if (is_signed) {
      int64_t parsed = 0;
      if (!absl::SimpleAtoi(text, &parsed)) {
        double d = 0;
        if (!absl::SimpleAtod(text, &d) || d != std::floor(d)) {
          return WrongKind(value, "an integer");
        }
        if (d < -9.223372036854775808e18 || d >= 9.223372036854775808e18) return out_of_range();
        parsed = static_cast<int64_t>(d);
      }
      if (parsed < min || (parsed > 0 && static_cast<uint64_t>(parsed) > max)) {
        return out_of_range();
      }
      *signed_out = parsed;
      return absl::OkStatus();
    }
    uint64_t parsed = 0;
    if (!text.empty() && text[0] == '-' && text != "-0") return out_of_range();
    if (!absl::SimpleAtoi(text, &parsed)) {
      double d = 0;
      if (!absl::SimpleAtod(text, &d) || d != std::floor(d)) return WrongKind(value, "an integer");
      if (d < 0 || d >= 1.8446744073709551616e19) return out_of_range();
      parsed = static_cast<uint64_t>(d);
    }
    if (parsed > max) return out_of_range();
    *unsigned_out = parsed;
    return absl::OkStatus();
  }

  absl::Status ParseDouble(const Scalar& value, double* out) const {
    if (value.kind == Scalar::kString) {
      if (value.text == "NaN") {
        *out = std::numeric_limits<double>::quiet_NaN();
        return absl::OkStatus();
      }
      if (value.text == "Infinity" || value.text == "-Infinity") {
        *out = value.text[0] == '-' ? -HUGE_VAL : HUGE_VAL;
        return absl::OkStatus();
      }
    }
    if ((value.kind != Scalar::kNumber && value.kind != Scalar::kString) ||
        !IsJsonNumber(value.text) || !absl::SimpleAtod(value.text, out)) {
      return WrongKind(value, "a number");
    }
    if (std::isinf(*out)) {
      return ErrorAt(value.offset, absl::StrCat(value.text, " is out of range for a double"));
    }
    return absl::OkStatus();
  }

  absl::Status SetScalar(Message* message, const FieldDescriptor* field, const Scalar& value,
                         bool repeated) const {
    const Reflection& r = *message->GetReflection();
    int64_t s = 0;
    uint64_t u = 0;
    switch (field->cpp_type()) {
      case FieldDescriptor::CPPTYPE_INT32:
        JSON_RETURN_IF_ERROR(ParseInteger(value, true, std::numeric_limits<int32_t>::min(),
                                          std::numeric_limits<int32_t>::max(), &s, &u));
        repeated ? r.AddInt32(message, field, static_cast<int32_t>(s))
                 : r.SetInt32(message, field, static_cast<int32_t>(s));
        return absl::OkStatus();
      case FieldDescriptor::CPPTYPE_INT64:
        JSON_RETURN_IF_ERROR(ParseInteger(value, true, std::numeric_limits<int64_t>::min(),
                                          std::numeric_limits<int64_t>::max(), &s, &u));
        repeated ? r.AddInt64(message, field, s) : r.SetInt64(message, field, s);
        return absl::OkStatus();
      case FieldDescriptor::CPPTYPE_UINT32:
        JSON_RETURN_IF_ERROR(
            ParseInteger(value, false, 0, std::numeric_limits<uint32_t>::max(), &s, &u));
        repeated ? r.AddUInt32(message, field, static_cast<uint32_t>(u))
                 : r.SetUInt32(message, field, static_cast<uint32_t>(u));
        return absl::OkStatus();
      case FieldDescriptor::CPPTYPE_UINT64:
        JSON_RETURN_IF_ERROR(
            ParseInteger(value, false, 0, std::numeric_limits<uint64_t>::max(), &s, &u));
        repeated ? r.AddUInt64(message, field, u) : r.SetUInt64(message, field, u);
        return absl::OkStatus();
      case FieldDescriptor::CPPTYPE_DOUBLE:
      case FieldDescriptor::CPPTYPE_FLOAT: {
        double d = 0;
        JSON_RETURN_IF_ERROR(ParseDouble(value, &d));
        if (field->cpp_type() == FieldDescriptor::CPPTYPE_DOUBLE) {
          repeated ? r.AddDouble(message, field, d) : r.SetDouble(message, field, d);
          return absl::OkStatus();
        }
        if (std::isfinite(d) && std::fabs(d) > std::numeric_limits<float>::max()) {
          return ErrorAt(value.offset, absl::StrCat(value.text, " is out of range for a float"));
        }
        repeated ? r.AddFloat(message, field, static_cast<float>(d))
                 : r.SetFloat(message, field, static_cast<float>(d));
        return absl::OkStatus();
      }
      case FieldDescriptor::CPPTYPE_BOOL:
        if (value.kind != Scalar::kTrue && value.kind != Scalar::kFalse) {
          return WrongKind(value, "true or false");
        }
        repeated ? r.AddBool(message, field, value.kind == Scalar::kTrue)
                 : r.SetBool(message, field, value.kind == Scalar::kTrue);
        return absl::OkStatus();
      case FieldDescriptor::CPPTYPE_STRING:
        if (value.kind != Scalar::kString) return WrongKind(value, "a string");
        repeated ? r.AddString(message, field, value.text)
                 : r.SetString(message, field, value.text);
        return absl::OkStatus();
      case FieldDescriptor::CPPTYPE_ENUM: {
        int number = 0;
        if (value.kind == Scalar::kString) {
          const EnumValueDescriptor* named = field->enum_type()->FindValueByName(value.text);
          if (named == nullptr && options_.ignore_unknown_fields) return absl::OkStatus();
          if (named == nullptr) {
            return ErrorAt(value.offset, absl::StrCat("\"", value.text, "\" is not a value of ",
                                                      field->enum_type()->full_name()));
          }
          number = named->number();
        } else {
          JSON_RETURN_IF_ERROR(ParseInteger(value, true, std::numeric_limits<int32_t>::min(),
                                            std::numeric_limits<int32_t>::max(), &s, &u));
          number = static_cast<int>(s);
        }
        repeated ? r.AddEnumValue(message, field, number) : r.SetEnumValue(message, field, number);
        return absl::OkStatus();
      }
      case FieldDescriptor::CPPTYPE_MESSAGE: break;
    }
    return WrongKind(value, "an object");
  }

  std::string_view json_;
  const JsonReadOptions& options_;
  size_t pos_ = 0;
  std::vector<PathStep> path_;
};

#undef JSON_RETURN_IF_ERROR

}  // namespace

absl::Status JsonToMessage(std::string_view json, const JsonReadOptions& options,
                           Message* message) {
  message->Clear();
  return Reader(json, options).ReadTop(message);
}

}  // namespace tile_ir::proto_json
