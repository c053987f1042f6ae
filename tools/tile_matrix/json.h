// The little JSON the records file needs: a reader that keeps object keys in
// order and says where (line:column) the text went wrong, and the quoting
// the writer uses.
#ifndef TOOLS_TILE_MATRIX_JSON_H_
#define TOOLS_TILE_MATRIX_JSON_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace tile_ir::matrix {

struct JsonValue {
  enum class Kind { kNull, kBool, kNumber, kString, kArray, kObject };
  Kind kind = Kind::kNull;
  bool boolean = false;
  double number = 0;
  std::string string;
  std::vector<JsonValue> array;
  std::vector<std::pair<std::string, JsonValue>> object;  // in the text's order
  int line = 0;                                           // where the value starts
};

absl::string_view JsonKindName(JsonValue::Kind kind);

// One JSON value (and nothing after it but white space). Errors are
// InvalidArgument "LINE:COLUMN: what was expected".
absl::StatusOr<JsonValue> ParseJson(absl::string_view text);

// `text` as a JSON string literal, quotes included.
std::string JsonQuote(absl::string_view text);

}  // namespace tile_ir::matrix

#endif  // TOOLS_TILE_MATRIX_JSON_H_
