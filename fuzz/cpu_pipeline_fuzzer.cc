// The CPU target's default pipeline and code generator on every module that
// verifies, with inputs mutated through the protobuf message
// (module_custom_mutator.cc); what counts as a bug: target_pipeline_check.h.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

#include "fuzz/target_pipeline_check.h"
#include "targets/cpu/cpu_target.h"
#include "tile_ir/serialization.h"
#include "tile_ir/verifier.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::unique_ptr<tile_ir::targets::Target> target = tile_ir::cpu::MakeCpuTarget();
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<tile_ir::Module> module = tile_ir::ReadModuleProto(bytes, "fuzz.tilepb");
  if (!module.ok() || !tile_ir::Verify(*module).ok()) return 0;
  tile_ir::fuzz::CheckTargetPipeline(*target, *module);
  return 0;
}
