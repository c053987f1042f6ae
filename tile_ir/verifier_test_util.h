// Shared pieces of the verifier tests: a valid GEMM kernel to break in one
// place at a time, and a matcher for "exactly this one error, located".
#ifndef TILE_IR_VERIFIER_TEST_UTIL_H_
#define TILE_IR_VERIFIER_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tile_ir/buffer.h"
#include "tile_ir/expr.h"
#include "tile_ir/module.h"
#include "tile_ir/stmt.h"
#include "tile_ir/verifier.h"

namespace tile_ir::verifier_testing {

// The location broken statements are built with; statement errors point here.
inline const SourceLoc kUserLoc{"user.cc", 12, 3};
// The location of the test kernels; signature and launch errors point here.
inline const SourceLoc kKernelLoc{"user.cc", 1, 1};

// The parts of a tiled GEMM: C[M, N] = A[M, K] * B[K, N] in 128x128x32 tiles.
struct GemmParts {
  GemmParts();

  // The kernel "matmul" whose body is the allocations of a_s, b_s and c_l
  // followed by `stmts`.
  Kernel WithBody(std::vector<Stmt> stmts) const;
  // The same with another launch configuration.
  Kernel WithLaunch(Launch launch, std::vector<Stmt> stmts = {}) const;
  // The complete, valid GEMM.
  Kernel Valid() const;
  Launch DefaultLaunch() const;

  VarRef m, n, k;   // kernel dimensions
  Buffer a, b, c;   // global f16[M, K], f16[K, N], f32[M, N]
  VarRef bx, by;    // block indices
  Buffer a_s, b_s;  // shared f16[128, 32] and f16[32, 128]
  Buffer c_l;       // fragment f32[128, 128]
};

// A region from (min, extent) pairs of constants.
Region ConstRegion(const Buffer& buffer, std::vector<std::pair<int64_t, int64_t>> ranges);
// `let v: <its type> = value` at kUserLoc: a statement to carry an expression.
Stmt LetAtUserLoc(Expr value, std::string name = "v");

std::string DiagnosticsText(const std::vector<Diagnostic>& diagnostics);

// Success when `diagnostics` is exactly one error in kernel "matmul", at
// `loc`, whose message contains `substring`.
::testing::AssertionResult IsOneError(const std::vector<Diagnostic>& diagnostics,
                                      const std::string& substring,
                                      const SourceLoc& loc = kUserLoc);
// IsOneError for the diagnostics of VerifyKernel(*kernel).
::testing::AssertionResult HasOneError(const Kernel& kernel, const std::string& substring,
                                       const SourceLoc& loc = kUserLoc);

}  // namespace tile_ir::verifier_testing

#endif  // TILE_IR_VERIFIER_TEST_UTIL_H_
