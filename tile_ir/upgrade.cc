// The version policy and the list of upgraders, one per ir_version step (upgrade.h).
#include "tile_ir/upgrade.h"

#include "absl/strings/str_format.h"
#include "tile_ir/module.h"

namespace tile_ir {
namespace {

// Version 2 only added BINARY_OP_XOR: every version-1 message is a version-2 message.
absl::Status UpgradeFrom1(v1::Module&) { return absl::OkStatus(); }
// Version 3 only added Kernel.requirements: every version-2 message is a version-3 message.
absl::Status UpgradeFrom2(v1::Module&) { return absl::OkStatus(); }
// Version 4 only added Layout.replica: every version-3 message is a version-4 message.
absl::Status UpgradeFrom3(v1::Module&) { return absl::OkStatus(); }
// Version 5 only added BINARY_OP_BIT_AND, BIT_OR, SHL and SHR and three intrinsics: every
// version-4 message is a version-5 message.
absl::Status UpgradeFrom4(v1::Module&) { return absl::OkStatus(); }
// Version 6 only added five ReduceKind values: every version-5 message is a version-6 message.
absl::Status UpgradeFrom5(v1::Module&) { return absl::OkStatus(); }
// Version 7 only added the ScalarType values U16, U32 and U64: every version-6 message is a
// version-7 message.
absl::Status UpgradeFrom6(v1::Module&) { return absl::OkStatus(); }

}  // namespace

const std::vector<IrUpgrader>& IrUpgraders() {
  static const auto* const kUpgraders = new std::vector<IrUpgrader>{
      {1, UpgradeFrom1}, {2, UpgradeFrom2}, {3, UpgradeFrom3},
      {4, UpgradeFrom4}, {5, UpgradeFrom5}, {6, UpgradeFrom6},
  };
  return *kUpgraders;
}

absl::Status UpgradeToCurrentVersion(v1::Module& module) {
  const int64_t version = module.ir_version();
  if (version > kIrVersion) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "module has ir_version %d, newer than this reader's %d; upgrade the toolkit", version,
        kIrVersion));
  }
  if (version == 0) {
    return absl::InvalidArgumentError(
        absl::StrFormat("module has no ir_version (0 or unset); expected %d to %d",
                        kOldestSupportedIrVersion, kIrVersion));
  }
  if (version < kOldestSupportedIrVersion) {
    return absl::InvalidArgumentError(
        absl::StrFormat("module has ir_version %d; this reader reads ir_version %d to %d", version,
                        kOldestSupportedIrVersion, kIrVersion));
  }
  for (const IrUpgrader& step : IrUpgraders()) {
    if (step.from_version != module.ir_version()) continue;
    if (absl::Status status = step.upgrade(module); !status.ok()) {
      return absl::Status(status.code(), absl::StrFormat("upgrading from ir_version %d to %d: %s",
                                                         step.from_version, step.from_version + 1,
                                                         status.message()));
    }
    module.set_ir_version(step.from_version + 1);
  }
  if (module.ir_version() != kIrVersion) {
    return absl::InternalError(
        absl::StrFormat("no upgrader from ir_version %d; this build's upgraders do not reach %d",
                        module.ir_version(), kIrVersion));
  }
  return absl::OkStatus();
}

}  // namespace tile_ir
