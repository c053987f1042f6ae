// A Target for the fake devices of tests, whose kernels are C++ over the
// tile-level signature: it runs no pass and its "binary" is the kernel's text,
// so a fake device's LoadCompiled gets the module it was given.
#ifndef RUNTIME_TESTING_PASS_THROUGH_TARGET_H_
#define RUNTIME_TESTING_PASS_THROUGH_TARGET_H_

#include <memory>
#include <string>

#include "targets/target.h"

namespace tile_ir::runtime::testing {

// The target named `family` (no architecture, no options); its binaries have
// format "tile". It describes itself to passes as test-cpu
// (passes/testing/fake_targets.h), though none runs.
std::unique_ptr<targets::Target> MakePassThroughTarget(const std::string& family);

}  // namespace tile_ir::runtime::testing

#endif  // RUNTIME_TESTING_PASS_THROUGH_TARGET_H_
