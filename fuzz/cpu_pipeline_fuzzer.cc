// The CPU target's default pipeline and code generator on every module that
// verifies, with inputs mutated through the protobuf message
// (module_custom_mutator.cc). A pass may refuse a module with an error, but
// an internal error ("pass 'x' produced IR that does not verify", a failed
// invariant) on verified input is a bug, and so is a crash.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "fuzz/fuzz_checks.h"
#include "targets/cpu/cpu_target.h"
#include "tile_ir/printer.h"
#include "tile_ir/serialization.h"
#include "tile_ir/verifier.h"

namespace {

void FailOnInternal(std::string_view step, const absl::Status& status,
                    const tile_ir::Module& input) {
  if (status.code() != absl::StatusCode::kInternal) return;
  tile_ir::fuzz::Fail(std::string(step) + " failed with an internal error on verified input",
                      std::string(status.message()) + "\n--- input:\n" + tile_ir::Print(input));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::unique_ptr<tile_ir::targets::Target> target = tile_ir::cpu::MakeCpuTarget();
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<tile_ir::Module> module = tile_ir::ReadModuleProto(bytes, "fuzz.tilepb");
  if (!module.ok() || !tile_ir::Verify(*module).ok()) return 0;
  absl::StatusOr<tile_ir::Module> lowered = target->Lower(*module);
  if (!lowered.ok()) {
    FailOnInternal("the cpu pipeline", lowered.status(), *module);
    return 0;
  }
  if (absl::Status valid = tile_ir::Verify(*lowered); !valid.ok()) {
    tile_ir::fuzz::Fail("the cpu pipeline produced IR that does not verify",
                        std::string(valid.message()) + "\n--- input:\n" + tile_ir::Print(*module));
  }
  absl::StatusOr<std::string> source = target->Emit(*lowered, {});
  if (!source.ok()) FailOnInternal("the cpu code generator", source.status(), *module);
  return 0;
}
