// A prober's run level over a runtime device: tile-run's operator check
// (tools/tile_run) turned into the figures a record keeps.
#ifndef TOOLS_TILE_MATRIX_DEVICE_RUN_H_
#define TOOLS_TILE_MATRIX_DEVICE_RUN_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "runtime/device_base.h"
#include "ops/op_suite.h"
#include "tools/tile_matrix/prober.h"

namespace tile_ir::matrix {

// Builds, loads, runs `op` at its default shapes with `seed` and checks every
// output; an error when it could not run, figures (passed or not) when it did.
absl::StatusOr<RunFigures> RunOnDevice(runtime::Device& device, const ops::OpCase& op,
                                       uint64_t seed);

}  // namespace tile_ir::matrix

#endif  // TOOLS_TILE_MATRIX_DEVICE_RUN_H_
