// The JSON reader (tile_ir/serialization.h) on arbitrary bytes: a module or
// an error, never a crash; a module that verifies survives every round trip
// (fuzz_checks.h).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz/fuzz_checks.h"
#include "tile_ir/serialization.h"
#include "tile_ir/verifier.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view json(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<tile_ir::Module> module = tile_ir::ReadModuleJson(json, "fuzz.json");
  if (module.ok() && tile_ir::Verify(*module).ok()) tile_ir::fuzz::CheckRoundTrips(*module);
  return 0;
}
