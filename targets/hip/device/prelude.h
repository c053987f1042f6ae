// HIP's side of the portable device headers (targets/c_source/device/, "tl/portable/*.h"):
// what they use that each vendor spells its own way. The runtime and the bf16 type, its value
// in f32 and back (widen, narrow), the bits of f16 and bf16 (to_bits: an overload set, so it
// comes before the template of tl::atomic_add that looks it up), and exp2_ftz on f32.
#pragma once

#include <hip/hip_bfloat16.h>
#include <hip/hip_fp16.h>
#include <hip/hip_runtime.h>

namespace tl {

__device__ __forceinline__ float widen(hip_bfloat16 x) { return static_cast<float>(x); }
__device__ __forceinline__ hip_bfloat16 narrow(float x, hip_bfloat16) { return hip_bfloat16(x); }

__device__ __forceinline__ unsigned to_bits(__half v) { return __half_as_ushort(v); }
__device__ __forceinline__ unsigned to_bits(hip_bfloat16 v) { return v.data; }

// exp2_ftz (tile_ir/intrinsics.cc) may flush results below the smallest normal to zero; it
// need not, and here it is exp2f.
__device__ __forceinline__ float exp2_ftz(float x) { return exp2f(x); }

}  // namespace tl
