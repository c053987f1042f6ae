// tile-run --explain: an operator's default config for the run's shapes and target (or the one
// --config names), why each parameter has its value, and what the target's lowering decided
// for that config (its
// passes' remarks: a producer warpgroup or not and why, persistent tiles or not, fragments
// staged through shared memory). It needs the target, not a device: it compiles nothing.
#ifndef TOOLS_TILE_RUN_EXPLAIN_OP_H_
#define TOOLS_TILE_RUN_EXPLAIN_OP_H_

#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ops/op_suite.h"
#include "runtime/jit/autotuner.h"
#include "targets/target.h"

namespace tile_ir::tools {

// The remarks of lowering `op` at `config` for `target`, with `dims` compiled in as constants
// when `static_shapes` (as --static-shapes runs it).
absl::StatusOr<std::vector<std::string>> LoweringRemarks(const ops::OpCase& op,
                                                         const runtime::jit::Config& config,
                                                         const ops::Shapes& dims,
                                                         bool static_shapes,
                                                         const targets::Target& target);

// Prints the explanation; `order` is the kernel's dimensions, for printing shapes. With
// `given` (--config), what the lowering decides for that config instead of the default.
// Whether the lowering succeeded (its failure is printed).
bool Explain(const ops::OpCase& op, const ops::Shapes& dims, const std::vector<std::string>& order,
             bool static_shapes, const targets::Target& target, std::ostream& out,
             const runtime::jit::Config* given = nullptr);

// --explain for a kernel that runs as written (a file's, or one without a config space: not in
// the suite, or an operator with one config): prints `heading`, then its lowering's remarks for
// `target` with `dims`
// compiled in (`static_shapes`) or, as a run compiles it, the dims sizing fragments compiled
// in and the others' divisibility classes where the target asks for them. Whether the lowering
// succeeded (its failure is printed).
bool ExplainAsWritten(const Kernel& kernel, const std::map<std::string, int64_t>& dims,
                      bool static_shapes, const targets::Target& target, const std::string& heading,
                      std::ostream& out);

// Below an autotuning table: each timed candidate's lowering remarks, so that the table says
// which candidates the target split into a producer and consumers, and why not the others.
std::string FormatCandidateRemarks(const ops::OpCase& op, const runtime::jit::TuningResult& result,
                                   const ops::Shapes& dims, bool static_shapes,
                                   const targets::Target& target);

}  // namespace tile_ir::tools

#endif  // TOOLS_TILE_RUN_EXPLAIN_OP_H_
