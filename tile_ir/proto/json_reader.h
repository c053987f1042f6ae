// Protobuf's proto3 JSON mapping read into a message by reflection. protobuf 3.21's own reader
// (JsonStringToMessage) stops at 100 nested objects, about 45 levels of expression, so a module
// that the .tilepb and text forms accept could not be read back from its JSON; this one bounds
// nesting by a depth its caller chooses.
#ifndef TILE_IR_PROTO_JSON_READER_H_
#define TILE_IR_PROTO_JSON_READER_H_

#include <google/protobuf/message.h>

#include <string_view>

#include "absl/status/status.h"

namespace tile_ir::proto_json {

struct JsonReadOptions {
  // Messages nested deeper than this (the top-level message is depth 1) are an error.
  int max_message_depth = 100;
  // Skips object members that name no field of their message instead of refusing them.
  bool ignore_unknown_fields = false;
};

// Parses `json` into `message` (cleared first). Accepts what the proto3 JSON mapping allows for
// the field kinds it supports: messages, repeated fields, oneofs, enums by name or number,
// integers as numbers or strings, doubles including "NaN" and "Infinity", bools, strings, and
// null for "not set"; fields by their JSON name or their .proto name. Maps, bytes and
// well-known types are refused. Errors (InvalidArgument) give the line and column and the field
// path, e.g. "line 3, column 17 (kernels[0].body): expected '{' for tile_ir.v1.Stmt, found '['".
absl::Status JsonToMessage(std::string_view json, const JsonReadOptions& options,
                           google::protobuf::Message* message);

}  // namespace tile_ir::proto_json

#endif  // TILE_IR_PROTO_JSON_READER_H_
