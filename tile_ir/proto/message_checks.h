// Checks protobuf itself does not make on messages read from untrusted bytes: their framing,
// before parsing, and fields the schema does not know, after. Generic over message types.
#ifndef TILE_IR_PROTO_MESSAGE_CHECKS_H_
#define TILE_IR_PROTO_MESSAGE_CHECKS_H_

#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace tile_ir::proto_checks {

// OK, or InvalidArgument naming the first unknown field's number and wire type, the type of
// the message that holds it and that message's path ("kernels[0].body.seq.stmts[2]").
// Recurses as deep as the message nests: call it on messages the parser depth-bounded.
absl::Status CheckNoUnknownFields(const google::protobuf::Message& message);

// Checks the framing of `bytes` as a message of `type` before protobuf parses them, so that
// the error says where and why: truncation, an invalid wire type or field number, a known
// field with a wire type that does not fit it, invalid UTF-8 in a string field (which protobuf
// would also log), or messages nested deeper than `max_depth`. OK means protobuf's parser
// sees every field as the schema declares it. Iterative, so safe on any input.
absl::Status CheckWireFormat(absl::string_view bytes, const google::protobuf::Descriptor& type,
                             int max_depth);

}  // namespace tile_ir::proto_checks

#endif  // TILE_IR_PROTO_MESSAGE_CHECKS_H_
