// Bound predication: a statement walk that keeps the facts of enclosing loops
// and guards, guards each global access whose bounds it cannot prove, and
// hoists loop-invariant guards out of serial loops.
#include "passes/transforms/bound_predication.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "passes/analysis/arith/effects.h"
#include "passes/transforms/bound_predication_prover.h"
#include "passes/analysis/fragment_layout.h"
#include "tile_ir/intrinsics.h"
#include "tile_ir/mutator.h"
#include "tile_ir/op_shorthand.h"
#include "tile_ir/structural_equal.h"

namespace tile_ir::passes {
namespace {

Expr Widen(const Expr& e, DataType dtype) { return e->dtype() == dtype ? e : Cast::Make(dtype, e); }

Expr Conjunction(const std::vector<Expr>& atoms) {
  Expr all = atoms.front();
  for (size_t i = 1; i < atoms.size(); ++i) all = Op(BinaryOp::kAnd, all, atoms[i]);
  return all;
}

// The conjuncts of `cond` (a && b && c -> a, b, c).
void SplitConjunction(const Expr& cond, std::vector<Expr>* atoms) {
  const Binary* binary = As<Binary>(cond);
  if (binary != nullptr && binary->op == BinaryOp::kAnd) {
    SplitConjunction(binary->a, atoms);
    SplitConjunction(binary->b, atoms);
  } else {
    atoms->push_back(cond);
  }
}

bool Contains(const std::vector<Expr>& atoms, const Expr& atom) {
  for (const Expr& known : atoms) {
    if (StructuralEqual(known, atom)) return true;
  }
  return false;
}

bool IsGlobal(const Buffer& buffer) { return buffer->scope == MemoryScope::kGlobal; }

// The global load that an atomic update's first argument addresses, if any.
const BufferLoad* GlobalAddress(const Evaluate& node) {
  const Call* call = As<Call>(node.value);
  if (call == nullptr || !IsAtomicUpdate(call->name) || call->args.empty()) return nullptr;
  const BufferLoad* load = As<BufferLoad>(call->args[0]);
  return load != nullptr && IsGlobal(load->buffer) ? load : nullptr;
}

class Predicator : public IRMutator {
 public:
  explicit Predicator(const KernelNode& kernel) : kernel_(kernel) {
    for (const VarRef& dim : kernel.dims) prover_.BindDim(dim);
    for (const GridAxis& axis : kernel.launch.grid) {
      prover_.BindRange(axis.var, Int(0, axis.var->dtype()), axis.extent);
    }
  }

  const absl::Status& status() const { return status_; }

  using IRMutator::Mutate;
  // Remembers the statement being rewritten, for the location of errors.
  Stmt Mutate(const Stmt& s) override {
    if (s != nullptr && s->loc().known()) site_ = s->loc();
    return IRMutator::Mutate(s);
  }

 protected:
  Expr MutateBufferLoad(const BufferLoad& node, const Expr& self) override {
    Expr result = IRMutator::MutateBufferLoad(node, self);
    if (!IsGlobal(node.buffer)) return result;
    const BufferLoad& load = *As<BufferLoad>(result);
    Guard guard = GuardFor(load.buffer, load.indices);
    if (guard.atoms.empty()) return result;
    return Select::Make(Conjunction(guard.atoms), BufferLoad::Make(load.buffer, guard.clamped),
                        ZeroOf(load.dtype()));
  }

  Stmt MutateStore(const Store& node, const Stmt& self) override {
    bool changed = false;
    std::vector<Expr> indices = MutateExprs(node.indices, &changed);
    Guard guard;
    if (IsGlobal(node.buffer)) guard = GuardFor(node.buffer, indices);
    size_t known = Know(guard.atoms);
    Expr value = Mutate(node.value);
    known_.resize(known);
    if (!changed && value == node.value && guard.atoms.empty()) return self;
    Stmt store = Store::Make(node.buffer, std::move(indices), std::move(value), node.loc());
    return Guarded(guard.atoms, std::move(store), node.loc());
  }

  // atomic_add_at(dst[...], v) (max, min) on global memory is a store: its address is
  // guarded by an if, never clamped, since the call writes through it.
  Stmt MutateEvaluate(const Evaluate& node, const Stmt& self) override {
    const BufferLoad* address = GlobalAddress(node);
    if (address == nullptr) return IRMutator::MutateEvaluate(node, self);
    const Call& call = *As<Call>(node.value);
    bool changed = false;
    std::vector<Expr> indices = MutateExprs(address->indices, &changed);
    Guard guard = GuardFor(address->buffer, indices);
    size_t known = Know(guard.atoms);
    std::vector<Expr> args = {BufferLoad::Make(address->buffer, std::move(indices))};
    for (size_t i = 1; i < call.args.size(); ++i) args.push_back(Mutate(call.args[i]));
    known_.resize(known);
    Stmt eval = Evaluate::Make(Call::Make(call.dtype(), call.name, std::move(args)), node.loc());
    return Guarded(guard.atoms, std::move(eval), node.loc());
  }

  Stmt MutateFor(const For& node, const Stmt& self) override {
    Expr min = Mutate(node.min);
    Expr extent = Mutate(node.extent);
    prover_.BindRange(node.var, min, extent);
    Stmt body = MutateBody(node.body);
    if (min == node.min && extent == node.extent && body == node.body) return self;
    return Hoist(node, std::move(min), std::move(extent), std::move(body));
  }

  Stmt MutateIf(const If& node, const Stmt& self) override {
    Expr cond = Mutate(node.cond);
    std::vector<Expr> atoms;
    SplitConjunction(cond, &atoms);
    size_t known = Know(atoms);
    Stmt then_body = MutateBody(node.then_body);
    known_.resize(known);
    Stmt else_body = Mutate(node.else_body);
    if (cond == node.cond && then_body == node.then_body && else_body == node.else_body) {
      return self;
    }
    return If::Make(std::move(cond), std::move(then_body), std::move(else_body), node.loc());
  }

  Stmt MutateLet(const Let& node, const Stmt& self) override {
    Stmt result = IRMutator::MutateLet(node, self);
    prover_.BindLet(node.var, As<Let>(result)->value);
    return result;
  }

  Stmt MutateCopy(const Copy& node, const Stmt& self) override {
    return RefuseTileOp(self, {&node.src, &node.dst});
  }
  Stmt MutateGemm(const Gemm& node, const Stmt& self) override {
    return RefuseTileOp(self, {&node.a, &node.b, &node.c});
  }
  Stmt MutateFill(const Fill& node, const Stmt& self) override {
    return RefuseTileOp(self, {&node.dst});
  }
  Stmt MutateReduce(const Reduce& node, const Stmt& self) override {
    return RefuseTileOp(self, {&node.src, &node.dst});
  }
  Stmt MutateAtomicAdd(const AtomicAdd& node, const Stmt& self) override {
    return RefuseTileOp(self, {&node.src, &node.dst});
  }
  Stmt MutateCumsum(const Cumsum& node, const Stmt& self) override {
    return RefuseTileOp(self, {&node.src, &node.dst});
  }

 private:
  struct Guard {
    std::vector<Expr> atoms;    // the conditions not known yet
    std::vector<Expr> clamped;  // the indices, clamped where not proved
  };

  Guard GuardFor(const Buffer& buffer, const std::vector<Expr>& indices) {
    Guard guard;
    for (size_t d = 0; d < indices.size(); ++d) {
      const Expr& index = indices[d];
      if (index->dtype().is_vector()) {
        Fail(absl::StrCat("a vector index into '", buffer->name,
                          "': run bound-predication before vectorize"));
        return {};
      }
      const Expr& size = buffer->shape[d];
      DataType dtype =
          index->dtype().bits() >= size->dtype().bits() ? index->dtype() : size->dtype();
      Expr wide = Widen(index, dtype);
      Expr limit = Widen(size, dtype);
      Expr clamped = index;
      if (!prover_.ProveNonNegative(index)) {
        Add(Op(BinaryOp::kGe, wide, Int(0, dtype)), &guard.atoms);
        clamped = Op(BinaryOp::kMax, wide, Int(0, dtype));
      }
      if (!prover_.ProveBelow(index, size)) {
        Add(Op(BinaryOp::kLt, wide, limit), &guard.atoms);
        clamped =
            Op(BinaryOp::kMin, Widen(clamped, dtype), Op(BinaryOp::kSub, limit, Int(1, dtype)));
      }
      guard.clamped.push_back(std::move(clamped));
    }
    return guard;
  }

  // Adds a condition unless it is known where the access sits or listed.
  void Add(Expr atom, std::vector<Expr>* atoms) {
    if (!Contains(known_, atom) && !Contains(*atoms, atom)) atoms->push_back(std::move(atom));
  }

  // Makes `atoms` known; returns what to resize known_ to when leaving.
  size_t Know(const std::vector<Expr>& atoms) {
    size_t before = known_.size();
    known_.insert(known_.end(), atoms.begin(), atoms.end());
    return before;
  }

  static Stmt Guarded(const std::vector<Expr>& atoms, Stmt stmt, const SourceLoc& loc) {
    if (atoms.empty()) return stmt;
    return If::Make(Conjunction(atoms), std::move(stmt), nullptr, loc);
  }

  static Expr ZeroOf(DataType dtype) {
    return dtype.is_float() ? Float(0.0, dtype) : Int(0, dtype);
  }

  // The rebuilt loop, with the loop-invariant part of a guard that is its
  // whole body moved around it (serial and unrolled loops only: thread
  // binding maps parallel nests, and pipelined loops keep their statements).
  Stmt Hoist(const For& node, Expr min, Expr extent, Stmt body) {
    auto rebuild = [&](Stmt new_body) {
      return For::Make(node.var, min, extent, node.for_kind, std::move(new_body), node.loc(),
                       node.pipeline, node.thread_axis);
    };
    const If* guard = As<If>(body);
    if (const Seq* seq = As<Seq>(body); seq != nullptr && seq->stmts.size() == 1) {
      guard = As<If>(seq->stmts[0]);
    }
    bool hoistable_loop = node.for_kind == ForKind::kSerial || node.for_kind == ForKind::kUnrolled;
    if (!hoistable_loop || guard == nullptr || guard->else_body != nullptr) {
      return rebuild(std::move(body));
    }
    std::vector<Expr> atoms;
    SplitConjunction(guard->cond, &atoms);
    std::vector<Expr> invariant;
    std::vector<Expr> variant;
    for (const Expr& atom : atoms) {
      bool moves = arith::IsMemoryFree(atom) && !Mentions(atom, node.var.get());
      (moves ? invariant : variant).push_back(atom);
    }
    if (invariant.empty()) return rebuild(std::move(body));
    Stmt inner = variant.empty()
                     ? guard->then_body
                     : If::Make(Conjunction(variant), guard->then_body, nullptr, guard->loc());
    return If::Make(Conjunction(invariant), rebuild(std::move(inner)), nullptr, guard->loc());
  }

  Stmt RefuseTileOp(const Stmt& self, std::vector<const Region*> regions) {
    for (const Region* region : regions) {
      if (!IsGlobal(region->buffer)) continue;
      Fail(absl::StrCat("a tile operation still reads or writes global '", region->buffer->name,
                        "'; run lower-tile-ops before bound-predication"));
      break;
    }
    return self;
  }

  void Fail(std::string message) {
    if (!status_.ok()) return;
    std::string where = site_.known() ? absl::StrCat(site_.ToString(), ": ") : "";
    status_ = absl::FailedPreconditionError(
        absl::StrCat(where, "in kernel '", kernel_.name, "': ", std::move(message)));
  }

  const KernelNode& kernel_;
  BoundProver prover_;
  std::vector<Expr> known_;  // conditions that hold where the walk is
  SourceLoc site_;           // the innermost statement with a location
  absl::Status status_;
};

}  // namespace

absl::StatusOr<Kernel> PredicateBounds(const Kernel& kernel) {
  Predicator predicator(*kernel);
  Kernel result = predicator.MutateKernel(kernel);
  if (!predicator.status().ok()) return predicator.status();
  return result;
}

absl::StatusOr<bool> PredicateBounds(Module& module) {
  return MapKernels(module, [](const Kernel& kernel) { return PredicateBounds(kernel); });
}

PassInfo BoundPredicationPass() {
  PassInfo info;
  info.name = "bound-predication";
  info.description =
      "guards global loads (select with clamped indices) and stores (if) that may leave their "
      "tensor";
  info.run_kernel =
      EachKernel([](const Kernel& kernel, const PassOptions&) { return PredicateBounds(kernel); });
  return info;
}

}  // namespace tile_ir::passes
