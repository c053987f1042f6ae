// Where a node came from in its producer's input: a .tile file position or
// the C++ line that built it. Carried through passes so diagnostics point at
// the user's code; never part of the canonical text or a cache key.
#ifndef TILE_IR_SOURCE_LOC_H_
#define TILE_IR_SOURCE_LOC_H_

#include <string>

namespace tile_ir {

struct SourceLoc {
  std::string file;
  int line = 0;  // 1-based; 0 means unknown
  int col = 0;   // 1-based; 0 means unknown or whole line

  bool known() const { return line > 0; }
  // "file:line:col", "file:line" or "" when unknown.
  std::string ToString() const;

  friend bool operator==(const SourceLoc& a, const SourceLoc& b) {
    return a.file == b.file && a.line == b.line && a.col == b.col;
  }
};

}  // namespace tile_ir

#endif  // TILE_IR_SOURCE_LOC_H_
