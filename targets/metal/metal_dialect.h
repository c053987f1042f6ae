// The Metal Shading Language (3.1) as a dialect of the C++-source code
// generator (targets/c_source): `kernel` functions whose buffers are
// `device` pointers and scalars `constant` references bound by [[buffer(i)]],
// thread positions as attributed parameters, one static `threadgroup` pool for
// shared tiles, threadgroup and simdgroup barriers, half and bfloat, Metal's
// math functions, and the "metal." intrinsics of the device library.
#ifndef TARGETS_METAL_METAL_DIALECT_H_
#define TARGETS_METAL_METAL_DIALECT_H_

#include "targets/c_source/dialect.h"

namespace tile_ir::metal {

inline constexpr char kMetalIntrinsicPrefix[] = "metal.";

// The one Metal dialect; it holds no state.
const c_source::Dialect& MetalDialect();

}  // namespace tile_ir::metal

#endif  // TARGETS_METAL_METAL_DIALECT_H_
