// The canonical text form of the tile IR (grammar: docs/TEXT_FORMAT.md).
// frontends/text parses exactly what this prints.
#ifndef TILE_IR_PRINTER_H_
#define TILE_IR_PRINTER_H_

#include <string>

#include "tile_ir/expr.h"
#include "tile_ir/module.h"
#include "tile_ir/stmt.h"

namespace tile_ir {

struct PrintOptions {
  // Append loc("file":line:col) to statements and kernels that have one. Off
  // for the canonical text (and so for cache keys).
  bool print_locs = false;
};

std::string Print(const Module& module, const PrintOptions& options = {});
std::string Print(const KernelNode& kernel, const PrintOptions& options = {});
// One statement at the given indentation level (two spaces per level).
std::string Print(const Stmt& stmt, int indent = 0, const PrintOptions& options = {});
std::string Print(const Expr& expr);
std::string Print(const Region& region);

}  // namespace tile_ir

#endif  // TILE_IR_PRINTER_H_
