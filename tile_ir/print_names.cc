// Collision-free naming for the printer.
#include "tile_ir/print_names.h"

#include "absl/strings/str_cat.h"
#include "tile_ir/text_syntax.h"

namespace tile_ir {

void PrintNames::Declare(const void* object, std::string_view base) {
  std::string name = IsValidIdentifier(base) ? std::string(base) : SanitizeIdentifier(base);
  if (taken_.contains(name)) {
    int& suffix = next_suffix_[name];
    std::string candidate;
    do {
      candidate = absl::StrCat(name, "_", ++suffix);
    } while (taken_.contains(candidate));
    name = std::move(candidate);
  }
  taken_.insert(name);
  declared_[object] = std::move(name);
}

void PrintNames::Append(const void* object, std::string_view base, std::string* out) const {
  auto it = declared_.find(object);
  if (it != declared_.end()) {
    out->append(it->second);
  } else if (IsValidIdentifier(base)) {
    out->append(base);
  } else {
    out->append(SanitizeIdentifier(base));
  }
}

}  // namespace tile_ir
