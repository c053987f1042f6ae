#include "tools/common/assignments.h"

#include <limits>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace tile_ir::cli {

std::string ShownValue(std::string_view text) {
  constexpr size_t kMaxShown = 40;
  if (text.size() <= kMaxShown) return std::string(text);
  return absl::StrCat(std::string(text.substr(0, kMaxShown)), "... (", text.size(), " characters)");
}

bool LooksLikeInteger(std::string_view text) {
  if (!text.empty() && (text[0] == '-' || text[0] == '+')) text.remove_prefix(1);
  if (text.empty()) return false;
  for (char c : text) {
    if (!absl::ascii_isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

std::pair<int64_t, int64_t> IntegerRange(DataType dtype) {
  switch (dtype.scalar()) {
    case ScalarType::kBool: return {0, 1};
    case ScalarType::kU8:
    case ScalarType::kU16:
    case ScalarType::kU32: return {0, (int64_t{1} << dtype.bits()) - 1};
    // A value is read as an int64, so u64 stops at its top (as IntImm and KernelArg do).
    case ScalarType::kU64: return {0, std::numeric_limits<int64_t>::max()};
    case ScalarType::kI64:
      return {std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()};
    default: {
      const int64_t high = (int64_t{1} << (dtype.bits() - 1)) - 1;
      return {-high - 1, high};
    }
  }
}

absl::StatusOr<std::map<std::string, std::string>> ParseAssignments(const std::string& flag,
                                                                    const std::string& text) {
  std::map<std::string, std::string> values;
  for (absl::string_view item : absl::StrSplit(text, ',', absl::SkipEmpty())) {
    std::vector<std::string> parts = absl::StrSplit(item, absl::MaxSplits('=', 1));
    const std::string shown = ShownValue(std::string_view(item.data(), item.size()));
    if (parts.size() != 2 || parts[0].empty() || parts[1].empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--", flag, ": expected NAME=VALUE, got '", shown, "'"));
    }
    auto [at, added] = values.emplace(parts[0], parts[1]);
    if (!added) {
      return absl::InvalidArgumentError(absl::StrCat("--", flag, ": '", parts[0],
                                                     "' is given twice: ", parts[0], "=",
                                                     ShownValue(at->second), " and ", shown));
    }
  }
  return values;
}

absl::StatusOr<std::map<std::string, int64_t>> ShapeValues(
    const KernelNode& kernel, const std::map<std::string, std::string>& given) {
  std::map<std::string, int64_t> dims;
  for (const auto& [name, text] : given) {
    const std::string assignment = absl::StrCat(name, "=", ShownValue(text));
    if (!LooksLikeInteger(text)) {
      return absl::InvalidArgumentError(
          absl::StrCat("--shapes: ", assignment, ": the value is not an integer"));
    }
    const VarRef* dim = nullptr;
    for (const VarRef& each : kernel.dims) {
      if (each->name == name) dim = &each;
    }
    int64_t value = 0;
    const bool parsed = absl::SimpleAtoi(text, &value);
    if (dim == nullptr) {
      if (!parsed) {
        return absl::InvalidArgumentError(
            absl::StrCat("--shapes: ", assignment, " is out of range: no dimension type holds it"));
      }
      dims[name] = value;
      continue;
    }
    const DataType dtype = (*dim)->dtype();
    const int64_t high = IntegerRange(dtype).second;
    if (!parsed || value < 0 || value > high) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--shapes: ", assignment, " is out of range for dimension '", name, "' of kernel '",
          kernel.name, "', whose type ", dtype.ToString(), " holds 0 to ", high));
    }
    dims[name] = value;
  }
  return dims;
}

}  // namespace tile_ir::cli
