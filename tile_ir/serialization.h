// The interchange forms of a module: protobuf binary (.tilepb), the primary
// interchange, and protobuf's JSON mapping (.json) for people and for
// producers without protobuf bindings. Schema: tile_ir/proto/tile_ir.proto.
//
// Readers accept every ir_version from 1 to kIrVersion (upgrading older ones
// step by step, see upgrade.h), refuse newer versions naming both versions,
// refuse a feature newer than the version the file declares, refuse unknown
// fields, and never crash on malformed bytes. Writers stamp the oldest version
// that has every feature the module uses (RequiredIrVersion, version.h).
#ifndef TILE_IR_SERIALIZATION_H_
#define TILE_IR_SERIALIZATION_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "tile_ir/module.h"

namespace tile_ir {

// `source_name` (a file name or "<stdin>") prefixes every error message.
absl::StatusOr<Module> ReadModuleProto(std::string_view bytes, std::string_view source_name);
absl::StatusOr<Module> ReadModuleJson(std::string_view json, std::string_view source_name);

std::string WriteModuleProto(const Module& module);
std::string WriteModuleJson(const Module& module);

}  // namespace tile_ir

#endif  // TILE_IR_SERIALIZATION_H_
