// One cache entry as a file: a header, the context that produced the
// artifact, the artifact, and an HMAC-SHA256 of everything before it under
// the user's secret (disk_cache.h keeps it in the folder's `key` file), so
// that an entry someone else wrote, with a checksum they recomputed, is told
// from one this user's cache wrote.
//
//   TILE-CACHE-ENTRY 2\n
//   <field=value lines: the context>
//   artifact <bytes>\n<artifact bytes>
//   \nhmac-sha256 <64 hex digits>\n
//
// Format 1 ended in a plain SHA-256 anyone could recompute; it is refused.
// Parsing needs no secret: it checks the structure and the lengths (a
// truncated entry fails here), and IsAuthentic checks the MAC, so a caller
// can name a context mismatch before an authentication failure.
#ifndef RUNTIME_JIT_CACHE_ENTRY_H_
#define RUNTIME_JIT_CACHE_ENTRY_H_

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/jit/cache_context.h"

namespace tile_ir::runtime::jit {

// The per-user secret that authenticates entries: 32 random bytes.
using EntrySecret = std::array<uint8_t, 32>;

std::string SerializeEntry(const CacheContext& context, std::string_view artifact,
                           const EntrySecret& secret);

struct ParsedEntry {
  CacheContext context;
  std::string artifact;
  size_t authenticated_size = 0;  // the bytes before the trailer, which its MAC covers
  std::string mac;                // the trailer's 64 hex digits
};

// DataLoss naming what is wrong (bad header, truncated: "N bytes, expected
// M", a malformed context) when the file is not a whole entry;
// FailedPrecondition for an entry of another format version (format 1 had no
// authentication).
absl::StatusOr<ParsedEntry> ParseEntry(std::string_view bytes);

// Whether `entry`, parsed from `bytes`, carries the MAC that `secret` gives.
bool IsAuthentic(std::string_view bytes, const ParsedEntry& entry, const EntrySecret& secret);

// Several named byte strings in one artifact ("lowered", "object", ...), in
// the order given: "<name> <bytes>\n<bytes>" each.
std::string PackSections(const std::vector<std::pair<std::string, std::string>>& sections);
absl::StatusOr<std::vector<std::pair<std::string, std::string>>> UnpackSections(
    std::string_view bytes);

}  // namespace tile_ir::runtime::jit

#endif  // RUNTIME_JIT_CACHE_ENTRY_H_
