// The .tilepb and JSON forms of a module: parsing with bounded depth, then the version and
// unknown-field checks, upgrading, and conversion (proto_convert.h).
#include "tile_ir/serialization.h"

#include <google/protobuf/arena.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <climits>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "tile_ir/proto/json_reader.h"
#include "tile_ir/proto/json_writer.h"
#include "tile_ir/proto/message_checks.h"
#include "tile_ir/proto/tile_ir.pb.h"
#include "tile_ir/proto_convert.h"
#include "tile_ir/upgrade.h"

namespace tile_ir {
namespace {

absl::Status WithSource(std::string_view source_name, const absl::Status& status) {
  return absl::Status(status.code(),
                      absl::StrCat(std::string(source_name), ": ", status.message()));
}

absl::Status InvalidInput(std::string_view source_name, absl::string_view message) {
  return absl::InvalidArgumentError(absl::StrCat(std::string(source_name), ": ", message));
}

// What both forms share once the message is parsed. Upgrading comes before the unknown-field
// check because an upgrader may consume the fields its step retired; the version the file
// declared still decides which features it may hold.
absl::StatusOr<Module> ModuleFromParsedProto(v1::Module& proto, std::string_view source_name) {
  const int64_t declared_ir_version = proto.ir_version();
  if (absl::Status status = UpgradeToCurrentVersion(proto); !status.ok()) {
    return WithSource(source_name, status);
  }
  if (absl::Status status = proto_checks::CheckNoUnknownFields(proto); !status.ok()) {
    return WithSource(source_name, status);
  }
  absl::StatusOr<Module> module = ModuleFromProto(proto, declared_ir_version);
  if (!module.ok()) return WithSource(source_name, module.status());
  return module;
}

}  // namespace

absl::StatusOr<Module> ReadModuleProto(std::string_view bytes, std::string_view source_name) {
  if (bytes.empty()) return InvalidInput(source_name, "empty input: not a tile IR module");
  if (bytes.size() > static_cast<size_t>(INT_MAX)) {
    return InvalidInput(source_name, "input is larger than 2 GiB, the protobuf limit");
  }
  // Checked first so that malformed bytes get a located error (and protobuf logs nothing).
  if (absl::Status framing =
          proto_checks::CheckWireFormat(absl::string_view(bytes.data(), bytes.size()),
                                        *v1::Module::descriptor(), kMaxProtoMessageDepth);
      !framing.ok()) {
    return InvalidInput(source_name, absl::StrCat("not a tile IR module: ", framing.message()));
  }
  // An arena: a module is hundreds of thousands of small messages, and freeing
  // them one by one cost more than parsing them.
  google::protobuf::Arena arena;
  v1::Module& proto = *google::protobuf::Arena::CreateMessage<v1::Module>(&arena);
  google::protobuf::io::ArrayInputStream stream(bytes.data(), static_cast<int>(bytes.size()));
  google::protobuf::io::CodedInputStream input(&stream);
  input.SetRecursionLimit(kMaxProtoMessageDepth);
  if (!proto.ParseFromCodedStream(&input) || !input.ConsumedEntireMessage()) {
    return InvalidInput(source_name,
                        "not a tile IR module: the bytes do not parse as a tile_ir.v1.Module "
                        "although their framing is intact (a packed list or a value is "
                        "malformed)");
  }
  return ModuleFromParsedProto(proto, source_name);
}

absl::StatusOr<Module> ReadModuleJson(std::string_view json, std::string_view source_name) {
  if (absl::StripAsciiWhitespace(absl::string_view(json.data(), json.size())).empty()) {
    return InvalidInput(source_name, "empty input: not a tile IR module");
  }
  // The binary form's bound, so that both forms take the same modules (protobuf's own JSON
  // reader stops at 100 nested objects, far short of kMaxNestingDepth).
  proto_json::JsonReadOptions strict{.max_message_depth = kMaxProtoMessageDepth};
  v1::Module proto;
  if (absl::Status status = proto_json::JsonToMessage(json, strict, &proto); !status.ok()) {
    // A newer producer's fields are unknown here: report the version, the actual cause.
    proto_json::JsonReadOptions lenient = strict;
    lenient.ignore_unknown_fields = true;
    v1::Module lenient_proto;
    if (proto_json::JsonToMessage(json, lenient, &lenient_proto).ok() &&
        lenient_proto.ir_version() > kIrVersion) {
      return WithSource(source_name, UpgradeToCurrentVersion(lenient_proto));
    }
    return InvalidInput(source_name,
                        absl::StrCat("not a tile IR module in JSON: ", status.message()));
  }
  return ModuleFromParsedProto(proto, source_name);
}

std::string WriteModuleProto(const Module& module) {
  return ModuleToProto(module).SerializeAsString();
}

std::string WriteModuleJson(const Module& module) {
  // Not MessageToJsonString: it fails on messages nested more than 64 deep (json_writer.h).
  return proto_json::MessageToPrettyJson(ModuleToProto(module));
}

}  // namespace tile_ir
