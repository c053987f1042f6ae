#include "tile_ir/dtype.h"

#include <array>
#include <charconv>
#include <utility>

namespace tile_ir {
namespace {

constexpr std::array<std::pair<ScalarType, std::string_view>, 17> kNames = {{
    {ScalarType::kVoid, "void"},
    {ScalarType::kBool, "bool"},
    {ScalarType::kI4, "i4"},
    {ScalarType::kI8, "i8"},
    {ScalarType::kI16, "i16"},
    {ScalarType::kI32, "i32"},
    {ScalarType::kI64, "i64"},
    {ScalarType::kU8, "u8"},
    {ScalarType::kU16, "u16"},
    {ScalarType::kU32, "u32"},
    {ScalarType::kU64, "u64"},
    {ScalarType::kF8E4M3, "f8e4m3"},
    {ScalarType::kF8E5M2, "f8e5m2"},
    {ScalarType::kF16, "f16"},
    {ScalarType::kBF16, "bf16"},
    {ScalarType::kF32, "f32"},
    {ScalarType::kF64, "f64"},
}};

}  // namespace

std::string_view ScalarTypeName(ScalarType type) {
  for (const auto& [t, name] : kNames) {
    if (t == type) return name;
  }
  return "<invalid>";
}

std::vector<std::string> ValueScalarTypeNames() {
  std::vector<std::string> names;
  for (const auto& [t, name] : kNames) {
    if (t != ScalarType::kVoid) names.emplace_back(name);
  }
  return names;
}

bool DataType::is_int() const {
  switch (scalar_) {
    case ScalarType::kI4:
    case ScalarType::kI8:
    case ScalarType::kI16:
    case ScalarType::kI32:
    case ScalarType::kI64:
    case ScalarType::kU8:
    case ScalarType::kU16:
    case ScalarType::kU32:
    case ScalarType::kU64:
      return true;
    default:
      return false;
  }
}

bool DataType::is_unsigned() const {
  return scalar_ == ScalarType::kU8 || scalar_ == ScalarType::kU16 || scalar_ == ScalarType::kU32 ||
         scalar_ == ScalarType::kU64;
}

bool DataType::is_float() const {
  switch (scalar_) {
    case ScalarType::kF8E4M3:
    case ScalarType::kF8E5M2:
    case ScalarType::kF16:
    case ScalarType::kBF16:
    case ScalarType::kF32:
    case ScalarType::kF64:
      return true;
    default:
      return false;
  }
}

int DataType::bits() const {
  switch (scalar_) {
    case ScalarType::kVoid:
      return 0;
    case ScalarType::kI4:
      return 4;
    case ScalarType::kBool:
    case ScalarType::kI8:
    case ScalarType::kU8:
    case ScalarType::kF8E4M3:
    case ScalarType::kF8E5M2:
      return 8;
    case ScalarType::kI16:
    case ScalarType::kU16:
    case ScalarType::kF16:
    case ScalarType::kBF16:
      return 16;
    case ScalarType::kI32:
    case ScalarType::kU32:
    case ScalarType::kF32:
      return 32;
    case ScalarType::kI64:
    case ScalarType::kU64:
    case ScalarType::kF64:
      return 64;
  }
  return 0;
}

std::string DataType::ToString() const {
  std::string text(ScalarTypeName(scalar_));
  if (lanes_ != 1) text += "x" + std::to_string(lanes_);
  return text;
}

std::optional<DataType> DataType::Parse(std::string_view text) {
  // Longest name first so that "f8e4m3x4" is not read as "f8" + garbage.
  std::optional<DataType> best;
  size_t best_len = 0;
  for (const auto& [t, name] : kNames) {
    if (text.substr(0, name.size()) != name || name.size() <= best_len) continue;
    std::string_view rest = text.substr(name.size());
    int lanes = 1;
    if (!rest.empty()) {
      if (rest[0] != 'x' || rest.size() < 2) continue;
      auto [ptr, ec] = std::from_chars(rest.data() + 1, rest.data() + rest.size(), lanes);
      if (ec != std::errc() || ptr != rest.data() + rest.size() || lanes < 2 || lanes > 1024) {
        continue;
      }
    }
    best = DataType(t, lanes);
    best_len = name.size();
  }
  return best;
}

}  // namespace tile_ir
