// The context of a compiled kernel: every input that changes the binary
// (canonical IR, pipeline, target and exact architecture, toolkit versions,
// project version, device library, the environment variables that change
// compilation). Its hash is the cache key; an entry stores it whole, so a
// load can name the field that differs from the running process's.
#ifndef RUNTIME_JIT_CACHE_CONTEXT_H_
#define RUNTIME_JIT_CACHE_CONTEXT_H_

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

namespace tile_ir::runtime::jit {

// The project's version, part of every key ("0.1.0+jit<N>"; N counts changes
// of the entry format and of what a key covers).
std::string_view ProjectVersion();

// Environment variables that change what a compile produces, each recorded
// in the context as "env.<NAME>" (unset and empty are the same). Add a
// variable here, and nowhere else, when a compiler starts reading one.
const std::vector<std::string>& CompileEnvironmentVariables();

// Ordered field = value pairs. Field names are [a-z0-9_.] words; values are
// any bytes but '\n'.
class CacheContext {
 public:
  // Sets a field, replacing its value where it exists (the order of first
  // setting is kept). A '\n' in the value is stored as "\\n".
  void Set(std::string_view field, std::string_view value);
  // nullopt when absent.
  std::optional<std::string> Get(std::string_view field) const;
  const std::vector<std::pair<std::string, std::string>>& fields() const { return fields_; }

  // One "field=value\n" line per field.
  std::string Serialize() const;
  static absl::StatusOr<CacheContext> Parse(std::string_view text);

  // The cache key: the first 32 hex digits (128 bits) of the SHA-256 of Serialize().
  std::string Key() const;

  friend bool operator==(const CacheContext&, const CacheContext&) = default;

 private:
  std::vector<std::pair<std::string, std::string>> fields_;
};

// The first field whose value differs between a stored context and the
// current one (fields present in only one count, with "(absent)"), as
// "arch: the entry has 'sm_80', this process 'sm_90a'"; nullopt when equal.
std::optional<std::string> FirstMismatch(const CacheContext& stored, const CacheContext& current);

// Adds "env.<NAME>" for each CompileEnvironmentVariables() entry.
void AddCompileEnvironment(CacheContext& context);

}  // namespace tile_ir::runtime::jit

#endif  // RUNTIME_JIT_CACHE_CONTEXT_H_
