// The names the printer writes for the variables and buffers of a kernel:
// valid identifiers, each declared once per kernel as the text form requires,
// so the text reads back to the same bindings even when the IR holds two
// objects of one name or a name that is a keyword.
#ifndef TILE_IR_PRINT_NAMES_H_
#define TILE_IR_PRINT_NAMES_H_

#include <string>
#include <string_view>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"

namespace tile_ir {

class PrintNames {
 public:
  // Gives `object` a name based on `base`: `base` itself when it is a valid
  // identifier not taken yet, else a sanitized and suffixed form.
  void Declare(const void* object, std::string_view base);

  // Appends the name of `object`: its declared name, or its sanitized `base`
  // when it was never declared (a free variable of an expression printed on
  // its own, or IR that uses a variable outside its scope).
  void Append(const void* object, std::string_view base, std::string* out) const;

 private:
  absl::flat_hash_map<const void*, std::string> declared_;
  absl::flat_hash_set<std::string> taken_;
  // The next suffix to try per sanitized base, so that many declarations of
  // one name cost linear time.
  absl::flat_hash_map<std::string, int> next_suffix_;
};

}  // namespace tile_ir

#endif  // TILE_IR_PRINT_NAMES_H_
