// The kernel cache's entry reader (runtime/jit/cache_entry.h) on arbitrary
// bytes, as it meets a damaged or foreign cache file: an entry or DataLoss,
// never a crash. What it accepts writes back to an entry that reads the same
// and authenticates under the secret it was written with, and so do the
// artifact's sections.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz/fuzz_checks.h"
#include "runtime/jit/cache_entry.h"

namespace jit = tile_ir::runtime::jit;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  (void)jit::CacheContext::Parse(bytes);
  absl::StatusOr<jit::ParsedEntry> entry = jit::ParseEntry(bytes);
  if (!entry.ok()) return 0;
  const jit::EntrySecret secret = {7};
  const std::string written = jit::SerializeEntry(entry->context, entry->artifact, secret);
  absl::StatusOr<jit::ParsedEntry> again = jit::ParseEntry(written);
  if (!again.ok()) {
    tile_ir::fuzz::Fail("a rewritten cache entry does not parse",
                        std::string(again.status().message()));
  }
  if (!jit::IsAuthentic(written, *again, secret) || !(again->context == entry->context) ||
      again->artifact != entry->artifact) {
    tile_ir::fuzz::Fail("a rewritten cache entry reads differently", written);
  }
  auto sections = jit::UnpackSections(entry->artifact);
  if (!sections.ok()) return 0;
  auto repacked = jit::UnpackSections(jit::PackSections(*sections));
  if (!repacked.ok() || *repacked != *sections) {
    tile_ir::fuzz::Fail("repacked artifact sections read differently", entry->artifact);
  }
  return 0;
}
