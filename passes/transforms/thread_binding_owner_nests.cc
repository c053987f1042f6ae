// Binding with several threads per block: the generic form of a parallel nest that touches
// fragments. Every thread walks the nest, its parallel loops made serial, and each run of
// statements executes on the thread that owns the fragment elements it writes.
#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "passes/analysis/arith/expr_simplifier.h"
#include "passes/analysis/fragment_threads.h"
#include "passes/transforms/thread_binding_binder.h"
#include "passes/transforms/thread_binding_internal.h"
#include "passes/transforms/thread_binding_placement.h"
#include "tile_ir/printer.h"
#include "tile_ir/structural_equal.h"

namespace tile_ir::passes::thread_binding {
namespace {

// The variables that the loops and lets of `stmts` bind.
absl::flat_hash_set<const Var*> BoundVars(const std::vector<Stmt>& stmts) {
  class Finder : public IRVisitor {
   public:
    using IRVisitor::Visit;
    absl::flat_hash_set<const Var*> vars;

   protected:
    void VisitFor(const For& node) override {
      vars.insert(node.var.get());
      IRVisitor::VisitFor(node);
    }
    void VisitLet(const Let& node) override {
      vars.insert(node.var.get());
      IRVisitor::VisitLet(node);
    }
  };
  Finder finder;
  for (const Stmt& s : stmts) finder.Visit(s);
  return finder.vars;
}

// The first variable of `bound` that `e` uses, or null.
const Var* UsesOneOf(const Expr& e, const absl::flat_hash_set<const Var*>& bound) {
  for (const Var* var : Scan(e).used_vars) {
    if (bound.contains(var)) return var;
  }
  return nullptr;
}

}  // namespace

Stmt Binder::Nest(const Stmt& s) {
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

Stmt Binder::InNest(const Stmt& s) {
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

Stmt Binder::GuardBlock(const Stmt& s) {
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
    if (Scan(items[i]).parallel || OwnerBoundInside(items[i])) {
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

void Binder::EmitRun(std::vector<Stmt> run, const std::vector<Stmt>& later,
                     std::vector<Stmt>* out) {
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

Stmt Binder::Guarded(std::vector<Stmt> stmts, const Stmt& site) {
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
  owner_replica_ = {};
  if (contents.fragment()) {
    std::optional<Expr> found = ChooseOwner(contents, site);
    if (!found) return site;
    owner = *found;
    // The guard comes before the statements, so the owner cannot depend on what they bind.
    // Loops and ifs whose owner does were descended into (OwnerBoundInside); what is left is a
    // fragment indexed by a value the statements compute (read from a fragment, an impure call).
    if (const Var* var = UsesOneOf(owner, BoundVars(stmts))) {
      return Fail(site, absl::StrCat("the thread that holds the fragment element these "
                                     "statements access depends on '",
                                     var->name, "', which they compute"));
    }
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
  // Statements that write a replicated fragment run on every thread holding a copy.
  Expr held;
  if (owner_replica_.var) {
    std::vector<Expr> holders;
    std::vector<int64_t> constant_holders;
    for (int64_t k = 0; k < owner_replica_.count; ++k) {
      holders.push_back(
          arith::SimplifyExpr(SubstituteVar(owner, owner_replica_.var.get(), Int(k))));
      if (std::optional<int64_t> t = AsConstInt(holders.back())) constant_holders.push_back(*t);
    }
    // Copies on a run of consecutive threads (a row's lanes; every thread, for a vector
    // replicated over the block) take a range check, or none, rather than one test per copy.
    std::sort(constant_holders.begin(), constant_holders.end());
    const bool run = constant_holders.size() == holders.size() &&
                     constant_holders.back() - constant_holders.front() + 1 ==
                         static_cast<int64_t>(holders.size()) &&
                     std::adjacent_find(constant_holders.begin(), constant_holders.end()) ==
                         constant_holders.end();
    if (run && constant_holders.front() == 0 && constant_holders.back() + 1 == threads_) {
      owner_replica_ = {};
      return body;
    }
    if (run) {
      DataType type = thread_->dtype();
      held = Op(BinaryOp::kAnd, Op(BinaryOp::kGe, thread_, Int(constant_holders.front(), type)),
                Op(BinaryOp::kLe, thread_, Int(constant_holders.back(), type)));
    }
    for (size_t k = 0; !run && k < holders.size(); ++k) {
      Expr at = Op(BinaryOp::kEq, holders[k], thread_);
      held = held ? Op(BinaryOp::kOr, held, at) : at;
    }
  } else {
    held = Op(BinaryOp::kEq, owner, thread_);
  }
  owner_replica_ = {};
  return If::Make(held, std::move(body), nullptr, site->loc());
}

bool Binder::OwnerBoundInside(const Stmt& s) const {
  if (!As<For>(s) && !As<If>(s)) return false;
  Contents contents = Scan(s);
  const BufferLoad* load = contents.fragment_loads.empty() ? nullptr : contents.fragment_loads[0];
  const Store* store = contents.fragment_stores.empty() ? nullptr : contents.fragment_stores[0];
  const BufferNode* buffer = store ? store->buffer.get() : load ? load->buffer.get() : nullptr;
  auto fragment = buffer ? fragments_.find(buffer) : fragments_.end();
  if (fragment == fragments_.end()) return false;
  Expr owner = Owner(fragment->second, store ? store->indices : load->indices);
  return UsesOneOf(owner, BoundVars({s})) != nullptr;
}

std::optional<Expr> Binder::ChooseOwner(const Contents& contents, const Stmt& site) {
  std::vector<VarRange> domain = loops_;
  domain.insert(domain.end(), contents.constant_loops.begin(), contents.constant_loops.end());
  auto same = [&](const Expr& a, const Expr& b) {
    return StructuralEqual(a, b) || AgreeOnDomain({a, b}, domain);
  };
  Expr owner;
  std::string owner_text;
  for (const Store* store : contents.fragment_stores) {
    const Fragment& fragment = fragments_.at(store->buffer.get());
    Expr thread = Owner(fragment, store->indices);
    std::string text = absl::StrCat("'", store->buffer->name, "' on thread ", Print(thread));
    // A replicated fragment's copies are written together: the first store's replica stands
    // for the run's, and every other store must be replicated alike.
    const Layout& layout = fragment.layout;
    bool replicated = layout.replicated();
    if (!owner && replicated) owner_replica_ = {layout.replica, layout.replicate};
    if (owner && (replicated != static_cast<bool>(owner_replica_.var) ||
                  (replicated && layout.replicate != owner_replica_.count))) {
      Fail(site, absl::StrCat("fragment elements that one statement writes are replicated "
                              "differently (",
                              owner_text, ", ", text, ")"));
      return std::nullopt;
    }
    if (owner && replicated)
      thread = SubstituteVar(thread, layout.replica.get(), owner_replica_.var);
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
    const Fragment& fragment = fragments_.at(load->buffer.get());
    const Layout& layout = fragment.layout;
    Expr thread = Owner(fragment, load->indices);
    if (!owner) {
      // A run that only reads: any one copy of a replicated element will do.
      owner = layout.replicated()
                  ? arith::SimplifyExpr(SubstituteVar(thread, layout.replica.get(), Int(0)))
                  : thread;
      continue;
    }
    bool local;
    if (!layout.replicated()) {
      local = !owner_replica_.var && same(owner, thread);
    } else if (owner_replica_.var) {
      local = layout.replicate == owner_replica_.count &&
              same(owner, SubstituteVar(thread, layout.replica.get(), owner_replica_.var));
    } else {
      local = HeldByOneReplica(owner, thread, layout, domain);
    }
    if (!local) {
      RequestMirror(load->buffer.get(), site);
      via_mirror_.insert(load);
    }
  }
  return owner;
}

bool HeldByOneReplica(const Expr& owner, const Expr& thread, const Layout& layout,
                      const std::vector<VarRange>& domain) {
  bool held = true;
  std::vector<const Var*> slots = BoxSlots(domain);
  const IntProgram owner_at(owner, slots);
  slots.push_back(layout.replica.get());  // the replica index follows the box
  const IntProgram thread_at(thread, slots);
  std::vector<int64_t> with_replica(slots.size());
  bool complete = EnumerateBox(domain, kMaxPoints, [&](absl::Span<const int64_t> values, int64_t) {
    std::optional<int64_t> want = owner_at.Run(values);
    if (!want) return held = false;
    std::copy(values.begin(), values.end(), with_replica.begin());
    for (int64_t k = 0; k < layout.replicate; ++k) {
      with_replica.back() = k;
      if (thread_at.Run(with_replica) == want) return true;
    }
    return held = false;
  });
  return complete && held;
}

}  // namespace tile_ir::passes::thread_binding
