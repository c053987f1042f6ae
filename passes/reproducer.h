// Crash reproducers: a .tile file holding the module as it was before the
// failing pass, headed by the pipeline that still had to run, so that
// `tile-opt --run-reproducer=FILE` replays the failure.
#ifndef PASSES_REPRODUCER_H_
#define PASSES_REPRODUCER_H_

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "tile_ir/module.h"

namespace tile_ir::passes {

// The first line of every reproducer, before the quoted pipeline.
inline constexpr std::string_view kReproducerPrefix = "// tile-opt reproducer: --pass-pipeline='";

// The file text: the header line, then the module's text with source
// locations (so diagnostics of the replay point at the original input).
std::string FormatReproducer(const Module& module, std::string_view pipeline_text);

// Writes FormatReproducer(...) to `path`, replacing any file there.
absl::Status WriteReproducer(const std::string& path, const Module& module,
                             std::string_view pipeline_text);

// The pipeline text from a reproducer's header line; InvalidArgument when the
// first line is not a reproducer header.
absl::StatusOr<std::string> ReadReproducerPipeline(std::string_view file_text);

}  // namespace tile_ir::passes

#endif  // PASSES_REPRODUCER_H_
