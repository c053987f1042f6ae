// Code generation for thread-level modules on Metal: the Metal Shading
// Language 3.1, one `kernel` function per kernel over the device library
// device/metal.h. metal_lowering.h adds the lowering from the tile level.
// The walk over the IR is targets/c_source's with the Metal dialect.
// Nothing on these machines compiles MSL: golden tests pin the source, and
// the support matrix marks Metal as emitted, not compiled.
//
// Semantics are the CUDA target's (targets/cuda/cuda_codegen.h), except:
//   - no f64 and no fp8 (refused); i64 is `long`; integer -> f16/bf16
//     conversions go through f32 (exact up to 2^24, then two roundings);
//   - the host must compile with fast math off (MTLCompileOptions
//     mathMode = safe): the emitted code calls Metal's float functions;
//   - erf is the device library's approximation (within 1e-7);
//   - every element moves on its own (no vector moves); shared tiles live in
//     one static threadgroup pool; barrier(warp) is a simdgroup barrier;
//   - async_commit and async_wait do nothing: copies are synchronous.
#ifndef TARGETS_METAL_METAL_CODEGEN_H_
#define TARGETS_METAL_METAL_CODEGEN_H_

#include <string>

#include "absl/status/statusor.h"
#include "tile_ir/module.h"

namespace tile_ir::metal {

struct MetalCodegenOptions {
  // Emit only this kernel; empty: every kernel of the module.
  std::string kernel;
  // Put the device library's text in the source instead of including
  // "tl/metal.h": what MTLDevice newLibraryWithSource needs, since it
  // resolves no includes.
  bool embed_library = false;
};

// The MSL source of a thread-level module (docs/LOWERING.md, "The Metal
// calling convention"). Errors name the kernel, the node and its location.
absl::StatusOr<std::string> EmitMetalSource(const Module& lowered,
                                            const MetalCodegenOptions& options = {});

// The device library's source (device/metal.h).
std::string_view MetalLibrarySource();

}  // namespace tile_ir::metal

#endif  // TARGETS_METAL_METAL_CODEGEN_H_
