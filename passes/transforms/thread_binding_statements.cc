// Binding with several threads per block, at the statement level: statements outside
// parallel loops, fragment accesses moved to registers, and the shared mirrors of fragments
// that threads other than an element's owner read. Parallel nests go to the nest files.
#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "passes/analysis/arith/expr_simplifier.h"
#include "passes/analysis/fragment_layout.h"
#include "passes/transforms/thread_binding_binder.h"
#include "passes/transforms/thread_binding_internal.h"
#include "tile_ir/intrinsics.h"
#include "tile_ir/printer.h"

namespace tile_ir::passes::thread_binding {
namespace {

class PassedWhole : public IRVisitor {
 public:
  using IRVisitor::Visit;
  std::vector<const BufferLoad*> loads;

 protected:
  void VisitCall(const Call& node) override {
    if (node.name.find('.') != std::string::npos) {
      for (const Expr& arg : node.args) {
        const BufferLoad* load = As<BufferLoad>(arg);
        if (load && load->buffer->scope == MemoryScope::kFragment) loads.push_back(load);
      }
    }
    IRVisitor::VisitCall(node);
  }
};

template <typename Node>
std::vector<const BufferLoad*> FindPassedWhole(const Node& node) {
  PassedWhole finder;
  finder.Visit(node);
  return finder.loads;
}

}  // namespace

void Contents::VisitCall(const Call& node) {
  const IntrinsicInfo* info = FindIntrinsic(node.name);
  shared_effect |= info == nullptr || !info->pure;
  IRVisitor::VisitCall(node);
}

Contents Scan(const Stmt& s) {
  Contents contents;
  contents.Visit(s);
  return contents;
}

Contents Scan(const Expr& e) {
  Contents contents;
  contents.Visit(e);
  return contents;
}

std::vector<const For*> ParallelChain(const For& root) {
  std::vector<const For*> chain = {&root};
  while (true) {
    const Stmt& body = chain.back()->body;
    const Seq* seq = As<Seq>(body);
    const For* inner = As<For>(seq && seq->stmts.size() == 1 ? seq->stmts[0] : body);
    if (inner == nullptr || inner->for_kind != ForKind::kParallel) break;
    chain.push_back(inner);
  }
  return chain;
}

std::vector<Expr> ToI32(const std::vector<Expr>& indices) {
  std::vector<Expr> result;
  for (const Expr& index : indices) result.push_back(AsI32(index));
  return result;
}

Expr SubstituteVar(const Expr& e, const Var* from, const Expr& to) {
  class Replace : public IRMutator {
   public:
    Replace(const Var* from, Expr to) : from_(from), to_(std::move(to)) {}

   protected:
    Expr MutateVar(const Var& node, const Expr& self) override {
      return &node == from_ ? to_ : self;
    }

   private:
    const Var* from_;
    Expr to_;
  };
  Replace replace(from, to);
  return replace.Mutate(e);
}

Expr Owner(const Fragment& fragment, const std::vector<Expr>& indices) {
  return arith::SimplifyExpr(ApplyLayout(fragment.layout, ToI32(indices))[0]);
}

Expr Register(const Fragment& fragment, const std::vector<Expr>& indices) {
  return arith::SimplifyExpr(ApplyLayout(fragment.layout, ToI32(indices))[1]);
}

std::vector<const BufferLoad*> FragmentsPassedWhole(const Expr& node) {
  return FindPassedWhole(node);
}

std::vector<const BufferLoad*> FragmentsPassedWhole(const Stmt& node) {
  return FindPassedWhole(node);
}

Stmt Binder::BindWithFills(const Stmt& s) {
  Stmt bound = Bind(s);
  std::vector<Stmt> stmts = TakeFills();
  if (stmts.empty()) return bound;
  stmts.push_back(std::move(bound));
  return Seq::Make(std::move(stmts), s->loc());
}

Stmt Binder::Bind(const Stmt& s) {
  if (!status_.ok()) return s;
  switch (s->kind()) {
    case StmtKind::kSeq: {
      // Fills go straight into the block: a let after them stays visible to the rest.
      std::vector<Stmt> stmts;
      for (const Stmt& child : As<Seq>(s)->stmts) {
        Stmt bound = Bind(child);
        std::vector<Stmt> fills = TakeFills();
        stmts.insert(stmts.end(), fills.begin(), fills.end());
        stmts.push_back(std::move(bound));
      }
      return Seq::Make(std::move(stmts), s->loc());
    }
    case StmtKind::kFor: {
      const For& loop = *As<For>(s);
      if (loop.for_kind == ForKind::kParallel) {
        if (Scan(s).fragment()) {
          if (std::optional<Stmt> fast = RegisterNest(loop, s)) return *std::move(fast);
          return Nest(s);
        }
        absl::StatusOr<Stmt> dealt =
            DealCyclically(kernel_, loop, threads_, thread_, vector_bytes_, names_);
        if (!dealt.ok()) {
          if (status_.ok()) status_ = dealt.status();
          return s;
        }
        return *std::move(dealt);
      }
      Stmt body = BindWithFills(loop.body);
      return For::Make(loop.var, ReadViaMirrors(loop.min, s), ReadViaMirrors(loop.extent, s),
                       loop.for_kind, std::move(body), loop.loc(), loop.pipeline, loop.thread_axis);
    }
    case StmtKind::kIf: {
      const If& node = *As<If>(s);
      Stmt then_body = BindWithFills(node.then_body);
      Stmt else_body = node.else_body ? BindWithFills(node.else_body) : nullptr;
      return If::Make(ReadViaMirrors(node.cond, s), std::move(then_body), std::move(else_body),
                      node.loc());
    }
    case StmtKind::kStore: return Guarded({s}, s);
    case StmtKind::kLet: {
      const Let& let = *As<Let>(s);
      return Let::Make(let.var, ReadViaMirrors(let.value, s), let.loc());
    }
    case StmtKind::kEvaluate: {
      // A read-modify-write of one element (an atomic add) is not idempotent: like a store,
      // it runs once, on the thread that holds the fragment elements it reads (thread 0 when
      // it reads none), not on every thread of the block. Other calls outside parallel loops
      // (a target's collective gemm, a copy every thread issues) still run on every thread.
      const Call* call = Evaluate::CallOf(s);
      const IntrinsicInfo* info = call != nullptr ? FindIntrinsic(call->name) : nullptr;
      if (info != nullptr && info->updates_first_arg) return Guarded({s}, s);
      return Evaluate::Make(ReadViaMirrors(As<Evaluate>(s)->value, s), s->loc());
    }
    case StmtKind::kAllocate: return Mutate(s);
    case StmtKind::kBarrier: return s;
    case StmtKind::kReduce:
      if (std::optional<Stmt> reduced = LaneReduce(*As<Reduce>(s))) return *std::move(reduced);
      return Fail(s, "tile operations must be lowered first (run lower-tile-ops)");
    default: return Fail(s, "tile operations must be lowered first (run lower-tile-ops)");
  }
}

Expr Binder::MutateBufferLoad(const BufferLoad& node, const Expr& self) {
  if (passed_whole_.contains(&node)) {
    return BufferLoad::Make(fragments_.at(node.buffer.get()).local, {Int(0)});
  }
  Expr result = IRMutator::MutateBufferLoad(node, self);
  if (via_mirror_.contains(&node)) {
    return BufferLoad::Make(mirrors_.at(node.buffer.get()), As<BufferLoad>(result)->indices);
  }
  auto it = fragments_.find(node.buffer.get());
  if (it == fragments_.end()) return result;
  auto fixed = register_override_.find(&node);
  return BufferLoad::Make(
      it->second.local,
      {fixed != register_override_.end() ? fixed->second
                                         : Register(it->second, As<BufferLoad>(result)->indices)});
}

Stmt Binder::MutateStore(const Store& node, const Stmt& self) {
  Stmt result = IRMutator::MutateStore(node, self);
  auto it = fragments_.find(node.buffer.get());
  if (it == fragments_.end()) return result;
  const Store& store = *As<Store>(result);
  auto fixed = register_override_.find(&node);
  return Store::Make(
      it->second.local,
      {fixed != register_override_.end() ? fixed->second : Register(it->second, store.indices)},
      store.value, store.loc());
}

Stmt Binder::MutateAllocate(const Allocate& node, const Stmt& self) {
  auto it = fragments_.find(node.buffer.get());
  return it == fragments_.end() ? self : Allocate::Make(it->second.local, node.loc());
}

Stmt Binder::Fail(const Stmt& s, std::string_view message) {
  if (status_.ok()) status_ = StmtError(kernel_, s, message);
  return s;
}

void Binder::RequestMirror(const BufferNode* fragment, const Stmt& site) {
  if (!mirrors_.contains(fragment)) {
    Buffer mirror = BufferNode::Make(names_.Fresh(fragment->name + "_shared"), fragment->dtype,
                                     fragment->shape, MemoryScope::kShared);
    mirrors_[fragment] = mirror;
    mirror_list_.push_back(mirror);
  }
  if (remarks_ != nullptr) {
    std::string text = Print(site);
    text = text.substr(0, text.find('\n'));
    std::string loc = site->loc().known() ? absl::StrCat(site->loc().ToString(), ": ") : "";
    std::string remark = absl::StrCat(
        loc, "in kernel '", kernel_.name, "': thread-binding: fragment '", fragment->name,
        "' is read by threads that do not hold the elements they read, so its owners store it "
        "to shared memory ('",
        mirrors_.at(fragment)->name, "') before `", text,
        "`; a layout that puts each read element on its reader avoids it");
    if (std::find(remarks_->begin(), remarks_->end(), remark) == remarks_->end()) {
      remarks_->push_back(std::move(remark));
    }
  }
  if (std::find(fills_.begin(), fills_.end(), fragment) == fills_.end()) {
    fills_.push_back(fragment);
  }
}

Expr Binder::ReadViaMirrors(const Expr& e, const Stmt& site) {
  for (const BufferLoad* load : FragmentsPassedWhole(e)) {
    for (const Expr& index : load->indices) {
      if (AsConstInt(index) != 0) {
        Fail(site, absl::StrCat("fragment '", load->buffer->name,
                                "' is passed whole to a target intrinsic, so it must be "
                                "named by its first element (all indices 0)"));
        return e;
      }
    }
    passed_whole_.insert(load);
  }
  Contents contents = Scan(e);
  for (const BufferLoad* load : contents.fragment_loads) {
    if (passed_whole_.contains(load)) continue;
    RequestMirror(load->buffer.get(), site);
    via_mirror_.insert(load);
  }
  Expr result = Mutate(e);
  via_mirror_.clear();
  passed_whole_.clear();
  return result;
}

std::vector<Stmt> Binder::TakeFills() {
  std::vector<Stmt> fills;
  for (const BufferNode* buffer : fills_) {
    const Fragment& fragment = fragments_.at(buffer);
    std::vector<VarRef> vars;
    std::vector<Expr> indices;
    for (const Expr& extent : buffer->shape) {
      vars.push_back(Var::Make(names_.Fresh("m"), extent->dtype()));
      indices.push_back(vars.back());
    }
    // One copy of a replicated element fills the mirror: the first replica's.
    Expr owner = Owner(fragment, indices);
    if (fragment.layout.replicated()) {
      owner = arith::SimplifyExpr(SubstituteVar(owner, fragment.layout.replica.get(), Int(0)));
    }
    Stmt fill =
        If::Make(Op(BinaryOp::kEq, owner, thread_),
                 Store::Make(mirrors_.at(buffer), indices,
                             BufferLoad::Make(fragment.local, {Register(fragment, indices)})));
    for (size_t d = vars.size(); d-- > 0;) {
      fill = For::Make(vars[d], Int(0, vars[d]->dtype()), buffer->shape[d], ForKind::kSerial,
                       std::move(fill));
    }
    fills.push_back(std::move(fill));
  }
  fills_.clear();
  return fills;
}

absl::StatusOr<Stmt> BindStatements(const KernelNode& kernel, int64_t threads,
                                    FragmentMap fragments, Expr thread, int vector_bytes,
                                    int warp_size, FreshNames& names,
                                    std::vector<std::string>* remarks) {
  Binder binder(kernel, threads, std::move(fragments), std::move(thread), vector_bytes, warp_size,
                names, remarks);
  Stmt body = binder.BindWithFills(kernel.body);
  if (!binder.status().ok()) return binder.status();
  if (binder.mirrors().empty()) return body;
  std::vector<Stmt> stmts;
  for (const Buffer& mirror : binder.mirrors()) stmts.push_back(Allocate::Make(mirror));
  if (const Seq* seq = As<Seq>(body)) {
    stmts.insert(stmts.end(), seq->stmts.begin(), seq->stmts.end());
  } else {
    stmts.push_back(body);
  }
  return Seq::Make(std::move(stmts), body->loc());
}

}  // namespace tile_ir::passes::thread_binding
