// Code generation for thread-level modules on the CPU: LLVM IR through
// IRBuilder, optimized for the host CPU (vectorized with its SIMD
// instructions), as text or assembly for people. The code that runs is the
// object code of object_code.h (the CPU target's Compile), which the runtime
// links (runtime/cpu/object_linker.h); cpu_compiler.h adds the lowering from
// the tile level.
//
// Semantics the generated code gives the IR (beyond tile_ir/expr.h):
//   - i32/i64 +, -, * overflow is undefined, as in C; narrower integers wrap.
//   - integer x / 0 is 0 and x % 0 is x (floordiv, floormod and ceildiv
//     likewise); MIN / -1 wraps. No input traps.
//   - float -> int casts saturate and NaN gives 0 (LLVM's fptosi.sat, CUDA's cvt).
//   - f16 arithmetic is IEEE half; bf16 and fp8 compute in f32 and round to
//     nearest even after each operation; conversions to fp8 saturate to the
//     largest finite value (CUDA's satfinite); f8e4m3 is the "fn" variant.
//   - float min/max return the non-NaN operand; comparisons are ordered, except
//     != which is true for NaN.
//   - select and &&/|| evaluate only the operand a lane needs when it reads
//     memory, so guarded loads (bound predication) never touch memory out of bounds.
//   - i4 is packed two per byte, element k in the low nibble of byte k/2 for
//     even k; stores to it are read-modify-write of the byte (not atomic).
//   - atomic_add_at(C[i], v) is a relaxed atomic read-modify-write for every
//     dtype but bool (a compare-exchange loop for bf16, fp8 and i4);
//     async_commit and async_wait are no-ops (copies are synchronous).
//   - scalar parameters are passed by pointer to their memory form (bool as
//     one byte, bf16/fp8 as their bits, i4 as an int8_t holding the value).
#ifndef TARGETS_CPU_CPU_CODEGEN_H_
#define TARGETS_CPU_CPU_CODEGEN_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "targets/cpu/host_cpu.h"  // HostCpuName, HostCpuFeatures
#include "tile_ir/module.h"

namespace tile_ir::cpu {

// One block of a kernel (docs/LOWERING.md, "The CPU calling convention"):
// args holds a pointer per kernel parameter, then a pointer per symbolic
// dimension; the runtime calls it once per block, from several threads.
// A block function keeps its shared and local buffers in its own stack frame
// (at most kCpuMaxBlockFrameBytes), so blocks may run concurrently.
using BlockFn = void (*)(void* const* args, int32_t bx, int32_t by, int32_t bz);

struct CpuCompileOptions {
  // Empty: the CPU target's default pipeline (DefaultCpuPipeline()). Used by
  // the lowering entry points of cpu_compiler.h only.
  std::string pipeline;
  // LLVM optimization level, 0-3.
  int opt_level = 3;
};

// LLVM IR text of a thread-level module, before (optimize=false) or after
// LLVM's optimization pipeline for the host CPU.
absl::StatusOr<std::string> EmitLlvmIr(const Module& lowered, bool optimize,
                                       const CpuCompileOptions& options = {});
// Host assembly of a thread-level module, optimized (shows the SIMD
// instructions used).
absl::StatusOr<std::string> EmitAssembly(const Module& lowered,
                                         const CpuCompileOptions& options = {});

}  // namespace tile_ir::cpu

#endif  // TARGETS_CPU_CPU_CODEGEN_H_
