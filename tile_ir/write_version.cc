#include "tile_ir/write_version.h"

#include "absl/strings/str_cat.h"
#include "tile_ir/upgrade.h"
#include "tile_ir/version.h"

namespace tile_ir {

absl::Status CheckWritableIrVersion(int64_t version) {
  if (version >= kOldestSupportedIrVersion && version <= kIrVersion) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("ir_version ", version, " cannot be written: this build writes ir_version ",
                   kOldestSupportedIrVersion, " to ", kIrVersion));
}

absl::Status CheckWritableAsIrVersion(const Module& module, int64_t version) {
  if (absl::Status status = CheckWritableIrVersion(version); !status.ok()) return status;
  std::optional<IrFeature> newer = FirstFeatureNewerThan(module, version);
  if (!newer) return absl::OkStatus();
  return absl::FailedPreconditionError(
      absl::StrCat("the module cannot be written as ir_version ", version, ": ", newer->description,
                   " needs ir_version ", newer->introduced_in, " (a reader of ir_version ", version,
                   " would refuse it)"));
}

}  // namespace tile_ir
