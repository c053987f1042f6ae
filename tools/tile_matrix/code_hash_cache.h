// Code hashes kept between runs of one build: lowering every operator for every target to judge
// staleness takes a minute unoptimized, and the answer depends on nothing but the code of the
// running binary and the libraries it loaded. So the file is keyed by their GNU build ids (the
// linker's hash of each object's contents); a binary or library without one gets no cache.
#ifndef TOOLS_TILE_MATRIX_CODE_HASH_CACHE_H_
#define TOOLS_TILE_MATRIX_CODE_HASH_CACHE_H_

#include <map>
#include <optional>
#include <string>

namespace tile_ir::matrix {

// The build ids of the running binary and of every library loaded so far, one per line, or
// nullopt when an object has none (nothing then proves that two runs are the same code).
std::optional<std::string> LoadedCodeIdentity();

// What one (operator, target) generated, with the hashes of what it was generated from.
struct CachedCodeHash {
  std::string ir_hash;
  std::string lowering_hash;
  std::string code_hash;
};

class CodeHashCache {
 public:
  // The cache of `identity` in `directory` (created when first written); read now when there.
  // An unreadable or malformed file is an empty cache.
  CodeHashCache(std::string directory, std::string identity);

  // The code hash of (op, target) when this build stored one made from the same IR and lowering.
  std::optional<std::string> Find(const std::string& op, const std::string& target,
                                  const std::string& ir_hash,
                                  const std::string& lowering_hash) const;
  void Store(const std::string& op, const std::string& target, CachedCodeHash hash);

  // Writes the file (a temporary file renamed over it) when something was stored; a cache that
  // cannot be written is only slower next time, so failures are ignored.
  void Save();

  const std::string& path() const { return path_; }

 private:
  std::string directory_;
  std::string identity_;
  std::string path_;
  std::map<std::pair<std::string, std::string>, CachedCodeHash> hashes_;
  bool changed_ = false;
};

// Where the matrix's code-hash caches live: tile-matrix/ in the kernel cache's folder
// ($TILE_CACHE_DIR, $XDG_CACHE_HOME/tile or ~/.cache/tile), or nullopt with TILE_DISABLE_CACHE=1.
std::optional<std::string> CodeHashCacheDirectory();

}  // namespace tile_ir::matrix

#endif  // TOOLS_TILE_MATRIX_CODE_HASH_CACHE_H_
