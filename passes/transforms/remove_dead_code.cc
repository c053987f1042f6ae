// Dead-code removal driven by use counts of variables and buffers: counted
// once up front, and decremented as statements go, so removal cascades.
#include "passes/transforms/remove_dead_code.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "passes/analysis/arith/effects.h"
#include "tile_ir/mutator.h"
#include "tile_ir/visitor.h"

namespace tile_ir::passes {
namespace {

struct UseCounts {
  absl::flat_hash_map<const Var*, int64_t> vars;
  absl::flat_hash_map<const BufferNode*, int64_t> buffers;
};

// Adds `delta` to the count of every variable and buffer a statement uses.
// Declarations are not uses; shapes, strides and layouts of declared buffers
// are, since they may name variables.
class UseCounter : public IRVisitor {
 public:
  UseCounter(UseCounts& counts, int delta) : counts_(counts), delta_(delta) {}
  using IRVisitor::Visit;

 protected:
  void VisitVar(const Var& node) override { counts_.vars[&node] += delta_; }
  void VisitBufferUse(const Buffer& buffer) override { counts_.buffers[buffer.get()] += delta_; }
  void VisitBufferDecl(const Buffer& buffer) override {
    IRVisitor::VisitBufferDecl(buffer);
    if (buffer->layout) {
      for (const Expr& e : buffer->layout->outputs) Visit(e);
    }
  }

 private:
  UseCounts& counts_;
  const int delta_;
};

bool IsEmptyBlock(const Stmt& s) {
  const Seq* seq = As<Seq>(s);
  return seq != nullptr && seq->stmts.empty();
}

bool DeclaresAnything(const Seq& seq) {
  return std::any_of(seq.stmts.begin(), seq.stmts.end(), [](const Stmt& s) {
    return As<Let>(s) != nullptr || As<Allocate>(s) != nullptr;
  });
}

class DeadCodeRemover : public IRMutator {
 public:
  explicit DeadCodeRemover(const Stmt& scope) { UseCounter(counts_, +1).Visit(scope); }

  Stmt Run(const Stmt& s) { return MutateBody(s); }

 protected:
  Stmt MutateSeq(const Seq& node, const Stmt& self) override {
    bool changed = false;
    std::vector<Stmt> kept;
    // Back to front: every use of a declaration comes after it in its block.
    for (auto it = node.stmts.rbegin(); it != node.stmts.rend(); ++it) {
      Stmt result = Mutate(*it);
      changed |= result != *it;
      if (result == nullptr) continue;
      const Seq* inner = As<Seq>(result);
      if (inner != nullptr && !DeclaresAnything(*inner)) {
        kept.insert(kept.end(), inner->stmts.rbegin(), inner->stmts.rend());
        changed = true;
      } else {
        kept.push_back(std::move(result));
      }
    }
    if (!changed) return self;
    std::reverse(kept.begin(), kept.end());
    return Seq::Make(std::move(kept), node.loc());
  }

  Stmt MutateLet(const Let& node, const Stmt& self) override {
    if (counts_.vars[node.var.get()] > 0 || !arith::IsPure(node.value)) return self;
    return Remove(self);
  }

  Stmt MutateAllocate(const Allocate& node, const Stmt& self) override {
    return counts_.buffers[node.buffer.get()] > 0 ? self : Remove(self);
  }

  Stmt MutateEvaluate(const Evaluate& node, const Stmt& self) override {
    return arith::IsPure(node.value) ? Remove(self) : self;
  }

  Stmt MutateFor(const For& node, const Stmt& self) override {
    Stmt body = MutateBody(node.body);
    // A pipelined loop's structure is what later passes plan stages on.
    if (IsEmptyBlock(body) && node.for_kind != ForKind::kPipelined && arith::IsPure(node.min) &&
        arith::IsPure(node.extent)) {
      Forget(node.min);
      Forget(node.extent);
      return nullptr;
    }
    if (body == node.body) return self;
    return For::Make(node.var, node.min, node.extent, node.for_kind, std::move(body), node.loc(),
                     node.pipeline, node.thread_axis);
  }

  Stmt MutateIf(const If& node, const Stmt& self) override {
    Stmt then_body = MutateBody(node.then_body);
    Stmt else_body = Mutate(node.else_body);
    if (else_body != nullptr && IsEmptyBlock(else_body)) else_body = nullptr;
    bool pure_cond = arith::IsPure(node.cond);
    if (IsEmptyBlock(then_body) && else_body == nullptr && pure_cond) {
      Forget(node.cond);
      return nullptr;
    }
    if (IsEmptyBlock(then_body) && else_body != nullptr) {
      return If::Make(Unary::Make(UnaryOp::kNot, node.cond), std::move(else_body), nullptr,
                      node.loc());
    }
    if (then_body == node.then_body && else_body == node.else_body) return self;
    return If::Make(node.cond, std::move(then_body), std::move(else_body), node.loc());
  }

 private:
  Stmt Remove(const Stmt& s) {
    UseCounter(counts_, -1).Visit(s);
    return nullptr;
  }
  void Forget(const Expr& e) { UseCounter(counts_, -1).Visit(e); }

  UseCounts counts_;
};

}  // namespace

Stmt RemoveDeadCode(const Stmt& stmt) { return DeadCodeRemover(stmt).Run(stmt); }

Kernel RemoveDeadCode(const Kernel& kernel) {
  Stmt body = RemoveDeadCode(kernel->body);
  return body == kernel->body ? kernel : kernel->WithBody(std::move(body));
}

bool RemoveDeadCode(Module& module) {
  return *MapKernels(module, [](const Kernel& kernel) { return RemoveDeadCode(kernel); });
}

PassInfo RemoveDeadCodePass() {
  PassInfo info;
  info.name = "remove-dead-code";
  info.description =
      "removes unused lets and allocations, pure evaluations, empty loops, ifs and blocks";
  info.run_kernel =
      EachKernel([](const Kernel& kernel, const PassOptions&) { return RemoveDeadCode(kernel); });
  return info;
}

}  // namespace tile_ir::passes
