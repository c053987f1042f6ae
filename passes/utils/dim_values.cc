// Dim bindings as pass options spell them.
#include "passes/utils/dim_values.h"

#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace tile_ir::passes {

absl::StatusOr<std::map<std::string, int64_t>> ParseDimValues(const std::string& text,
                                                              std::string_view pass_name) {
  std::map<std::string, int64_t> values;
  for (absl::string_view item : absl::StrSplit(text, ',', absl::SkipWhitespace())) {
    std::vector<absl::string_view> parts = absl::StrSplit(item, '=');
    // Spaces around a name are no part of it: "M=64, N=64" binds N, not " N".
    absl::string_view name = parts.empty() ? "" : absl::StripAsciiWhitespace(parts[0]);
    int64_t value = 0;
    if (parts.size() != 2 || name.empty() || !absl::SimpleAtoi(parts[1], &value)) {
      return absl::InvalidArgumentError(absl::StrCat(std::string(pass_name),
                                                     ": expected NAME=INTEGER in values, got '",
                                                     std::string(item), "'"));
    }
    values[std::string(name)] = value;
  }
  return values;
}

}  // namespace tile_ir::passes
