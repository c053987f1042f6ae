// Memory forms of HIP's narrow float types (packed i4, the atomic adds, maximum and minimum are
// tl/portable/memory.h): f16 and bf16 from their bits, for the compare-and-swap loops.
#pragma once

#include <hip/hip_bfloat16.h>
#include <hip/hip_fp16.h>
#include <hip/hip_runtime.h>

// The narrow floats' min and max first, for the atomic maximum and minimum's templates.
#include "tl/arith.h"
#include "tl/portable/memory.h"

namespace tl {

template <>
__device__ __forceinline__ __half from_bits<__half>(unsigned bits) {
  return __ushort_as_half(static_cast<unsigned short>(bits));
}
template <>
__device__ __forceinline__ hip_bfloat16 from_bits<hip_bfloat16>(unsigned bits) {
  hip_bfloat16 v;
  v.data = static_cast<unsigned short>(bits);
  return v;
}

}  // namespace tl
