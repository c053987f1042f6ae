// The lower-tile-ops driver: checks each tile operation against the target,
// dispatches it to its lowering, and splices the result into its block.
#include "passes/transforms/lower_tile_ops.h"

#include <memory>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "passes/transforms/lower_tile_ops_internal.h"
#include "passes/utils/fresh_names.h"
#include "tile_ir/mutator.h"

namespace tile_ir::passes {
namespace {

using lowering::OpContext;

bool DeclaresAnything(const Seq& seq) {
  for (const Stmt& s : seq.stmts) {
    if (As<Let>(s) != nullptr || As<Allocate>(s) != nullptr) return true;
  }
  return false;
}

bool IsTileOp(const Stmt& s) {
  switch (s->kind()) {
    case StmtKind::kCopy:
    case StmtKind::kGemm:
    case StmtKind::kFill:
    case StmtKind::kReduce:
    case StmtKind::kAtomicAdd:
    case StmtKind::kCumsum: return true;
    default: return false;
  }
}

class TileOpLowerer : public IRMutator {
 public:
  TileOpLowerer(const KernelNode& kernel, const TargetInfo& target,
                std::vector<std::string>* remarks)
      : names_(kernel),
        ctx_{kernel, target, target.ThreadsExecutingBlock(kernel.launch), names_, remarks} {}

  const absl::Status& status() const { return status_; }

 protected:
  // A lowered operation's statements join the enclosing block, except in the
  // body of a pipelined loop whose order and stage count its statements.
  Stmt MutateSeq(const Seq& node, const Stmt& self) override {
    bool keep_count = keep_next_count_;
    keep_next_count_ = false;
    bool changed = false;
    std::vector<Stmt> stmts;
    for (const Stmt& s : node.stmts) {
      Stmt result = Mutate(s);
      changed |= result != s;
      const Seq* lowered = result != s && IsTileOp(s) ? As<Seq>(result) : nullptr;
      if (lowered != nullptr && !keep_count && !DeclaresAnything(*lowered)) {
        stmts.insert(stmts.end(), lowered->stmts.begin(), lowered->stmts.end());
      } else if (result) {
        stmts.push_back(std::move(result));
      }
    }
    return changed ? Seq::Make(std::move(stmts), node.loc()) : self;
  }

  Stmt MutateFor(const For& node, const Stmt& self) override {
    keep_next_count_ = node.for_kind == ForKind::kPipelined && !node.pipeline.order.empty() &&
                       As<Seq>(node.body) != nullptr;
    return IRMutator::MutateFor(node, self);
  }

  Stmt MutateCopy(const Copy& node, const Stmt& self) override {
    return Lower(node, self, TileOpKind::kCopy, {node.src.buffer->dtype, node.dst.buffer->dtype},
                 [&] { return lowering::LowerCopy(node, ctx_); });
  }
  Stmt MutateFill(const Fill& node, const Stmt& self) override {
    return Lower(node, self, TileOpKind::kFill, {node.dst.buffer->dtype},
                 [&] { return lowering::LowerFill(node, ctx_); });
  }
  Stmt MutateAtomicAdd(const AtomicAdd& node, const Stmt& self) override {
    return Lower(node, self, TileOpKind::kAtomicAdd,
                 {node.src.buffer->dtype, node.dst.buffer->dtype},
                 [&] { return lowering::LowerAtomicAdd(node, ctx_); });
  }
  Stmt MutateGemm(const Gemm& node, const Stmt& self) override {
    return Lower(node, self, TileOpKind::kGemm,
                 {node.a.buffer->dtype, node.b.buffer->dtype, node.c.buffer->dtype},
                 [&] { return lowering::LowerGemm(node, ctx_); });
  }
  Stmt MutateReduce(const Reduce& node, const Stmt& self) override {
    return Lower(node, self, TileOpKind::kReduce, {node.src.buffer->dtype, node.dst.buffer->dtype},
                 [&] { return lowering::LowerReduce(node, ctx_); });
  }
  Stmt MutateCumsum(const Cumsum& node, const Stmt& self) override {
    return Lower(node, self, TileOpKind::kCumsum, {node.src.buffer->dtype, node.dst.buffer->dtype},
                 [&] { return lowering::LowerCumsum(node, ctx_); });
  }

 private:
  // The lowered statement, or `self` once an error is recorded. The target
  // is asked before anything is lowered, so its refusal is the error reported.
  template <typename LowerFn>
  Stmt Lower(const StmtNode& op, const Stmt& self, TileOpKind kind, std::vector<DataType> dtypes,
             LowerFn lower) {
    if (!status_.ok()) return self;
    absl::flat_hash_set<std::string> checked;
    for (DataType dtype : dtypes) {
      if (!checked.insert(dtype.ToString()).second) continue;
      absl::Status supported = ctx_.target.CheckTileOp(kind, dtype);
      if (!supported.ok()) {
        status_ = lowering::OpError(ctx_, op, supported.code(), supported.message());
        return self;
      }
    }
    absl::StatusOr<Stmt> lowered = lower();
    if (!lowered.ok()) {
      status_ = lowered.status();
      return self;
    }
    return *std::move(lowered);
  }

  FreshNames names_;
  OpContext ctx_;
  absl::Status status_;
  bool keep_next_count_ = false;
};

}  // namespace

absl::StatusOr<Kernel> LowerTileOps(const Kernel& kernel, const TargetInfo& target,
                                    std::vector<std::string>* remarks) {
  TileOpLowerer lowerer(*kernel, target, remarks);
  Kernel result = lowerer.MutateKernel(kernel);
  if (!lowerer.status().ok()) return lowerer.status();
  return result;
}

absl::StatusOr<bool> LowerTileOps(Module& module, const TargetInfo& target,
                                  std::vector<std::string>* remarks) {
  return MapKernels(module,
                    [&](const Kernel& kernel) { return LowerTileOps(kernel, target, remarks); });
}

PassInfo LowerTileOpsPass() {
  PassInfo info;
  info.name = "lower-tile-ops";
  info.description = "replaces tile operations by loops over their elements for the target";
  info.needs_target = true;
  info.run_kernel = EachKernel([](const Kernel& kernel, const PassOptions& options) {
    return LowerTileOps(kernel, options.target(), options.remarks());
  });
  return info;
}

}  // namespace tile_ir::passes
