// The verifier (tile_ir/verifier.h) on every module that reads, with inputs
// mutated through the protobuf message (module_custom_mutator.cc) so that
// most of them read: diagnostics, never a crash; a module it accepts
// survives every round trip (fuzz_checks.h).
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "fuzz/fuzz_checks.h"
#include "tile_ir/serialization.h"
#include "tile_ir/verifier.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<tile_ir::Module> module = tile_ir::ReadModuleProto(bytes, "fuzz.tilepb");
  if (!module.ok()) return 0;
  std::vector<tile_ir::Diagnostic> diagnostics = tile_ir::VerifyModule(*module);
  for (const tile_ir::Diagnostic& d : diagnostics) (void)d.ToString();
  if (diagnostics.empty()) tile_ir::fuzz::CheckRoundTrips(*module);
  return 0;
}
