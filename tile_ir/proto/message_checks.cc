// Framing checks before parsing and unknown-field checks after (message_checks.h).
#include "tile_ir/proto/message_checks.h"

#include <google/protobuf/reflection.h>
#include <google/protobuf/unknown_field_set.h>

#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tile_ir/text_syntax.h"

namespace tile_ir::proto_checks {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;
using google::protobuf::UnknownField;

// The protobuf wire types (protobuf's own constants are in its internal namespace).
enum WireType {
  kVarint = 0,
  kFixed64 = 1,
  kLengthDelimited = 2,
  kStartGroup = 3,
  kEndGroup = 4,
  kFixed32 = 5,
};

WireType WireTypeOf(const FieldDescriptor& field) {
  switch (field.type()) {
    case FieldDescriptor::TYPE_DOUBLE:
    case FieldDescriptor::TYPE_FIXED64:
    case FieldDescriptor::TYPE_SFIXED64:
      return kFixed64;
    case FieldDescriptor::TYPE_FLOAT:
    case FieldDescriptor::TYPE_FIXED32:
    case FieldDescriptor::TYPE_SFIXED32:
      return kFixed32;
    case FieldDescriptor::TYPE_STRING:
    case FieldDescriptor::TYPE_BYTES:
    case FieldDescriptor::TYPE_MESSAGE:
      return kLengthDelimited;
    case FieldDescriptor::TYPE_GROUP:
      return kStartGroup;
    default:  // the integer, bool and enum types
      return kVarint;
  }
}

// Paths of deeply nested messages keep their ends, which say where and what.
constexpr int kPathHeadSteps = 6;
constexpr int kPathTailSteps = 8;

std::string FormatPath(const std::vector<std::string>& path) {
  if (path.empty()) return "the top level";
  auto join = [](std::string& out, const std::string& step) {
    if (!out.empty()) out += '.';
    out += step;
  };
  std::string text;
  int size = static_cast<int>(path.size());
  for (int i = 0; i < size; ++i) {
    if (size > kPathHeadSteps + kPathTailSteps && i == kPathHeadSteps) {
      join(text, absl::StrCat("(", size - kPathHeadSteps - kPathTailSteps, " more)"));
      i = size - kPathTailSteps;
    }
    join(text, path[i]);
  }
  return text;
}

absl::string_view WireTypeName(int wire_type) {
  switch (wire_type) {
    case kVarint:
      return "varint";
    case kFixed64:
      return "fixed64";
    case kLengthDelimited:
      return "length-delimited";
    case kStartGroup:
    case kEndGroup:
      return "group";
    case kFixed32:
      return "fixed32";
  }
  return "an invalid wire type";
}

absl::string_view UnknownFieldKind(const UnknownField& field) {
  switch (field.type()) {
    case UnknownField::TYPE_VARINT:
      return WireTypeName(kVarint);
    case UnknownField::TYPE_FIXED32:
      return WireTypeName(kFixed32);
    case UnknownField::TYPE_FIXED64:
      return WireTypeName(kFixed64);
    case UnknownField::TYPE_LENGTH_DELIMITED:
      return WireTypeName(kLengthDelimited);
    case UnknownField::TYPE_GROUP:
      return WireTypeName(kStartGroup);
  }
  return "an unknown kind";
}

absl::Status CheckMessage(const Message& message, std::vector<std::string>& path) {
  const Reflection* reflection = message.GetReflection();
  const google::protobuf::UnknownFieldSet& unknown = reflection->GetUnknownFields(message);
  if (!unknown.empty()) {
    const UnknownField& field = unknown.field(0);
    return absl::InvalidArgumentError(absl::StrFormat(
        "unknown field %d (%s) in %s at %s; the module was written by a newer producer or "
        "is corrupt",
        field.number(), UnknownFieldKind(field), message.GetDescriptor()->full_name(),
        FormatPath(path)));
  }
  std::vector<const FieldDescriptor*> fields;
  reflection->ListFields(message, &fields);
  for (const FieldDescriptor* field : fields) {
    if (field->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE) continue;
    if (!field->is_repeated()) {
      path.push_back(field->name());
      if (absl::Status s = CheckMessage(reflection->GetMessage(message, field), path); !s.ok()) {
        return s;
      }
      path.pop_back();
      continue;
    }
    for (int i = 0; i < reflection->FieldSize(message, field); ++i) {
      path.push_back(absl::StrCat(field->name(), "[", i, "]"));
      const Message& element = reflection->GetRepeatedMessage(message, field, i);
      if (absl::Status s = CheckMessage(element, path); !s.ok()) return s;
      path.pop_back();
    }
  }
  return absl::OkStatus();
}

// Reads a varint at *pos, below end; false when it runs past end or over 10 bytes.
bool ReadVarint(absl::string_view bytes, size_t* pos, size_t end, uint64_t* value) {
  *value = 0;
  for (int shift = 0; shift < 70 && *pos < end; shift += 7) {
    uint8_t byte = static_cast<uint8_t>(bytes[(*pos)++]);
    *value |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) return true;
  }
  return false;
}

template <typename... Args>
absl::Status Malformed(const absl::FormatSpec<Args...>& format, const Args&... args) {
  return absl::InvalidArgumentError(absl::StrFormat(format, args...));
}

// Whether protobuf's parser reads `wire_type` as `field` (rather than as an unknown field):
// its own wire type, or length-delimited for a packed repeated scalar.
bool AcceptsWireType(const FieldDescriptor& field, int wire_type) {
  if (wire_type == WireTypeOf(field)) return true;
  return field.is_repeated() && field.is_packable() && wire_type == kLengthDelimited;
}

bool IsValidUtf8(absl::string_view text) {
  const std::string_view view(text.data(), text.size());
  for (size_t pos = 0; pos < view.size();) {
    size_t length = Utf8SequenceLength(view, pos);
    if (length == 0) return false;
    pos += length;
  }
  return true;
}

}  // namespace

absl::Status CheckNoUnknownFields(const Message& message) {
  std::vector<std::string> path;
  return CheckMessage(message, path);
}

absl::Status CheckWireFormat(absl::string_view bytes, const Descriptor& type, int max_depth) {
  struct Frame {
    const Descriptor* type;
    size_t end;
  };
  std::vector<Frame> stack = {{&type, bytes.size()}};
  size_t pos = 0;
  while (pos < bytes.size() || stack.size() > 1) {
    const Frame& top = stack.back();
    if (pos == top.end) {
      stack.pop_back();
      continue;
    }
    const size_t field_start = pos;
    uint64_t tag;
    if (!ReadVarint(bytes, &pos, top.end, &tag)) {
      return Malformed("truncated: the field tag at byte %d runs past the end of its %s",
                       field_start, top.type->full_name());
    }
    const uint64_t number = tag >> 3;
    const int wire_type = static_cast<int>(tag & 7);
    if (number == 0 || number > FieldDescriptor::kMaxNumber) {
      return Malformed("invalid field number %d at byte %d in %s", number, field_start,
                       top.type->full_name());
    }
    const FieldDescriptor* field = top.type->FindFieldByNumber(static_cast<int>(number));
    const std::string field_name =
        field ? field->full_name() : absl::StrCat("field ", number, " of ", top.type->full_name());
    if (wire_type > kFixed32) {
      return Malformed(
          "invalid wire type %d at byte %d (%s); the schema uses only varint, fixed and "
          "length-delimited fields",
          wire_type, field_start, field_name);
    }
    if (field && !AcceptsWireType(*field, wire_type)) {
      return Malformed("%s at byte %d is encoded as %s, which does not fit its type %s", field_name,
                       field_start, WireTypeName(wire_type), field->type_name());
    }
    uint64_t value;
    switch (wire_type) {
      case kVarint:
        if (ReadVarint(bytes, &pos, top.end, &value)) continue;
        return Malformed("truncated: the varint of %s at byte %d runs past its end", field_name,
                         field_start);
      case kFixed64:
      case kFixed32: {
        size_t size = wire_type == kFixed64 ? 8 : 4;
        if (top.end - pos >= size) {
          pos += size;
          continue;
        }
        return Malformed("truncated: %s at byte %d needs %d bytes, %d remain", field_name,
                         field_start, size, top.end - pos);
      }
      case kLengthDelimited: {
        uint64_t length;
        if (!ReadVarint(bytes, &pos, top.end, &length) || length > top.end - pos) {
          return Malformed("truncated: %s at byte %d is longer than the %d bytes left", field_name,
                           field_start, top.end - pos);
        }
        if (field && field->type() == FieldDescriptor::TYPE_MESSAGE) {
          // Like protobuf's recursion limit, the top-level message is not counted.
          if (static_cast<int>(stack.size()) > max_depth) {
            return Malformed(
                "messages nest more than %d deep (at byte %d, %s); the reader stops there so "
                "that deep input cannot exhaust the stack",
                max_depth, field_start, field_name);
          }
          stack.push_back({field->message_type(), pos + length});
          continue;
        }
        if (field && field->type() == FieldDescriptor::TYPE_STRING &&
            !IsValidUtf8(bytes.substr(pos, length))) {
          return Malformed("%s at byte %d is not valid UTF-8", field_name, field_start);
        }
        pos += length;
        continue;
      }
      default:
        return Malformed("%s at byte %d uses the deprecated group encoding", field_name,
                         field_start);
    }
  }
  return absl::OkStatus();
}

}  // namespace tile_ir::proto_checks
