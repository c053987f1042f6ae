// A kernel's signature as tile-run matches it to an operator of the suite:
// --check finds the reference by kernel name, and the reference reads and
// writes the operator's parameters by name, dtype and shape, so a kernel named
// like an operator must have the operator's signature.
#ifndef TOOLS_TILE_RUN_SIGNATURE_H_
#define TOOLS_TILE_RUN_SIGNATURE_H_

#include <optional>
#include <string>

#include "tile_ir/module.h"

namespace tile_ir::tools {

// "gemm_f16(A: f16[M, K], B: f16[K, N], C: f32[M, N])"; scalars as "alpha: f32".
std::string FormatSignature(const KernelNode& kernel);

// The first way `kernel`'s signature differs from `op_kernel`'s (dimension
// names, order and dtypes; parameter names and order; buffer or scalar;
// dtypes, ranks, shape expressions and strides), as a phrase to follow "but":
// "its parameter 'C' is f16 where the operator's is f32". nullopt when they agree.
std::optional<std::string> SignatureDifference(const KernelNode& kernel,
                                               const KernelNode& op_kernel);

}  // namespace tile_ir::tools

#endif  // TOOLS_TILE_RUN_SIGNATURE_H_
