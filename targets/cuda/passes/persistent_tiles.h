// Persistent blocks for warp-specialize (cuda:sm_90a{persistent=on}, off by default): min(tiles,
// SMs) blocks, each role of each block looping over the output tiles b, b + G, b + 2G, ... (G the
// launched blocks), only where every tile does the same work. See warp_specialize.md.
#ifndef TARGETS_CUDA_PASSES_PERSISTENT_TILES_H_
#define TARGETS_CUDA_PASSES_PERSISTENT_TILES_H_

#include <functional>
#include <string>
#include <vector>

#include "passes/analysis/var_mentions.h"
#include "passes/utils/fresh_names.h"
#include "tile_ir/module.h"

namespace tile_ir::cuda {

class PersistentTiles {
 public:
  // `top` is the kernel body's statements; `pipelined` the loop warp-specialize splits;
  // `blocks` the most blocks to launch (the SM count); `shared_let` tells the top-level lets
  // both roles compute (the others are the consumers' statements); `names` gives the new
  // variables names the kernel does not use.
  PersistentTiles(const KernelNode& kernel, const std::vector<Stmt>& top, const For& pipelined,
                  int blocks, const std::function<bool(const Stmt&)>& shared_let,
                  passes::FreshNames& names);

  // Why the kernel keeps one tile per block, or empty.
  const std::string& why_not() const { return why_not_; }

  // Whether a top-level let both roles compute is computed from the block index: it moves
  // into both roles' tile loops.
  bool IsBlockLet(const Stmt& stmt) const;

  // `role` (one role's statements, naming the grid's variables and the block lets) inside its
  // tile loop over `tile_iter` (an i32 variable the caller's pipeline counters also name).
  Stmt LoopOverTiles(const VarRef& tile_iter, const Stmt& role, passes::FreshNames& names) const;

  // The launch of min(tiles, blocks) blocks on one axis, the block variable LoopOverTiles
  // names.
  Launch PersistentLaunch() const;

 private:
  Expr Tiles() const;
  Expr LaunchedBlocks() const;

  const KernelNode& kernel_;
  std::vector<Stmt> block_lets_;    // those both roles compute, in body order
  passes::VarSet block_dependent_;  // grid variables and the lets computed from them
  VarRef block_;                    // the persistent launch's one block variable
  int blocks_ = 0;
  std::string why_not_;
};

}  // namespace tile_ir::cuda

#endif  // TARGETS_CUDA_PASSES_PERSISTENT_TILES_H_
