// TileOpKind names.
#include "passes/pass/target_info.h"

namespace tile_ir::passes {

std::string_view TileOpKindName(TileOpKind kind) {
  switch (kind) {
    case TileOpKind::kCopy: return "copy";
    case TileOpKind::kGemm: return "gemm";
    case TileOpKind::kFill: return "fill";
    case TileOpKind::kReduce: return "reduce";
    case TileOpKind::kAtomicAdd: return "atomic_add";
    case TileOpKind::kCumsum: return "cumsum";
  }
  return "?";
}

}  // namespace tile_ir::passes
