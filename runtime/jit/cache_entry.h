// One cache entry as a file: a header, the context that produced the
// artifact, the artifact, and a SHA-256 checksum of everything before it.
//
//   TILE-CACHE-ENTRY 1\n
//   <field=value lines: the context>
//   artifact <bytes>\n<artifact bytes>
//   \nsha256 <64 hex digits>\n
//
// Parsing checks the structure and the lengths (a truncated entry fails
// here) and reports whether the checksum matches, so a caller can name a
// context mismatch before a checksum mismatch.
#ifndef RUNTIME_JIT_CACHE_ENTRY_H_
#define RUNTIME_JIT_CACHE_ENTRY_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/jit/cache_context.h"

namespace tile_ir::runtime::jit {

std::string SerializeEntry(const CacheContext& context, std::string_view artifact);

struct ParsedEntry {
  CacheContext context;
  std::string artifact;
  bool checksum_ok = false;
};

// DataLoss naming what is wrong (bad header, truncated: "N bytes, expected
// M", a malformed context) when the file is not a whole entry.
absl::StatusOr<ParsedEntry> ParseEntry(std::string_view bytes);

// Several named byte strings in one artifact ("lowered", "object", ...), in
// the order given: "<name> <bytes>\n<bytes>" each.
std::string PackSections(const std::vector<std::pair<std::string, std::string>>& sections);
absl::StatusOr<std::vector<std::pair<std::string, std::string>>> UnpackSections(
    std::string_view bytes);

}  // namespace tile_ir::runtime::jit

#endif  // RUNTIME_JIT_CACHE_ENTRY_H_
