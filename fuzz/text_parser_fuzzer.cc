// The text parser (frontends/text/parser.h) on arbitrary bytes: a module or
// an error, never a crash, hang or leak; a module that verifies survives
// printing and reading back in every form (fuzz_checks.h).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "frontends/text/parser.h"
#include "fuzz/fuzz_checks.h"
#include "tile_ir/verifier.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<tile_ir::Module> module = tile_ir::text::ParseModule(text, "fuzz.tile");
  if (module.ok() && tile_ir::Verify(*module).ok()) tile_ir::fuzz::CheckRoundTrips(*module);
  return 0;
}
