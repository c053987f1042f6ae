// Which buffers statements read and write: what passes that move, duplicate or synchronize
// memory accesses ask.
#ifndef PASSES_ANALYSIS_BUFFER_ACCESS_H_
#define PASSES_ANALYSIS_BUFFER_ACCESS_H_

#include "absl/container/flat_hash_set.h"
#include "tile_ir/buffer.h"
#include "tile_ir/expr.h"
#include "tile_ir/stmt.h"

namespace tile_ir::passes {

struct BufferAccesses {
  absl::flat_hash_set<const BufferNode*> reads;
  absl::flat_hash_set<const BufferNode*> writes;
  // The subset of `writes` made by asynchronous copies (IntrinsicInfo::async_copy), whose
  // bytes land at a later async_wait rather than where the copy is issued.
  absl::flat_hash_set<const BufferNode*> async_writes;
};

// Adds what `stmt`, with everything nested in it, reads and writes. A store and a tile
// operation's destination write; a load and a tile operation's source read. A destination
// that accumulates (gemm's C, atomic_add's destination, a reduce without clear) is read too.
// Shapes of allocations are not accesses. An asynchronous copy writes its destination
// (also recorded in async_writes) and reads its source. An atomic update
// (IntrinsicInfo::updates_first_arg, e.g. atomic_add_at) reads and writes its element's buffer.
void CollectAccesses(const Stmt& stmt, BufferAccesses* out);
// Adds the loads of `expr` to out->reads.
void CollectAccesses(const Expr& expr, BufferAccesses* out);

}  // namespace tile_ir::passes

#endif  // PASSES_ANALYSIS_BUFFER_ACCESS_H_
