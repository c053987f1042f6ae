// NAME=VALUE lists of the tools' command lines (--shapes M=1000,N=777; --scalars alpha=0.5), and
// dimension values checked against the kernel's dtypes, so that tile-run and tile-translate
// refuse the same values with the same words.
#ifndef TOOLS_COMMON_ASSIGNMENTS_H_
#define TOOLS_COMMON_ASSIGNMENTS_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>

#include "absl/status/statusor.h"
#include "tile_ir/module.h"

namespace tile_ir::cli {

// "M=1000,N=777" as given: name -> the value's text. Refused: an item that is not NAME=VALUE,
// and a name given twice ("--shapes: 'M' is given twice: M=64 and M=128").
absl::StatusOr<std::map<std::string, std::string>> ParseAssignments(const std::string& flag,
                                                                    const std::string& text);

// --shapes' values for `kernel`: a dimension of the kernel must be an integer within its dtype,
// from 0 to the dtype's largest ("--shapes: M=2147483648 is out of range for dimension 'M' of
// kernel 'gemm_f16', whose type i32 holds 0 to 2147483647"); a name that is no dimension of the
// kernel must still be an integer, and is returned for the caller to refuse in its own words.
absl::StatusOr<std::map<std::string, int64_t>> ShapeValues(
    const KernelNode& kernel, const std::map<std::string, std::string>& given);

// The values an integer or bool dtype holds.
std::pair<int64_t, int64_t> IntegerRange(DataType dtype);

// An optional sign and decimal digits: an integer, whether or not int64 holds it.
bool LooksLikeInteger(std::string_view text);

// A value as the user wrote it for a message, cut after 40 characters ("... (N characters)"):
// a 10^6-digit number is not repeated whole.
std::string ShownValue(std::string_view text);

}  // namespace tile_ir::cli

#endif  // TOOLS_COMMON_ASSIGNMENTS_H_
