// Pass pipelines as text, `simplify{max-iterations=8},lower-tile-ops,remove-dead-code`:
// the one spelling shared by tile-opt, the C++ API and target default pipelines.
#ifndef PASSES_PASS_PASS_PIPELINE_H_
#define PASSES_PASS_PASS_PIPELINE_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

namespace tile_ir::passes {

struct PipelineStep {
  std::string pass;
  // (name, value) in the order written; values are kept as text and checked
  // against the pass's option types by the pass manager.
  std::vector<std::pair<std::string, std::string>> options;

  friend bool operator==(const PipelineStep&, const PipelineStep&) = default;
};

using Pipeline = std::vector<PipelineStep>;

// Grammar (whitespace is allowed around every token; "" is the empty pipeline):
//   pipeline := step (',' step)*
//   step     := NAME ('{' (option (',' option)*)? '}')?
//   option   := NAME '=' VALUE
//   NAME     := [A-Za-z0-9_.-]+
//   VALUE    := a run of characters other than whitespace and , { } = "
//             | '"' characters, with \" and \\ escapes '"'
// Errors are InvalidArgument naming the 1-based column and what was expected,
// e.g. "invalid pass pipeline at column 9: expected '=' after option name, found '}'".
// An option given twice in one step is an error too.
absl::StatusOr<Pipeline> ParsePipeline(std::string_view text);

// The canonical text: no whitespace, options in their order, values quoted
// only when they must be. ParsePipeline(PrintPipeline(p)) == p.
std::string PrintPipeline(const Pipeline& pipeline);

}  // namespace tile_ir::passes

#endif  // PASSES_PASS_PASS_PIPELINE_H_
