// The emitted form of a target's library intrinsics, shared by the dialects:
//
//   eval <prefix>.<name>(a, B[i, j], ..., 4, 2);  ->  tl::<name><4, 2>(a, &B[i * N + j], ...);
//
// A '.' inside <name> becomes "::" (a namespace of the device library).
// Arguments that are buffer loads pass the element's address (a thread's own
// registers for a fragment), the last `num_template_args` arguments must be
// integer or bool literals and become template arguments, and every other
// argument passes its value. The registry records each intrinsic's arities
// and registers it as a void, impure IR intrinsic so that the verifier and
// the text parser accept it.
#ifndef TARGETS_C_SOURCE_LIBRARY_CALL_H_
#define TARGETS_C_SOURCE_LIBRARY_CALL_H_

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "targets/c_source/c_expr.h"
#include "targets/c_source/dialect.h"
#include "tile_ir/expr.h"

namespace tile_ir::c_source {

struct LibraryIntrinsic {
  std::string name;  // with its "<prefix>." part
  int num_args = 0;
  int num_template_args = 0;  // the last arguments, literals
  std::string description;
};

// Registers `name`, which must be "<prefix>.<name>" for the given prefix
// ("hip.", "cuda."). Registering the same name again with the same arities is OK;
// different arities, a name another component registered as an IR
// intrinsic, or num_template_args outside [0, num_args] are errors. `async_copy`
// marks an asynchronous copy for barrier insertion (IntrinsicInfo::async_copy).
// The one table of every C-source target's library intrinsics.
absl::Status RegisterLibraryIntrinsic(std::string_view prefix, std::string name, int num_args,
                                      int num_template_args, std::string description,
                                      bool async_copy = false);

// The registered intrinsic, or nullptr.
const LibraryIntrinsic* FindLibraryIntrinsic(std::string_view name);

// The call of `node`, named "<prefix>.<name>" with `prefix_size` the length of
// "<prefix>.", that takes its last `num_template_args` arguments as template
// arguments; errors through `context`.
CExpr EmitLibraryCall(const Call& node, size_t prefix_size, int num_template_args,
                      const Dialect& dialect, CallContext& context);

// EmitLibraryCall for a registered intrinsic of `prefix` ("hip."), or an
// error naming the unregistered or misused intrinsic.
CExpr EmitRegisteredLibraryCall(const Call& node, std::string_view prefix, const Dialect& dialect,
                                CallContext& context);

// The software pipeline's `async_commit()` and `async_wait(N)` as the device
// library's tl::cp_async_commit() and tl::cp_async_wait<N>() (empty where a
// target's copies are synchronous; kept for IR written by hand); nullopt for
// any other call.
std::optional<CExpr> EmitAsyncCopyCall(const Call& node, CallContext& context);

}  // namespace tile_ir::c_source

#endif  // TARGETS_C_SOURCE_LIBRARY_CALL_H_
