// tile-run as a library: run a kernel of a module (or every operator of the
// suite) on a device with seeded random inputs, check it against the float64
// reference and time it. The binary is a one-line main; tests pass their own
// device and operator suite through TileRunEnvironment.
#ifndef TOOLS_TILE_RUN_TILE_RUN_MAIN_H_
#define TOOLS_TILE_RUN_TILE_RUN_MAIN_H_

#include <functional>
#include <iosfwd>
#include <memory>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/device_base.h"
#include "runtime/jit/jit_backend.h"
#include "targets/target.h"
#include "ops/op_suite.h"

namespace tile_ir::tools {

struct TileRunEnvironment {
  // Opens the device that --target names (runtime::OpenDevice in the binary).
  std::function<absl::StatusOr<std::unique_ptr<runtime::Device>>(std::string_view target)>
      open_device;
  // The operators --list and --all go through, and where a kernel's reference
  // is looked up by name (ops::OperatorSuite() in the binary).
  const std::vector<ops::OpCase>* suite = nullptr;
  // Opens the JIT backend for --target (runtime::jit::OpenJitBackend in the
  // binary). When set, a FILE or operator run compiles through the kernel
  // cache (--cache-dir) on the backend's device, and --autotune works; when
  // not, every run compiles through open_device's Device::Load.
  std::function<absl::StatusOr<std::unique_ptr<runtime::jit::JitBackend>>(std::string_view target)>
      open_jit_backend;
  // The target --target names, without opening a device (targets::LinkedTargets().Resolve in
  // the binary): --explain alone needs only this.
  std::function<absl::StatusOr<std::shared_ptr<const targets::Target>>(std::string_view target)>
      resolve_target;
  // Redraw a progress bar on `err` while autotuning (the binary: stderr is a
  // terminal); a final summary line is written either way.
  bool progress_bar = false;
};

// Returns the process exit status: 0 only when everything succeeded (and,
// with --check or --all, every output passed), 1 when a run failed, 2 for a
// bad command line.
int TileRunMain(int argc, char** argv, std::ostream& out, std::ostream& err,
                const TileRunEnvironment& env);

}  // namespace tile_ir::tools

#endif  // TOOLS_TILE_RUN_TILE_RUN_MAIN_H_
