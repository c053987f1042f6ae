// Dim bindings as pass options spell them (specialize-dims{values="M=4096,N=4096"},
// specialize-divisibility{values=...}).
#ifndef PASSES_UTILS_DIM_VALUES_H_
#define PASSES_UTILS_DIM_VALUES_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace tile_ir::passes {

// "M=4096, N=4096" as bindings; an error, prefixed with `pass_name`, names an item that is
// not NAME=INTEGER.
absl::StatusOr<std::map<std::string, int64_t>> ParseDimValues(const std::string& text,
                                                              std::string_view pass_name);

}  // namespace tile_ir::passes

#endif  // PASSES_UTILS_DIM_VALUES_H_
