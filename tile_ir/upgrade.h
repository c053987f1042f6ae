// Bringing modules written by older toolkits up to this build's ir_version, one version at a
// time, on the protobuf message before it is converted to the IR.
//
// Adding version N+1: raise kIrVersion (version.h, which lists what each version added),
// append an upgrader from N to IrUpgraders() (the test fails until every step has one), and
// add frozen files under testdata/compat/v<N+1>/. An upgrader whose step retires a field finds
// the old data in the message's unknown fields (the unknown-field check runs after upgrading)
// and must consume them. A step that only adds features has the identity as its upgrader: the
// reader refuses a new feature in a module that declares an older version (proto_convert.h).
#ifndef TILE_IR_UPGRADE_H_
#define TILE_IR_UPGRADE_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "tile_ir/proto/tile_ir.pb.h"

namespace tile_ir {

// The oldest ir_version this build reads.
inline constexpr int64_t kOldestSupportedIrVersion = 1;

struct IrUpgrader {
  // Rewrites a module of ir_version `from_version` into one of from_version + 1; the driver
  // sets ir_version itself.
  int64_t from_version;
  absl::Status (*upgrade)(v1::Module& module);
};

// One upgrader per step, ordered by from_version.
const std::vector<IrUpgrader>& IrUpgraders();

// Checks that module.ir_version() is between kOldestSupportedIrVersion and kIrVersion and
// upgrades it step by step to kIrVersion. A newer version is FailedPrecondition naming both
// versions; a missing (0), negative or unsupported older one is
// InvalidArgument.
absl::Status UpgradeToCurrentVersion(v1::Module& module);

}  // namespace tile_ir

#endif  // TILE_IR_UPGRADE_H_
