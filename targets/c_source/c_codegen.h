// Emitting a thread-level module as C++ source in a dialect (dialect.h): the
// contract check (thread_level_check.h), then one function per kernel. Each
// target wraps this in its own entry point (EmitCudaSource, EmitHipSource,
// EmitMetalSource) with its header and dialect.
#ifndef TARGETS_C_SOURCE_C_CODEGEN_H_
#define TARGETS_C_SOURCE_C_CODEGEN_H_

#include <string>

#include "absl/status/statusor.h"
#include "targets/c_source/dialect.h"
#include "tile_ir/module.h"

namespace tile_ir::c_source {

// `header`, then each kernel's function after an empty line; only the kernel
// named `kernel` when that is not empty (NotFound when the module has none).
// Errors name the kernel, the node and its location.
absl::StatusOr<std::string> EmitModuleSource(const Module& lowered, const Dialect& dialect,
                                             const std::string& header,
                                             const std::string& kernel = "");

}  // namespace tile_ir::c_source

#endif  // TARGETS_C_SOURCE_C_CODEGEN_H_
