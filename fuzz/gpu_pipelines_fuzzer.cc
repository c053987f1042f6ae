// The GPU targets' default pipelines and code generators on every module that
// verifies, with inputs mutated through the protobuf message
// (module_custom_mutator.cc); what counts as a bug: target_pipeline_check.h.
// One target runs all four so that the CI smoke pays for one: CUDA sm_80
// (mma.sync, cp.async), CUDA sm_90a (wgmma, warp specialization with TMA), HIP
// gfx90a and Metal. sm_90a takes, by the input's size modulo 4, its defaults (TMA stores on),
// persistent blocks on few SMs ({persistent=on,sms=4}: every split kernel's roles loop over
// tiles), clusters of two ({cluster=2}: blocks that share a tile load it with a multicast) or
// persistent blocks with direct stores ({tma_store=off}), so these forms are fuzzed at the cost
// of one. They come
// from the registry without the CPU family, so the binary links no LLVM.
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
// Take sm_90a's place for inputs of size % 4 == 1, 2 and 3.
constexpr std::string_view kPersistentTarget = "cuda:sm_90a{persistent=on,sms=4}";
constexpr std::string_view kClusterTarget = "cuda:sm_90a{cluster=2}";
constexpr std::string_view kDirectStoreTarget = "cuda:sm_90a{persistent=on,sms=4,tma_store=off}";

std::shared_ptr<const tile_ir::targets::Target> Resolve(std::string_view name) {
  auto target = tile_ir::targets::LinkedTargets().Resolve(name);
  if (!target.ok()) {
    tile_ir::fuzz::Fail("a GPU target does not resolve", target.status().ToString());
  }
  return *std::move(target);
}

std::vector<std::shared_ptr<const tile_ir::targets::Target>> ResolveTargets() {
  std::vector<std::shared_ptr<const tile_ir::targets::Target>> targets;
  for (std::string_view name : kTargets) targets.push_back(Resolve(name));
  return targets;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::vector<std::shared_ptr<const tile_ir::targets::Target>> targets =
      ResolveTargets();
  static const std::shared_ptr<const tile_ir::targets::Target> persistent =
      Resolve(kPersistentTarget);
  static const std::shared_ptr<const tile_ir::targets::Target> clusters = Resolve(kClusterTarget);
  static const std::shared_ptr<const tile_ir::targets::Target> direct_stores =
      Resolve(kDirectStoreTarget);
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<tile_ir::Module> module = tile_ir::ReadModuleProto(bytes, "fuzz.tilepb");
  if (!module.ok() || !tile_ir::Verify(*module).ok()) return 0;
  const std::shared_ptr<const tile_ir::targets::Target> sm90a_forms[] = {nullptr, persistent,
                                                                           clusters, direct_stores};
  for (const auto& target : targets) {
    const auto& form = sm90a_forms[size % 4];
    const bool swap = form != nullptr && target->ToString() == "cuda:sm_90a";
    tile_ir::fuzz::CheckTargetPipeline(swap ? *form : *target, *module);
  }
  return 0;
}
