// Crash reproducers: a .tile file holding the module as it was before the
// failing pass, headed by the pipeline that still had to run, so that
// `tile-opt --run-reproducer=FILE` replays the failure.
#ifndef PASSES_PASS_REPRODUCER_H_
#define PASSES_PASS_REPRODUCER_H_

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "tile_ir/module.h"

namespace tile_ir::passes {

// The first line of every reproducer, before the quoted pipeline.
inline constexpr std::string_view kReproducerPrefix = "// tile-opt reproducer: --pass-pipeline='";

// The second line of a reproducer whose pipeline ran for a target.
inline constexpr std::string_view kReproducerTargetPrefix = "// tile-opt reproducer: --target=";

// The file text: the header line, the target line when `target` is not empty,
// then the module's text with source locations (so diagnostics of the replay
// point at the original input).
std::string FormatReproducer(const Module& module, std::string_view pipeline_text,
                             std::string_view target = "");

// Writes FormatReproducer(...) to `path`, replacing any file there.
absl::Status WriteReproducer(const std::string& path, const Module& module,
                             std::string_view pipeline_text, std::string_view target = "");

// The pipeline text from a reproducer's header line; InvalidArgument when the
// first line is not a reproducer header.
absl::StatusOr<std::string> ReadReproducerPipeline(std::string_view file_text);
// The target from a reproducer's second line; empty when it has none.
std::string ReadReproducerTarget(std::string_view file_text);

}  // namespace tile_ir::passes

#endif  // PASSES_PASS_REPRODUCER_H_
