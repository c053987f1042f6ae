// A fake target for the specialization plan's tests: it asks for divisibility classes up to 16
// for every kernel, as CUDA does where it splits warps, and runs no pass of its own.
#ifndef RUNTIME_JIT_TESTING_CLASSING_TARGET_H_
#define RUNTIME_JIT_TESTING_CLASSING_TARGET_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "passes/pass/target_info.h"

namespace tile_ir::runtime::jit::testing {

class ClassingTarget final : public passes::TargetInfo {
 public:
  std::string name() const override { return "classing"; }
  std::string arch() const override { return "classing"; }
  int warp_size() const override { return 32; }
  int64_t ThreadsExecutingBlock(const Launch&) const override { return 128; }
  int64_t max_shared_memory_bytes() const override { return 1 << 16; }
  int max_vector_bytes() const override { return 16; }
  bool has_async_copy() const override { return true; }
  absl::Status CheckTileOp(passes::TileOpKind, DataType) const override { return absl::OkStatus(); }
  int64_t dim_divisibility_specialization(const KernelNode&) const override { return 16; }
};

}  // namespace tile_ir::runtime::jit::testing

#endif  // RUNTIME_JIT_TESTING_CLASSING_TARGET_H_
