// Multi-buffered shared tiles for software pipelines: a tile with a leading stage
// dimension, and statements of one loop iteration rewritten to use a stage of it.
#ifndef PASSES_ANALYSIS_SOFTWARE_PIPELINE_STAGES_H_
#define PASSES_ANALYSIS_SOFTWARE_PIPELINE_STAGES_H_

#include <utility>

#include "absl/container/flat_hash_map.h"
#include "passes/utils/fresh_names.h"
#include "tile_ir/buffer.h"
#include "tile_ir/expr.h"
#include "tile_ir/mutator.h"
#include "tile_ir/stmt.h"

namespace tile_ir::passes {

using BufferMap = absl::flat_hash_map<const BufferNode*, Buffer>;
using VarSubst = absl::flat_hash_map<const Var*, Expr>;

// `buffer` with a leading dimension of `stages` slots: strides, if any, gain the span one
// slot reaches; a layout, if any, a leading input mapped to a leading output.
Buffer StagedBuffer(const Buffer& buffer, int stages);

// Whether a region covers its whole buffer (a copy that fills a tile, which may be staged).
bool IsFullRegion(const Region& region);

// Declares each staged buffer (keyed by the original) in place of the original.
class AllocationRestager : public IRMutator {
 public:
  explicit AllocationRestager(const BufferMap& staged) : staged_(staged) {}
  using IRMutator::Mutate;

 protected:
  Stmt MutateAllocate(const Allocate& node, const Stmt& self) override;

 private:
  const BufferMap& staged_;
};

// One iteration's copy of statements: loop variables substituted, staged buffers indexed
// with the iteration's slot, and (for a second copy of a body) declarations renamed.
// Loads, stores, copies, gemms and fills of staged buffers gain the slot index (a region
// a [slot +: 1] range); a reduce, cumsum or atomic_add on one is the caller's to exclude.
class IterationRewriter : public IRMutator {
 public:
  // Replaces each variable of `vars` by its expression and indexes each buffer of `staged`
  // (keyed by the original) at `slot`. With `rename`, every loop variable, let and
  // allocation the statements declare gets a fresh name.
  IterationRewriter(const BufferMap& staged, Expr slot, VarSubst vars, FreshNames* rename)
      : staged_(staged), slot_(std::move(slot)), vars_(std::move(vars)), rename_(rename) {}
  using IRMutator::Mutate;

 protected:
  Expr MutateVar(const Var& node, const Expr& self) override;
  Buffer MutateBuffer(const Buffer& buffer) override;
  Expr MutateBufferLoad(const BufferLoad& node, const Expr& self) override;
  Stmt MutateStore(const Store& node, const Stmt& self) override;
  Stmt MutateCopy(const Copy& node, const Stmt& self) override;
  Stmt MutateGemm(const Gemm& node, const Stmt& self) override;
  Stmt MutateFill(const Fill& node, const Stmt& self) override;
  Stmt MutateFor(const For& node, const Stmt& self) override;
  Stmt MutateLet(const Let& node, const Stmt& self) override;
  Stmt MutateAllocate(const Allocate& node, const Stmt& self) override;

 private:
  Region Restage(const Region& region);
  VarRef Rename(const VarRef& var);

  const BufferMap& staged_;
  const Expr slot_;
  VarSubst vars_;
  FreshNames* rename_;
  BufferMap renamed_;
};

}  // namespace tile_ir::passes

#endif  // PASSES_ANALYSIS_SOFTWARE_PIPELINE_STAGES_H_
