// Writing for an older reader (tile-opt --ir-version=N): whether a module can be written as
// ir_version N, and if not, the feature that needs a newer version.
//
// Every version step so far only added features (upgrade.cc's upgraders are the identity),
// so a module that uses nothing newer than N already is a version-N module, and the writers
// (serialization.h, printer.h) stamp it with the oldest version that has all it uses, which
// is then at most N: every reader from that version on, N's included, reads it. A future step
// that changes how something is represented needs its downgrade here, as it has its upgrade
// in upgrade.cc.
#ifndef TILE_IR_WRITE_VERSION_H_
#define TILE_IR_WRITE_VERSION_H_

#include <cstdint>

#include "absl/status/status.h"
#include "tile_ir/module.h"

namespace tile_ir {

// OK when this build can write for readers of ir_version `version`: from
// kOldestSupportedIrVersion (upgrade.h) to kIrVersion; InvalidArgument naming that range.
absl::Status CheckWritableIrVersion(int64_t version);

// OK when CheckWritableIrVersion(version) is and `module` uses no feature newer than
// `version`; FailedPrecondition naming the first such feature, where it is, and the version
// it needs.
absl::Status CheckWritableAsIrVersion(const Module& module, int64_t version);

}  // namespace tile_ir

#endif  // TILE_IR_WRITE_VERSION_H_
