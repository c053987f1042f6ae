// What the pipeline fuzz targets (cpu_pipeline, gpu_pipelines) check for one
// target on one verified module: its default pipeline and code generator may
// refuse the module with a message, but an internal error (a failed invariant,
// "pass 'x' produced IR that does not verify") or lowered IR that does not
// verify is a bug in the compiler, reported through fuzz::Fail.
#ifndef FUZZ_TARGET_PIPELINE_CHECK_H_
#define FUZZ_TARGET_PIPELINE_CHECK_H_

#include "targets/target.h"
#include "tile_ir/module.h"

namespace tile_ir::fuzz {

// Runs `target`'s Lower (the default pipeline) and Emit on `module`, which
// verifies. Compile is left out: it needs the vendor's compiler.
void CheckTargetPipeline(const targets::Target& target, const Module& module);

}  // namespace tile_ir::fuzz

#endif  // FUZZ_TARGET_PIPELINE_CHECK_H_
