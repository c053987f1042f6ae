// Binding with several threads per block: statements outside parallel loops, nests that
// touch fragments (walked by every thread, each element on its owner) and nests that do not
// (dealt out cyclically).
#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "passes/fragment_layout.h"
#include "passes/simplify.h"
#include "passes/thread_binding_internal.h"
#include "tile_ir/intrinsics.h"
#include "tile_ir/mutator.h"
#include "tile_ir/printer.h"
#include "tile_ir/structural_equal.h"

namespace tile_ir::passes::thread_binding {
namespace {

Expr Op(BinaryOp op, Expr a, Expr b) { return Binary::Make(op, std::move(a), std::move(b)); }

// A fragment passed whole to a target intrinsic: target intrinsics carry their target's
// prefix ("cuda.gemm_ss"; tile_ir/intrinsics.h) and take a load argument as an address, so a
// fragment argument stands for the fragment itself, in each thread its own registers (a
// tensor-core gemm's accumulator). These are the loads of `node` in that position.
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
std::vector<const BufferLoad*> FragmentsPassedWhole(const Node& node) {
  PassedWhole finder;
  finder.Visit(node);
  return finder.loads;
}

Expr AsI32(const Expr& e) { return e->dtype() == kI32 ? e : Cast::Make(kI32, e); }

// T > 1. Bind() rewrites statements outside parallel loops; the nest methods rewrite a
// parallel nest; the Mutate overrides move fragment accesses to registers.
class Binder : public IRMutator {
 public:
  Binder(const KernelNode& kernel, int64_t threads, FragmentMap fragments, Expr thread,
         FreshNames& names)
      : kernel_(kernel),
        threads_(threads),
        fragments_(std::move(fragments)),
        thread_(std::move(thread)),
        names_(names) {}

  const absl::Status& status() const { return status_; }

  // The shared mirrors of fragments that other threads read, in order of creation.
  const std::vector<Buffer>& mirrors() const { return mirror_list_; }

  // Bind() with the mirror fills it asked for in front.
  Stmt BindWithFills(const Stmt& s) {
    Stmt bound = Bind(s);
    std::vector<Stmt> stmts = TakeFills();
    if (stmts.empty()) return bound;
    stmts.push_back(std::move(bound));
    return Seq::Make(std::move(stmts), s->loc());
  }

  Stmt Bind(const Stmt& s) {
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
          if (Scan(s).fragment()) return Nest(s);
          absl::StatusOr<Stmt> dealt = DealCyclically(kernel_, loop, threads_, thread_, names_);
          if (!dealt.ok()) {
            if (status_.ok()) status_ = dealt.status();
            return s;
          }
          return *std::move(dealt);
        }
        Stmt body = BindWithFills(loop.body);
        return For::Make(loop.var, ReadViaMirrors(loop.min, s), ReadViaMirrors(loop.extent, s),
                         loop.for_kind, std::move(body), loop.loc(), loop.pipeline,
                         loop.thread_axis);
      }
      case StmtKind::kIf: {
        const If& node = *As<If>(s);
        Stmt then_body = BindWithFills(node.then_body);
        Stmt else_body = node.else_body ? BindWithFills(node.else_body) : nullptr;
        return If::Make(ReadViaMirrors(node.cond, s), std::move(then_body), std::move(else_body),
                        node.loc());
      }
      case StmtKind::kStore:
        return Guarded({s}, s);
      case StmtKind::kLet: {
        const Let& let = *As<Let>(s);
        return Let::Make(let.var, ReadViaMirrors(let.value, s), let.loc());
      }
      case StmtKind::kEvaluate:
        return Evaluate::Make(ReadViaMirrors(As<Evaluate>(s)->value, s), s->loc());
      case StmtKind::kAllocate:
        return Mutate(s);
      case StmtKind::kBarrier:
        return s;
      default:
        return Fail(s, "tile operations must be lowered first (run lower-tile-ops)");
    }
  }

 protected:
  Expr MutateBufferLoad(const BufferLoad& node, const Expr& self) override {
    if (passed_whole_.contains(&node)) {
      return BufferLoad::Make(fragments_.at(node.buffer.get()).local, {Int(0)});
    }
    Expr result = IRMutator::MutateBufferLoad(node, self);
    if (via_mirror_.contains(&node)) {
      return BufferLoad::Make(mirrors_.at(node.buffer.get()), As<BufferLoad>(result)->indices);
    }
    auto it = fragments_.find(node.buffer.get());
    if (it == fragments_.end()) return result;
    return BufferLoad::Make(it->second.local,
                            {Register(it->second, As<BufferLoad>(result)->indices)});
  }
  Stmt MutateStore(const Store& node, const Stmt& self) override {
    Stmt result = IRMutator::MutateStore(node, self);
    auto it = fragments_.find(node.buffer.get());
    if (it == fragments_.end()) return result;
    const Store& store = *As<Store>(result);
    return Store::Make(it->second.local, {Register(it->second, store.indices)}, store.value,
                       store.loc());
  }
  Stmt MutateAllocate(const Allocate& node, const Stmt& self) override {
    auto it = fragments_.find(node.buffer.get());
    return it == fragments_.end() ? self : Allocate::Make(it->second.local, node.loc());
  }

 private:
  static Expr Register(const Fragment& fragment, const std::vector<Expr>& indices) {
    return SimplifyExpr(ApplyLayout(fragment.layout, ToI32(indices))[1]);
  }
  static std::vector<Expr> ToI32(const std::vector<Expr>& indices) {
    std::vector<Expr> result;
    for (const Expr& index : indices) result.push_back(AsI32(index));
    return result;
  }

  Stmt Fail(const Stmt& s, std::string_view message) {
    if (status_.ok()) status_ = StmtError(kernel_, s, message);
    return s;
  }

  static Expr Owner(const Fragment& fragment, const std::vector<Expr>& indices) {
    return SimplifyExpr(ApplyLayout(fragment.layout, ToI32(indices))[0]);
  }

  // A fragment that threads other than an element's owner read is mirrored in shared
  // memory: before the statement that reads it, each owner stores its elements there (the
  // barrier after that is insert-barriers' to place), and the reads go to the mirror.
  void RequestMirror(const BufferNode* fragment) {
    if (!mirrors_.contains(fragment)) {
      Buffer mirror = BufferNode::Make(names_.Fresh(fragment->name + "_shared"), fragment->dtype,
                                       fragment->shape, MemoryScope::kShared);
      mirrors_[fragment] = mirror;
      mirror_list_.push_back(mirror);
    }
    if (std::find(fills_.begin(), fills_.end(), fragment) == fills_.end()) {
      fills_.push_back(fragment);
    }
  }

  // `e`, which every thread evaluates (in statement `site`), with its fragment reads going
  // to mirrors, except fragments passed whole to target intrinsics: each thread passes its
  // own registers, `F[0, ...]` becoming `F_local[0]`.
  Expr ReadViaMirrors(const Expr& e, const Stmt& site) {
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
      RequestMirror(load->buffer.get());
      via_mirror_.insert(load);
    }
    Expr result = Mutate(e);
    via_mirror_.clear();
    passed_whole_.clear();
    return result;
  }

  // The statements that fill the mirrors requested since the last call.
  std::vector<Stmt> TakeFills() {
    std::vector<Stmt> fills;
    for (const BufferNode* buffer : fills_) {
      const Fragment& fragment = fragments_.at(buffer);
      std::vector<VarRef> vars;
      std::vector<Expr> indices;
      for (const Expr& extent : buffer->shape) {
        vars.push_back(Var::Make(names_.Fresh("m"), extent->dtype()));
        indices.push_back(vars.back());
      }
      Stmt fill =
          If::Make(Op(BinaryOp::kEq, Owner(fragment, indices), thread_),
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

  // A nest that touches fragments, at the statement level: the fragments it reads through
  // mirrors are filled before it, so it must not write them.
  Stmt Nest(const Stmt& s) {
    size_t filled = fills_.size();
    Stmt result = InNest(s);
    Contents contents = Scan(s);
    for (size_t i = filled; i < fills_.size(); ++i) {
      for (const Store* store : contents.fragment_stores) {
        if (store->buffer.get() == fills_[i]) {
          return Fail(s, absl::StrCat("fragment '", fills_[i]->name,
                                      "' is read by threads that do not hold its elements in a "
                                      "loop nest that also writes it"));
        }
      }
    }
    return result;
  }

  // A statement of a nest that touches fragments and holds parallel loops: parallel loops
  // become serial ones that every thread walks.
  Stmt InNest(const Stmt& s) {
    if (!status_.ok()) return s;
    if (const For* loop = As<For>(s)) {
      if (Scan(loop->min).fragment() || Scan(loop->extent).fragment()) {
        return Fail(s, "a loop bound reads a fragment, whose elements live on single threads");
      }
      std::optional<int64_t> min = AsConstInt(loop->min);
      std::optional<int64_t> extent = AsConstInt(loop->extent);
      bool known = min && extent;
      if (known) loops_.push_back({loop->var.get(), *min, *extent});
      Stmt body = GuardBlock(loop->body);
      if (known) loops_.pop_back();
      ForKind kind = loop->for_kind == ForKind::kParallel ? ForKind::kSerial : loop->for_kind;
      return For::Make(loop->var, loop->min, loop->extent, kind, std::move(body), loop->loc(),
                       loop->pipeline, loop->thread_axis);
    }
    if (const If* node = As<If>(s)) {
      if (Scan(node->cond).fragment()) {
        return Fail(s, "a condition reads a fragment, whose elements live on single threads");
      }
      return If::Make(node->cond, GuardBlock(node->then_body),
                      node->else_body ? GuardBlock(node->else_body) : nullptr, node->loc());
    }
    return GuardBlock(s);
  }

  // Splits a block into runs without parallel loops, each executed by one thread (or all).
  Stmt GuardBlock(const Stmt& s) {
    const Seq* seq = As<Seq>(s);
    std::vector<Stmt> items = seq ? seq->stmts : std::vector<Stmt>{s};
    std::vector<Stmt> out;
    std::vector<Stmt> run;
    auto flush = [&](size_t next) {
      if (run.empty()) return;
      std::vector<Stmt> later(items.begin() + next, items.end());
      EmitRun(std::move(run), later, &out);
      run.clear();
    };
    for (size_t i = 0; i < items.size(); ++i) {
      if (Scan(items[i]).parallel) {
        flush(i);
        out.push_back(InNest(items[i]));
      } else {
        run.push_back(items[i]);
      }
    }
    flush(items.size());
    if (out.size() == 1 && !seq) return out[0];
    return Seq::Make(std::move(out), s->loc());
  }

  // Lets that read no fragment go first, unguarded; the rest runs on its owner thread.
  void EmitRun(std::vector<Stmt> run, const std::vector<Stmt>& later, std::vector<Stmt>* out) {
    size_t free = 0;
    while (free < run.size() && As<Let>(run[free]) && !Scan(run[free]).fragment() &&
           !Scan(run[free]).shared_effect) {
      out->push_back(run[free++]);
    }
    if (free == run.size()) return;
    std::vector<Stmt> rest(run.begin() + free, run.end());
    if (!later.empty()) {
      Contents after;
      for (const Stmt& s : later) after.Visit(s);
      for (const Stmt& s : rest) {
        const Let* let = As<Let>(s);
        const Allocate* alloc = As<Allocate>(s);
        if ((let && after.used_vars.contains(let->var.get())) ||
            (alloc && after.used_buffers.contains(alloc->buffer.get()))) {
          Fail(s, "a declaration that runs on one thread is used after a nested parallel loop");
          return;
        }
      }
    }
    Stmt site = rest.front();
    out->push_back(Guarded(std::move(rest), site));
  }

  // `stmts` (without parallel loops) on the thread that must execute them.
  Stmt Guarded(std::vector<Stmt> stmts, const Stmt& site) {
    Contents contents;
    for (const Stmt& s : stmts) contents.Visit(s);
    if (contents.tile_op) {
      return Fail(site, "tile operations must be lowered first (run lower-tile-ops)");
    }
    if (contents.barrier) {
      return Fail(site,
                  "a barrier would execute on one thread only (it sits among statements "
                  "that one thread executes for an element)");
    }
    for (const Stmt& s : stmts) {
      if (!FragmentsPassedWhole(s).empty()) {
        return Fail(site,
                    "a fragment passed whole to a target intrinsic needs every thread, but the "
                    "call sits among statements that one thread executes (inside a parallel "
                    "loop, or storing its result)");
      }
    }
    Expr owner;
    if (contents.fragment()) {
      std::optional<Expr> found = ChooseOwner(contents, site);
      if (!found) return site;
      owner = *found;
    } else if (contents.shared_effect) {
      owner = Int(0);
    }
    std::vector<Stmt> rewritten;
    for (const Stmt& s : stmts) rewritten.push_back(Mutate(s));
    via_mirror_.clear();
    Stmt body = rewritten.size() == 1 && !As<Let>(rewritten[0]) && !As<Allocate>(rewritten[0])
                    ? rewritten[0]
                    : Seq::Make(std::move(rewritten), site->loc());
    if (!owner) return body;
    return If::Make(Op(BinaryOp::kEq, owner, thread_), std::move(body), nullptr, site->loc());
  }

  // The thread that executes statements with these fragment accesses: the one that holds
  // the elements they write (all on one thread), or else those of their first read. Reads
  // of elements held elsewhere go through mirrors (marked in via_mirror_).
  std::optional<Expr> ChooseOwner(const Contents& contents, const Stmt& site) {
    std::vector<VarRange> domain = loops_;
    domain.insert(domain.end(), contents.constant_loops.begin(), contents.constant_loops.end());
    auto same = [&](const Expr& a, const Expr& b) {
      return StructuralEqual(a, b) || AgreeOnDomain({a, b}, domain);
    };
    Expr owner;
    std::string owner_text;
    for (const Store* store : contents.fragment_stores) {
      Expr thread = Owner(fragments_.at(store->buffer.get()), store->indices);
      std::string text = absl::StrCat("'", store->buffer->name, "' on thread ", Print(thread));
      if (!owner) {
        owner = thread;
        owner_text = text;
      } else if (!same(owner, thread)) {
        Fail(site, absl::StrCat("fragment elements that one statement writes live on different "
                                "threads (",
                                owner_text, ", ", text, ")"));
        return std::nullopt;
      }
    }
    for (const BufferLoad* load : contents.fragment_loads) {
      Expr thread = Owner(fragments_.at(load->buffer.get()), load->indices);
      if (!owner) {
        owner = thread;
      } else if (!same(owner, thread)) {
        RequestMirror(load->buffer.get());
        via_mirror_.insert(load);
      }
    }
    return owner;
  }

  const KernelNode& kernel_;
  const int64_t threads_;
  const FragmentMap fragments_;
  const Expr thread_;
  FreshNames& names_;
  absl::flat_hash_map<const BufferNode*, Buffer> mirrors_;
  std::vector<Buffer> mirror_list_;
  // Mirrors to fill before the statement being bound, and the fragment loads that the
  // statement being rewritten takes from mirrors.
  std::vector<const BufferNode*> fills_;
  absl::flat_hash_set<const BufferLoad*> via_mirror_;
  // The fragment loads of the expression being rewritten that pass fragments whole.
  absl::flat_hash_set<const BufferLoad*> passed_whole_;
  // Enclosing loops of the current nest with constant bounds.
  std::vector<VarRange> loops_;
  absl::Status status_;
};

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

absl::StatusOr<Stmt> BindStatements(const KernelNode& kernel, int64_t threads,
                                    FragmentMap fragments, Expr thread, FreshNames& names) {
  Binder binder(kernel, threads, std::move(fragments), std::move(thread), names);
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
