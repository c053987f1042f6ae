// Protobuf's proto3 JSON mapping written by reflection, without a nesting limit.
#include "tile_ir/proto/json_writer.h"

#include <google/protobuf/descriptor.h>

#include <cmath>
#include <cstdlib>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tile_ir/text_syntax.h"

namespace tile_ir::proto_json {
namespace {

using google::protobuf::EnumValueDescriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

void AppendString(const std::string& value, std::string* out) {
  out->push_back('"');
  for (size_t pos = 0; pos < value.size(); ++pos) {
    const char c = value[pos];
    if (static_cast<unsigned char>(c) >= 0x80) {
      // JSON text is UTF-8: a byte that does not start a well-formed sequence is replaced.
      size_t length = Utf8SequenceLength(value, pos);
      if (length == 0) {
        out->append("\ufffd");
      } else {
        out->append(value, pos, length);
        pos += length - 1;
      }
      continue;
    }
    switch (c) {
      case '"':
        out->append("\\\"");
        break;
      case '\\':
        out->append("\\\\");
        break;
      case '\n':
        out->append("\\n");
        break;
      case '\t':
        out->append("\\t");
        break;
      case '\r':
        out->append("\\r");
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          absl::StrAppendFormat(out, "\\u%04x", static_cast<int>(c));
        } else {
          out->push_back(c);
        }
    }
  }
  out->push_back('"');
}

// The shorter of %.15g and %.17g that reads back to the same double; NaN and the infinities
// are the strings the JSON mapping names them by.
void AppendDouble(double value, std::string* out) {
  if (std::isnan(value)) {
    out->append("\"NaN\"");
    return;
  }
  if (std::isinf(value)) {
    out->append(value > 0 ? "\"Infinity\"" : "\"-Infinity\"");
    return;
  }
  if (value == 0 && std::signbit(value)) {
    // protobuf's JSON reader takes "-0" for the integer 0 and loses the sign.
    out->append("-0.0");
    return;
  }
  std::string text = absl::StrFormat("%.15g", value);
  if (std::strtod(text.c_str(), nullptr) != value) text = absl::StrFormat("%.17g", value);
  out->append(text);
}

class PrettyWriter {
 public:
  explicit PrettyWriter(std::string* out) : out_(out) {}

  void WriteMessage(const Message& message, int indent) {
    const Reflection* reflection = message.GetReflection();
    std::vector<const FieldDescriptor*> fields;
    // Proto3 scalars at their default are not listed: the mapping omits them too.
    reflection->ListFields(message, &fields);
    if (fields.empty()) {
      out_->append("{}");
      return;
    }
    out_->append("{\n");
    for (size_t i = 0; i < fields.size(); ++i) {
      const FieldDescriptor* field = fields[i];
      Indent(indent + 1);
      AppendString(field->name(), out_);
      out_->append(": ");
      if (field->is_repeated()) {
        WriteRepeated(message, field, indent + 1);
      } else {
        WriteValue(message, field, -1, indent + 1);
      }
      out_->append(i + 1 < fields.size() ? ",\n" : "\n");
    }
    Indent(indent);
    out_->push_back('}');
  }

 private:
  void Indent(int level) { out_->append(2 * level, ' '); }

  void WriteRepeated(const Message& message, const FieldDescriptor* field, int indent) {
    int size = message.GetReflection()->FieldSize(message, field);
    out_->append("[\n");
    for (int i = 0; i < size; ++i) {
      Indent(indent + 1);
      WriteValue(message, field, i, indent + 1);
      out_->append(i + 1 < size ? ",\n" : "\n");
    }
    Indent(indent);
    out_->push_back(']');
  }

  // The value of a singular field (index -1) or of one element of a repeated field.
  void WriteValue(const Message& message, const FieldDescriptor* field, int index, int indent) {
    const Reflection* r = message.GetReflection();
    const bool repeated = index >= 0;
    switch (field->cpp_type()) {
      case FieldDescriptor::CPPTYPE_MESSAGE:
        return WriteMessage(
            repeated ? r->GetRepeatedMessage(message, field, index) : r->GetMessage(message, field),
            indent);
      case FieldDescriptor::CPPTYPE_STRING:
        return AppendString(
            repeated ? r->GetRepeatedString(message, field, index) : r->GetString(message, field),
            out_);
      case FieldDescriptor::CPPTYPE_INT32:
        return absl::StrAppend(out_, repeated ? r->GetRepeatedInt32(message, field, index)
                                              : r->GetInt32(message, field));
      case FieldDescriptor::CPPTYPE_UINT32:
        return absl::StrAppend(out_, repeated ? r->GetRepeatedUInt32(message, field, index)
                                              : r->GetUInt32(message, field));
      // 64-bit integers are strings in the mapping: JavaScript numbers cannot hold them.
      case FieldDescriptor::CPPTYPE_INT64:
        return absl::StrAppend(
            out_, "\"",
            repeated ? r->GetRepeatedInt64(message, field, index) : r->GetInt64(message, field),
            "\"");
      case FieldDescriptor::CPPTYPE_UINT64:
        return absl::StrAppend(
            out_, "\"",
            repeated ? r->GetRepeatedUInt64(message, field, index) : r->GetUInt64(message, field),
            "\"");
      case FieldDescriptor::CPPTYPE_DOUBLE:
        return AppendDouble(
            repeated ? r->GetRepeatedDouble(message, field, index) : r->GetDouble(message, field),
            out_);
      case FieldDescriptor::CPPTYPE_FLOAT:
        return AppendDouble(
            repeated ? r->GetRepeatedFloat(message, field, index) : r->GetFloat(message, field),
            out_);
      case FieldDescriptor::CPPTYPE_BOOL: {
        bool value =
            repeated ? r->GetRepeatedBool(message, field, index) : r->GetBool(message, field);
        out_->append(value ? "true" : "false");
        return;
      }
      case FieldDescriptor::CPPTYPE_ENUM: {
        int number = repeated ? r->GetRepeatedEnumValue(message, field, index)
                              : r->GetEnumValue(message, field);
        // A number this schema has no name for is written as the number, as the mapping says.
        const EnumValueDescriptor* value = field->enum_type()->FindValueByNumber(number);
        if (value) return AppendString(value->name(), out_);
        return absl::StrAppend(out_, number);
      }
    }
  }

  std::string* out_;
};

}  // namespace

std::string MessageToPrettyJson(const Message& message) {
  std::string out;
  PrettyWriter(&out).WriteMessage(message, 0);
  out.push_back('\n');
  return out;
}

}  // namespace tile_ir::proto_json
