// Walks the frozen schema and looks each element up in the current one by full name (the
// name JSON and `Any` use) and each field by number (the name the wire uses).
#include "tile_ir/proto/schema_guard.h"

#include "absl/strings/str_cat.h"

namespace tile_ir::schema_guard {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::DescriptorPool;
using google::protobuf::EnumDescriptor;
using google::protobuf::EnumValueDescriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::OneofDescriptor;

using Breaks = std::vector<std::string>;

std::string Where(const FieldDescriptor& field) {
  return absl::StrCat(field.full_name(), " (field ", field.number(), ")");
}

std::string Where(const EnumDescriptor& type, const EnumValueDescriptor& value) {
  // An enum value's own full_name is a sibling of its enum (C++ scoping); name the enum.
  return absl::StrCat(type.full_name(), ".", value.name(), " (value ", value.number(), ")");
}

std::string TypeName(const FieldDescriptor& field) {
  if (field.message_type() != nullptr) return field.message_type()->full_name();
  if (field.enum_type() != nullptr) return field.enum_type()->full_name();
  return field.type_name();
}

const char* LabelName(const FieldDescriptor& field) {
  switch (field.label()) {
    case FieldDescriptor::LABEL_REPEATED: return "repeated";
    case FieldDescriptor::LABEL_REQUIRED: return "required";
    case FieldDescriptor::LABEL_OPTIONAL: break;
  }
  return "singular";
}

// A scalar's presence: proto3 `optional` tells an absent field from a zero, which readers of
// this schema rely on (Allocate.shared_offset). Message fields always have presence.
bool HasScalarPresence(const FieldDescriptor& field) {
  return !field.is_repeated() && field.message_type() == nullptr && field.has_optional_keyword();
}

std::string OneofName(const OneofDescriptor* oneof) {
  return oneof == nullptr ? "" : oneof->name();
}

// The same number in both schemas: everything a reader of old files depends on must agree.
void CompareField(const FieldDescriptor& frozen, const FieldDescriptor& current, Breaks& breaks) {
  const std::string where = Where(frozen);
  if (frozen.name() != current.name()) {
    breaks.push_back(absl::StrCat(where, ": renamed to ", current.name(),
                                  " (JSON and text name fields; retire the old one with "
                                  "`reserved` and add a new number instead)"));
  }
  if (frozen.json_name() != current.json_name()) {
    breaks.push_back(absl::StrCat(where, ": json_name changed from ", frozen.json_name(), " to ",
                                  current.json_name(), " (JSON files spell the old one)"));
  }
  if (TypeName(frozen) != TypeName(current)) {
    breaks.push_back(
        absl::StrCat(where, ": retyped from ", TypeName(frozen), " to ", TypeName(current)));
  }
  if (frozen.label() != current.label()) {
    breaks.push_back(
        absl::StrCat(where, ": retyped from ", LabelName(frozen), " to ", LabelName(current)));
  }
  if (HasScalarPresence(frozen) != HasScalarPresence(current)) {
    breaks.push_back(absl::StrCat(where, ": presence changed (proto3 `optional` ",
                                  HasScalarPresence(frozen) ? "removed" : "added",
                                  "): an absent field and a zero would change meaning"));
  }
  // Synthetic oneofs (proto3 `optional`) are presence, checked above, not membership. A oneof
  // is known by its name: renaming one is reported as moving each of its fields.
  const std::string frozen_oneof = OneofName(frozen.real_containing_oneof());
  const std::string current_oneof = OneofName(current.real_containing_oneof());
  if (frozen_oneof != current_oneof) {
    if (current_oneof.empty()) {
      breaks.push_back(absl::StrCat(where, ": moved out of oneof ", frozen_oneof,
                                    " (a reader would keep fields the oneof made exclusive)"));
    } else if (frozen_oneof.empty()) {
      breaks.push_back(absl::StrCat(where, ": moved into oneof ", current_oneof,
                                    " (old files may set it with other members; all but the "
                                    "last would be dropped)"));
    } else {
      breaks.push_back(
          absl::StrCat(where, ": moved from oneof ", frozen_oneof, " to oneof ", current_oneof));
    }
  }
}

void CompareMessage(const Descriptor& frozen, const DescriptorPool& pool, Breaks& breaks) {
  const Descriptor* current = pool.FindMessageTypeByName(frozen.full_name());
  if (current == nullptr) {
    breaks.push_back(absl::StrCat("message ", frozen.full_name(), ": removed"));
    return;
  }
  for (int i = 0; i < frozen.field_count(); ++i) {
    const FieldDescriptor& field = *frozen.field(i);
    if (const FieldDescriptor* same_number = current->FindFieldByNumber(field.number())) {
      CompareField(field, *same_number, breaks);
    } else if (const FieldDescriptor* same_name = current->FindFieldByName(field.name())) {
      breaks.push_back(absl::StrCat(Where(field), ": renumbered to ", same_name->number(),
                                    " (old files' field ", field.number(),
                                    " would be an unknown field)"));
    } else if (!current->IsReservedNumber(field.number()) ||
               !current->IsReservedName(field.name())) {
      breaks.push_back(absl::StrCat(Where(field), ": removed without `reserved ", field.number(),
                                    "; reserved \"", field.name(), "\";` in ", current->full_name(),
                                    " (both keep it from being reused)"));
    }
  }
  for (int i = 0; i < current->field_count(); ++i) {
    const FieldDescriptor& field = *current->field(i);
    if (frozen.IsReservedNumber(field.number())) {
      breaks.push_back(absl::StrCat(Where(field), ": reuses number ", field.number(),
                                    ", reserved in the frozen schema"));
    }
    if (frozen.IsReservedName(field.name())) {
      breaks.push_back(absl::StrCat(Where(field), ": reuses name ", field.name(),
                                    ", reserved in the frozen schema"));
    }
  }
  for (int i = 0; i < frozen.nested_type_count(); ++i) {
    CompareMessage(*frozen.nested_type(i), pool, breaks);
  }
}

void CompareEnum(const EnumDescriptor& frozen, const DescriptorPool& pool, Breaks& breaks) {
  const EnumDescriptor* current = pool.FindEnumTypeByName(frozen.full_name());
  if (current == nullptr) {
    breaks.push_back(absl::StrCat("enum ", frozen.full_name(), ": removed"));
    return;
  }
  for (int i = 0; i < frozen.value_count(); ++i) {
    const EnumValueDescriptor& value = *frozen.value(i);
    if (const EnumValueDescriptor* same_number = current->FindValueByNumber(value.number())) {
      if (same_number->name() != value.name()) {
        breaks.push_back(absl::StrCat(Where(frozen, value), ": number ", value.number(),
                                      " is now named ", same_number->name(),
                                      " (JSON spells values by name)"));
      }
    } else if (const EnumValueDescriptor* same_name = current->FindValueByName(value.name())) {
      breaks.push_back(absl::StrCat(Where(frozen, value), ": renumbered to ", same_name->number()));
    } else if (!current->IsReservedNumber(value.number()) ||
               !current->IsReservedName(value.name())) {
      breaks.push_back(absl::StrCat(Where(frozen, value), ": removed without `reserved ",
                                    value.number(), "; reserved \"", value.name(), "\";` in ",
                                    current->full_name()));
    }
  }
  for (int i = 0; i < current->value_count(); ++i) {
    const EnumValueDescriptor& value = *current->value(i);
    if (frozen.IsReservedNumber(value.number())) {
      breaks.push_back(absl::StrCat(Where(*current, value), ": reuses number ", value.number(),
                                    ", reserved in the frozen schema"));
    }
    if (frozen.IsReservedName(value.name())) {
      breaks.push_back(absl::StrCat(Where(*current, value), ": reuses name ", value.name(),
                                    ", reserved in the frozen schema"));
    }
  }
}

void CompareEnumsIn(const Descriptor& frozen, const DescriptorPool& pool, Breaks& breaks) {
  for (int i = 0; i < frozen.enum_type_count(); ++i)
    CompareEnum(*frozen.enum_type(i), pool, breaks);
  for (int i = 0; i < frozen.nested_type_count(); ++i) {
    CompareEnumsIn(*frozen.nested_type(i), pool, breaks);
  }
}

}  // namespace

std::vector<std::string> FindBreakingChanges(const google::protobuf::FileDescriptor& frozen,
                                             const google::protobuf::FileDescriptor& current) {
  Breaks breaks;
  const DescriptorPool& pool = *current.pool();
  if (frozen.package() != current.package()) {
    breaks.push_back(absl::StrCat(current.name(), ": package changed from ", frozen.package(),
                                  " to ", current.package(), " (every full name changes)"));
  }
  for (int i = 0; i < frozen.message_type_count(); ++i) {
    CompareMessage(*frozen.message_type(i), pool, breaks);
    CompareEnumsIn(*frozen.message_type(i), pool, breaks);
  }
  for (int i = 0; i < frozen.enum_type_count(); ++i)
    CompareEnum(*frozen.enum_type(i), pool, breaks);
  return breaks;
}

}  // namespace tile_ir::schema_guard
