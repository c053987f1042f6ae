// The schema guard: every wire- or JSON-breaking difference of a schema from a frozen
// (released) one, in the spirit of `buf breaking` with its WIRE_JSON rules. A file written
// against the frozen schema must still read, as binary and as JSON, with the same meaning.
#ifndef TILE_IR_PROTO_SCHEMA_GUARD_H_
#define TILE_IR_PROTO_SCHEMA_GUARD_H_

#include <google/protobuf/descriptor.h>

#include <string>
#include <vector>

namespace tile_ir::schema_guard {

// One line per break, naming the message or enum and the field or value by full name and
// number, e.g. "tile_ir.v1.Kernel.body (field 5): renumbered to 9". Empty when `current`
// keeps every promise of `frozen`. What counts as a break, for every message and enum of
// `frozen` (nested ones included) matched to `current` by full name:
//   - the message or enum is gone;
//   - a field is gone and its number and name are not both `reserved`;
//   - a field's number changed (same name, other number);
//   - a field's type, message or enum type, label (singular/repeated) or presence
//     (proto3 `optional`) changed;
//   - a field's name or json_name changed (JSON reads by name);
//   - a field moved into, out of, or between oneofs;
//   - a field uses a number or name the frozen schema reserved;
//   - an enum value is gone without its number and name `reserved`, its number changed, its
//     number now has another name (JSON writes the name), or it uses a reserved number/name.
// Added messages, enums, fields and values are not breaks.
std::vector<std::string> FindBreakingChanges(const google::protobuf::FileDescriptor& frozen,
                                             const google::protobuf::FileDescriptor& current);

}  // namespace tile_ir::schema_guard

#endif  // TILE_IR_PROTO_SCHEMA_GUARD_H_
