#include "tile_ir/source_loc.h"

namespace tile_ir {

std::string SourceLoc::ToString() const {
  if (!known()) return "";
  std::string text = file + ":" + std::to_string(line);
  if (col > 0) text += ":" + std::to_string(col);
  return text;
}

}  // namespace tile_ir
