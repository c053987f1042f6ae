// Protobuf's proto3 JSON mapping of a message, written by reflection. protobuf 3.21's own
// writer (MessageToJsonString) refuses messages nested more than 64 deep, which a module with
// a 30-deep expression already is; this one has no such limit, and its output is read by
// JsonStringToMessage and by every language's protobuf JSON parser.
#ifndef TILE_IR_PROTO_JSON_WRITER_H_
#define TILE_IR_PROTO_JSON_WRITER_H_

#include <google/protobuf/message.h>

#include <string>

namespace tile_ir::proto_json {

// Pretty-printed (two-space indentation), with the .proto field names, default scalar values
// omitted, int64 values as strings and enums by name, as MessageToJsonString writes them.
std::string MessageToPrettyJson(const google::protobuf::Message& message);

}  // namespace tile_ir::proto_json

#endif  // TILE_IR_PROTO_JSON_WRITER_H_
