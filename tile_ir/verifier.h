// Checks that a module is well formed: every variable and buffer is defined
// before use and declared once, types and ranks agree, scopes are used as the
// tile operations require, loop annotations are valid, and constant regions
// of on-chip buffers stay inside them (a global region may reach past the
// tensor's edge, where its accesses are masked). Each message names the
// kernel, the statement and its source location when it has one.
#ifndef TILE_IR_VERIFIER_H_
#define TILE_IR_VERIFIER_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "tile_ir/module.h"

namespace tile_ir {

struct Diagnostic {
  SourceLoc loc;       // may be unknown
  std::string kernel;  // empty for module-level problems
  std::string message;
  // "file:line:col: error: in kernel 'k': message" (parts omitted when unknown).
  std::string ToString() const;
};

std::vector<Diagnostic> VerifyModule(const Module& module);
std::vector<Diagnostic> VerifyKernel(const KernelNode& kernel);

// OK, or InvalidArgument whose message lists every diagnostic, one per line.
absl::Status Verify(const Module& module);

}  // namespace tile_ir

#endif  // TILE_IR_VERIFIER_H_
