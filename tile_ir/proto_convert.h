// Conversion between the in-memory IR and tile_ir.v1 messages (tile_ir/proto/tile_ir.proto).
// serialization.h adds the byte and JSON forms, version checks and upgrades on top.
#ifndef TILE_IR_PROTO_CONVERT_H_
#define TILE_IR_PROTO_CONVERT_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "tile_ir/module.h"
#include "tile_ir/nesting_limit.h"
#include "tile_ir/proto/tile_ir.pb.h"

namespace tile_ir {

// Statements and expressions nest at most kMaxNestingDepth deep (nesting_limit.h), and
// each level costs two messages (the Stmt or Expr wrapper and its node) plus a few
// around them (Module, Kernel, Region, Range, ...); this bounds the protobuf parser.
inline constexpr int kMaxProtoMessageDepth = 2 * kMaxNestingDepth + 16;

// Writes names for variables and buffers; a module whose names are not unique per kernel (see
// the schema's header) is written as is, and reading it back reports the clash.
v1::Module ModuleToProto(const Module& module);

// Builds the IR of a message of the current ir_version, resolving names lexically. Errors
// (InvalidArgument) name the kernel, the field path (`body.seq.stmts[2].copy.src`) and the
// nearest source location. The message's ir_version and unknown fields are not checked here,
// except that a feature newer than the ir_version is an error (no file of that version can
// hold it); the module's ir_version is the message's.
absl::StatusOr<Module> ModuleFromProto(const v1::Module& proto);
// The same for a message upgraded from the file's `declared_ir_version` (serialization.h), the
// version that features are checked against and that the module keeps.
absl::StatusOr<Module> ModuleFromProto(const v1::Module& proto, int64_t declared_ir_version);

}  // namespace tile_ir

#endif  // TILE_IR_PROTO_CONVERT_H_
