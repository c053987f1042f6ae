// Persistent blocks: which kernels, the tile loops and the launch (see persistent_tiles.h).
#include "targets/cuda/passes/persistent_tiles.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "passes/analysis/var_mentions.h"
#include "passes/utils/substitute.h"
#include "tile_ir/op_shorthand.h"

namespace tile_ir::cuda {
namespace {

Expr AsI32(const Expr& e) { return e->dtype() == kI32 ? e : Cast::Make(kI32, e); }

}  // namespace

PersistentTiles::PersistentTiles(const KernelNode& kernel, const std::vector<Stmt>& top,
                                 const For& pipelined, int blocks,
                                 const std::function<bool(const Stmt&)>& shared_let,
                                 passes::FreshNames& names)
    : kernel_(kernel), block_(Var::Make(names.Fresh("tile_block"), kI32)), blocks_(blocks) {
  for (const GridAxis& axis : kernel.launch.grid) block_dependent_.insert(axis.var.get());
  for (const Stmt& s : top) {
    const Let* let = As<Let>(s);
    if (let != nullptr && passes::MentionsAny(let->value, block_dependent_)) {
      block_dependent_.insert(let->var.get());
      // A let only the consumers compute stays theirs, renamed with the rest of the role.
      if (shared_let(s)) block_lets_.push_back(s);
    }
  }
  if (kernel.launch.swizzle) {
    why_not_ = "its block swizzle is not rasterized yet (rasterize-blocks runs first)";
  } else if (passes::MentionsAny(pipelined.min, block_dependent_) ||
             passes::MentionsAny(pipelined.extent, block_dependent_)) {
    why_not_ =
        "its pipelined loop's bounds depend on the block index: tiles of unequal work are left "
        "to the hardware's block scheduler";
  }
  for (const Stmt& s : top) {
    // Allocations stay in front of the roles' tile loops, which then define the block lets.
    const Allocate* alloc = As<Allocate>(s);
    if (alloc == nullptr || !why_not_.empty()) continue;
    for (const Expr& extent : alloc->buffer->shape) {
      if (passes::MentionsAny(extent, block_dependent_)) {
        why_not_ =
            absl::StrCat("the shape of '", alloc->buffer->name, "' depends on the block index");
      }
    }
  }
  std::optional<int64_t> tiles = AsConstInt(Tiles());
  if (tiles && *tiles <= 1 && why_not_.empty()) why_not_ = "it has one output tile";
}

bool PersistentTiles::IsBlockLet(const Stmt& stmt) const {
  return std::find(block_lets_.begin(), block_lets_.end(), stmt) != block_lets_.end();
}

Expr PersistentTiles::Tiles() const {
  Expr tiles;
  for (const GridAxis& axis : kernel_.launch.grid) {
    tiles = tiles == nullptr ? AsI32(axis.extent) : Op(BinaryOp::kMul, tiles, AsI32(axis.extent));
  }
  return tiles;
}

Expr PersistentTiles::LaunchedBlocks() const { return Op(BinaryOp::kMin, Tiles(), Int(blocks_)); }

Stmt PersistentTiles::LoopOverTiles(const VarRef& tile_iter, const Stmt& role,
                                    passes::FreshNames& names) const {
  const SourceLoc& loc = role->loc();
  std::vector<Stmt> body;
  passes::VarMap renamed;
  // The tile this iteration computes, then its index along each grid axis, x fastest (the
  // order a non-persistent launch numbers its blocks in). The max(..., 0) changes nothing:
  // interval analysis cannot see that a tile count made of dims does not overflow, so without
  // it the tile would not be known to be non-negative.
  VarRef tile = Var::Make(names.Fresh("tile"), kI32);
  body.push_back(Let::Make(
      tile,
      Op(BinaryOp::kMax,
         Op(BinaryOp::kAdd, block_, Op(BinaryOp::kMul, tile_iter, LaunchedBlocks())), Int(0)),
      loc));
  // Each axis's index is the rest of the tile divided by the axes before it, one let per
  // division: a division by a product of extents would not be proved non-negative, since that
  // product's interval overflows (and then the index would need a guard where a block index
  // needs none).
  Expr rest = tile;
  const std::vector<GridAxis>& grid = kernel_.launch.grid;
  for (size_t a = 0; a < grid.size(); ++a) {
    const GridAxis& axis = grid[a];
    // The last axis's `% extent` changes nothing (tile < tiles) but bounds the index for the
    // passes that prove accesses in range, as a block index is bounded by its grid extent.
    Expr index = Op(BinaryOp::kMod, rest, AsI32(axis.extent));
    VarRef var = Var::Make(names.Fresh(axis.var->name), axis.var->dtype());
    body.push_back(Let::Make(
        var, index->dtype() == var->dtype() ? index : Cast::Make(var->dtype(), index), loc));
    renamed[axis.var.get()] = var;
    if (a + 1 < grid.size()) {
      VarRef next = Var::Make(names.Fresh("tile_rest"), kI32);
      body.push_back(Let::Make(next, Op(BinaryOp::kDiv, rest, AsI32(axis.extent)), loc));
      rest = next;
    }
  }
  for (const Stmt& s : block_lets_) {
    const Let& let = *As<Let>(s);
    VarRef var = Var::Make(names.Fresh(let.var->name), let.var->dtype());
    body.push_back(Let::Make(var, passes::Substitute(let.value, renamed), let.loc()));
    renamed[let.var.get()] = var;
  }
  body.push_back(passes::Substitute(role, renamed));
  // Blocks b < G each take the tiles b, b + G, ... below the tile count.
  Expr trips = Op(BinaryOp::kCeilDiv, Op(BinaryOp::kSub, Tiles(), block_), LaunchedBlocks());
  return For::Make(tile_iter, Int(0), trips, ForKind::kSerial, Seq::Make(std::move(body), loc),
                   loc);
}

Launch PersistentTiles::PersistentLaunch() const {
  Launch launch = kernel_.launch;
  launch.grid = {GridAxis{block_, LaunchedBlocks()}};
  return launch;
}

}  // namespace tile_ir::cuda
