// Internal to the thread-binding library: what its files share. thread_binding.cc drives
// the pass; when several threads execute a block, the Binder (thread_binding_binder.h) binds
// statements and the nests that touch fragments, and thread_binding_cyclic.cc deals out the
// nests that do not.
#ifndef PASSES_TRANSFORMS_THREAD_BINDING_INTERNAL_H_
#define PASSES_TRANSFORMS_THREAD_BINDING_INTERNAL_H_

#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "passes/analysis/fragment_threads.h"
#include "passes/utils/fresh_names.h"
#include "tile_ir/module.h"
#include "tile_ir/op_shorthand.h"
#include "tile_ir/visitor.h"

namespace tile_ir::passes::thread_binding {

// The binding code builds many index expressions; Binary::Make, shorter.

// Layouts compute in i32.
inline Expr AsI32(const Expr& e) { return e->dtype() == kI32 ? e : Cast::Make(kI32, e); }

// The type a parallel nest's flattened element index and its rounds count in: the outermost
// loop's, widened to i32 (layouts compute in i32) when narrower, since the index counts every
// element of the nest (64 x 64 for two i8 loops). Each loop variable gets its own type back.
inline DataType FlatIndexType(const For& root) {
  return root.var->dtype().bits() < 32 ? kI32 : root.var->dtype();
}

// A fragment's per-thread registers and the layout that indexes them.
struct Fragment {
  Buffer local;
  Layout layout;
};
using FragmentMap = absl::flat_hash_map<const BufferNode*, Fragment>;

// What a subtree holds, as far as thread binding cares.
class Contents : public IRVisitor {
 public:
  using IRVisitor::Visit;
  bool parallel = false;
  bool thread_bound = false;
  bool barrier = false;
  bool tile_op = false;
  // Stores to shared or global memory and impure calls: effects one thread must make.
  bool shared_effect = false;
  std::vector<const BufferLoad*> fragment_loads;
  std::vector<const Store*> fragment_stores;
  std::vector<const BufferNode*> fragment_allocs;
  std::vector<VarRange> constant_loops;
  absl::flat_hash_set<const Var*> used_vars;
  absl::flat_hash_set<const BufferNode*> used_buffers;

  bool fragment() const { return !fragment_loads.empty() || !fragment_stores.empty(); }

 protected:
  void VisitVar(const Var& node) override { used_vars.insert(&node); }
  void VisitBufferUse(const Buffer& buffer) override { used_buffers.insert(buffer.get()); }
  void VisitBufferLoad(const BufferLoad& node) override {
    if (node.buffer->scope == MemoryScope::kFragment) fragment_loads.push_back(&node);
    IRVisitor::VisitBufferLoad(node);
  }
  void VisitStore(const Store& node) override {
    if (node.buffer->scope == MemoryScope::kFragment) fragment_stores.push_back(&node);
    if (node.buffer->scope == MemoryScope::kShared || node.buffer->scope == MemoryScope::kGlobal) {
      shared_effect = true;
    }
    IRVisitor::VisitStore(node);
  }
  void VisitCall(const Call& node) override;
  void VisitAllocate(const Allocate& node) override {
    if (node.buffer->scope == MemoryScope::kFragment) fragment_allocs.push_back(node.buffer.get());
    IRVisitor::VisitAllocate(node);
  }
  void VisitFor(const For& node) override {
    parallel |= node.for_kind == ForKind::kParallel;
    thread_bound |= node.for_kind == ForKind::kThreadBound;
    std::optional<int64_t> min = AsConstInt(node.min);
    std::optional<int64_t> extent = AsConstInt(node.extent);
    if (min && extent) constant_loops.push_back({node.var.get(), *min, *extent});
    IRVisitor::VisitFor(node);
  }
  void VisitBarrier(const Barrier&) override { barrier = true; }
  void VisitCopy(const Copy& node) override { TileOp(node); }
  void VisitGemm(const Gemm& node) override { TileOp(node); }
  void VisitFill(const Fill& node) override { TileOp(node); }
  void VisitReduce(const Reduce& node) override { TileOp(node); }
  void VisitAtomicAdd(const AtomicAdd& node) override { TileOp(node); }
  void VisitCumsum(const Cumsum& node) override { TileOp(node); }

 private:
  void TileOp(const StmtNode&) { tile_op = true; }
};

Contents Scan(const Stmt& s);
Contents Scan(const Expr& e);

// The perfect nest of parallel loops at `root`, outermost first: each loop's body is the
// next loop, alone or as a block's only statement.
std::vector<const For*> ParallelChain(const For& root);

// "FILE:LINE:COL: in kernel 'k': thread-binding: MESSAGE (at `first line of stmt`)".
absl::Status StmtError(const KernelNode& kernel, const Stmt& stmt, std::string_view message);

// A parallel nest that touches no fragment, dealt out cyclically (see BindThreads). When
// its body is one unguarded store and the innermost extent is a constant multiple of the
// lanes that fit `vector_bytes`, threads take whole runs of those lanes in a vectorized
// loop, so that the vectorize pass can turn each run into one wide access.
absl::StatusOr<Stmt> DealCyclically(const KernelNode& kernel, const For& root, int64_t threads,
                                    const Expr& thread, int vector_bytes, FreshNames& names);

// The statements of `kernel`'s body bound to `threads` threads whose flat index is
// `thread` (see BindThreads); an error naming the statement that cannot be bound.
// `remarks`, when given, receives a line for each fragment read through a shared mirror.
absl::StatusOr<Stmt> BindStatements(const KernelNode& kernel, int64_t threads,
                                    FragmentMap fragments, Expr thread, int vector_bytes,
                                    int warp_size, FreshNames& names,
                                    std::vector<std::string>* remarks = nullptr);

}  // namespace tile_ir::passes::thread_binding

#endif  // PASSES_TRANSFORMS_THREAD_BINDING_INTERNAL_H_
