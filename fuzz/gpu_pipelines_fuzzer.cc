// The GPU targets' default pipelines and code generators on every module that
// verifies, with inputs mutated through the protobuf message
// (module_custom_mutator.cc); what counts as a bug: target_pipeline_check.h.
// One target runs all four so that the CI smoke pays for one: CUDA sm_80
// (mma.sync, cp.async), CUDA sm_90a at its defaults (wgmma, warp
// specialization with TMA), HIP gfx90a and Metal. They come from the registry
// without the CPU family, so the binary links no LLVM.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz/fuzz_checks.h"
#include "fuzz/target_pipeline_check.h"
#include "targets/target_registry.h"
#include "tile_ir/serialization.h"
#include "tile_ir/verifier.h"

namespace {

constexpr std::string_view kTargets[] = {"cuda:sm_80", "cuda:sm_90a", "hip:gfx90a", "metal"};

std::vector<std::shared_ptr<const tile_ir::targets::Target>> ResolveTargets() {
  std::vector<std::shared_ptr<const tile_ir::targets::Target>> targets;
  for (std::string_view name : kTargets) {
    auto target = tile_ir::targets::LinkedTargets().Resolve(name);
    if (!target.ok()) {
      tile_ir::fuzz::Fail("a GPU target does not resolve", target.status().ToString());
    }
    targets.push_back(*std::move(target));
  }
  return targets;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::vector<std::shared_ptr<const tile_ir::targets::Target>> targets =
      ResolveTargets();
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<tile_ir::Module> module = tile_ir::ReadModuleProto(bytes, "fuzz.tilepb");
  if (!module.ok() || !tile_ir::Verify(*module).ok()) return 0;
  for (const auto& target : targets) tile_ir::fuzz::CheckTargetPipeline(*target, *module);
  return 0;
}
