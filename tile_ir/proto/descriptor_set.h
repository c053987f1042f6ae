// Schemas as data: a FileDescriptorSet (protoc --descriptor_set_out --include_imports) read
// from a file and built into a DescriptorPool of its own, as the schema guard compares them.
#ifndef TILE_IR_PROTO_DESCRIPTOR_SET_H_
#define TILE_IR_PROTO_DESCRIPTOR_SET_H_

#include <google/protobuf/descriptor.h>
#include <google/protobuf/descriptor.pb.h>

#include <memory>
#include <string>

#include "absl/status/statusor.h"

namespace tile_ir::schema_guard {

// The set in the binary file at `path`; NotFound or DataLoss naming the path.
absl::StatusOr<google::protobuf::FileDescriptorSet> ReadDescriptorSet(const std::string& path);

// A pool holding every file of `set`, which lists each file after its imports (as protoc
// writes it). InvalidArgument naming `source`, the file and element, when one does not build.
absl::StatusOr<std::unique_ptr<google::protobuf::DescriptorPool>> BuildDescriptorPool(
    const google::protobuf::FileDescriptorSet& set, const std::string& source);

// `file` and, before it, everything it imports, transitively, each once: a set that
// BuildDescriptorPool accepts (for a schema compiled into the binary, say).
google::protobuf::FileDescriptorSet DescriptorSetOf(const google::protobuf::FileDescriptor& file);

}  // namespace tile_ir::schema_guard

#endif  // TILE_IR_PROTO_DESCRIPTOR_SET_H_
