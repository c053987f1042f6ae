// Barrier insertion: a forward walk over the pending shared-memory accesses since the last
// barrier, with loops iterated until their head state is stable and thread-dependent
// control flow treated as one statement.
#include "passes/transforms/insert_barriers.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "passes/analysis/buffer_access.h"
#include "passes/analysis/shared_buffer_bytes.h"
#include "tile_ir/intrinsics.h"
#include "tile_ir/mutator.h"
#include "tile_ir/printer.h"
#include "tile_ir/structural_equal.h"
#include "tile_ir/visitor.h"

namespace tile_ir::passes {
namespace {

using Units = absl::flat_hash_set<const StmtNode*>;
using UnitsByBuffer = absl::flat_hash_map<const BufferNode*, Units>;

// Shared-memory accesses since the last barrier: per buffer, the statements that made them.
// `landed` holds what asynchronous copies wrote as of an async_wait: visible to the waiting
// thread only, so later readers need a barrier, while the copies themselves were ordered
// against earlier accesses where they were issued.
// `issued` holds asynchronous copies' destinations: ordered against earlier accesses where
// they are issued, never pending afterwards (their bytes are in `landed` once waited for).
struct Pending {
  UnitsByBuffer reads;
  UnitsByBuffer writes;
  UnitsByBuffer landed;
  UnitsByBuffer issued;

  void Merge(const Pending& other) {
    for (const auto& [buffer, units] : other.reads) {
      reads[buffer].insert(units.begin(), units.end());
    }
    for (const auto& [buffer, units] : other.writes) {
      writes[buffer].insert(units.begin(), units.end());
    }
    for (const auto& [buffer, units] : other.landed) {
      landed[buffer].insert(units.begin(), units.end());
    }
  }
  bool Covers(const Pending& other) const {
    auto covers = [](const UnitsByBuffer& big, const UnitsByBuffer& small) {
      for (const auto& [buffer, units] : small) {
        auto it = big.find(buffer);
        for (const StmtNode* unit : units) {
          if (it == big.end() || !it->second.contains(unit)) return false;
        }
      }
      return true;
    };
    return covers(reads, other.reads) && covers(writes, other.writes) &&
           covers(landed, other.landed);
  }
  void Clear() {
    reads.clear();
    writes.clear();
    landed.clear();
  }
};

// The shared buffers whose bytes overlap each buffer's (itself included): plan-shared-memory
// lets buffers that are never live together share bytes, which orders their accesses too.
using Aliases = absl::flat_hash_map<const BufferNode*, std::vector<const BufferNode*>>;

// Whether some unit in `earlier` made an access that a different unit in `later` must not
// overtake: a write before a read, or any access before a write, to overlapping bytes.
bool Conflicts(const Pending& earlier, const Pending& later, const Aliases& aliases) {
  auto other_than = [](const Units& units, const StmtNode* unit) {
    return units.size() > 1 || (units.size() == 1 && !units.contains(unit));
  };
  auto check = [&](const UnitsByBuffer& accesses, const UnitsByBuffer& against) {
    for (const auto& [buffer, units] : accesses) {
      auto overlapping = aliases.find(buffer);
      std::vector<const BufferNode*> itself = {buffer};
      for (const BufferNode* alias : overlapping == aliases.end() ? itself : overlapping->second) {
        auto it = against.find(alias);
        if (it == against.end()) continue;
        for (const StmtNode* unit : units) {
          if (other_than(it->second, unit)) return true;
        }
      }
    }
    return false;
  };
  return check(later.reads, earlier.writes) || check(later.writes, earlier.writes) ||
         check(later.writes, earlier.reads) || check(later.reads, earlier.landed) ||
         check(later.issued, earlier.writes) || check(later.issued, earlier.reads);
}

// Variables whose value may differ between the threads of a block.
class ThreadDependence : public IRVisitor {
 public:
  using IRVisitor::Visit;

  bool Depends(const Expr& e) {
    found_ = false;
    Visit(e);
    return found_;
  }

 protected:
  void VisitFor(const For& node) override {
    if (node.for_kind == ForKind::kThreadBound || Depends(node.min) || Depends(node.extent)) {
      vars_.insert(node.var.get());
    }
    IRVisitor::VisitFor(node);
  }
  void VisitLet(const Let& node) override {
    if (Depends(node.value)) vars_.insert(node.var.get());
  }
  void VisitVar(const Var& node) override { found_ |= vars_.contains(&node); }
  void VisitBufferLoad(const BufferLoad& node) override {
    found_ |=
        node.buffer->scope == MemoryScope::kLocal || node.buffer->scope == MemoryScope::kFragment;
    IRVisitor::VisitBufferLoad(node);
  }
  void VisitCall(const Call& node) override {
    const IntrinsicInfo* info = FindIntrinsic(node.name);
    found_ |= info == nullptr || !info->pure;
    IRVisitor::VisitCall(node);
  }

 private:
  absl::flat_hash_set<const Var*> vars_;
  bool found_ = false;
};

bool IsShared(const BufferNode* buffer) { return buffer->scope == MemoryScope::kShared; }

void AddAccesses(const BufferAccesses& accesses, const StmtNode* unit, Pending* out) {
  for (const BufferNode* buffer : accesses.reads) {
    if (IsShared(buffer)) out->reads[buffer].insert(unit);
  }
  for (const BufferNode* buffer : accesses.writes) {
    if (!IsShared(buffer)) continue;
    (accesses.async_writes.contains(buffer) ? out->issued : out->writes)[buffer].insert(unit);
  }
}

// One shared access inside a thread-dependent statement, in program order.
struct Access {
  const BufferNode* buffer;
  const std::vector<Expr>* indices;  // null for a tile operation's region
  bool write;
  bool atomic = false;  // an atomic update: it commutes with other atomic updates
};

class AccessList : public IRVisitor {
 public:
  using IRVisitor::Visit;
  std::vector<Access> accesses;
  bool block_barrier = false;

 protected:
  void VisitBufferLoad(const BufferLoad& node) override {
    IRVisitor::VisitBufferLoad(node);
    if (IsShared(node.buffer.get())) accesses.push_back({node.buffer.get(), &node.indices, false});
  }
  void VisitStore(const Store& node) override {
    for (const Expr& index : node.indices) Visit(index);
    Visit(node.value);
    if (IsShared(node.buffer.get())) accesses.push_back({node.buffer.get(), &node.indices, true});
  }
  void VisitCall(const Call& node) override {
    const IntrinsicInfo* info = FindIntrinsic(node.name);
    const BufferLoad* dst = node.args.empty() ? nullptr : As<BufferLoad>(node.args[0]);
    if (info == nullptr || !info->updates_first_arg || dst == nullptr) {
      IRVisitor::VisitCall(node);
      return;
    }
    for (const Expr& index : dst->indices) Visit(index);
    for (size_t i = 1; i < node.args.size(); ++i) Visit(node.args[i]);
    if (IsShared(dst->buffer.get())) {
      accesses.push_back({dst->buffer.get(), &dst->indices, true, /*atomic=*/true});
    }
  }
  void VisitRegion(const Region& region) override {
    IRVisitor::VisitRegion(region);
    if (IsShared(region.buffer.get())) accesses.push_back({region.buffer.get(), nullptr, true});
  }
  void VisitBarrier(const Barrier& node) override {
    block_barrier |= node.scope == BarrierScope::kBlock;
  }
};

// Shared allocations and their placement, where plan-shared-memory gave one.
class SharedAllocations : public IRVisitor {
 public:
  using IRVisitor::Visit;
  std::vector<const Allocate*> allocations;

  Aliases Overlaps() const {
    Aliases aliases;
    for (const Allocate* a : allocations) {
      std::vector<const BufferNode*>& overlapping = aliases[a->buffer.get()];
      for (const Allocate* b : allocations) {
        if (a == b || Overlap(*a, *b)) overlapping.push_back(b->buffer.get());
      }
    }
    return aliases;
  }

 protected:
  void VisitAllocate(const Allocate& node) override {
    if (IsShared(node.buffer.get())) allocations.push_back(&node);
  }

 private:
  static bool Overlap(const Allocate& a, const Allocate& b) {
    std::optional<int64_t> a_bytes = SharedBufferBytes(*a.buffer);
    std::optional<int64_t> b_bytes = SharedBufferBytes(*b.buffer);
    if (!a.shared_offset || !b.shared_offset || !a_bytes || !b_bytes) return false;
    return *a.shared_offset < *b.shared_offset + *b_bytes &&
           *b.shared_offset < *a.shared_offset + *a_bytes;
  }
};

// `eval async_wait(n)`: where copies in flight land in shared memory (see
// inject-software-pipeline).
bool IsAsyncWait(const Stmt& s) {
  const Evaluate* eval = As<Evaluate>(s);
  const Call* call = eval ? As<Call>(eval->value) : nullptr;
  return call != nullptr && call->name == "async_wait";
}

bool SameIndices(const Access& a, const Access& b) {
  if (a.indices == nullptr || b.indices == nullptr) return false;
  if (a.indices->size() != b.indices->size()) return false;
  for (size_t d = 0; d < a.indices->size(); ++d) {
    if (!StructuralEqual((*a.indices)[d], (*b.indices)[d])) return false;
  }
  return true;
}

class BarrierInserter {
 public:
  explicit BarrierInserter(const KernelNode& kernel) : kernel_(kernel) {
    dependence_.Visit(kernel.body);
    SharedAllocations shared;
    shared.Visit(kernel.body);
    for (const Allocate* allocation : shared.allocations) {
      shared_buffers_.push_back(allocation->buffer.get());
    }
    aliases_ = shared.Overlaps();
  }

  const absl::Status& status() const { return status_; }
  bool inserted() const { return inserted_; }

  Stmt Run(const Stmt& body) {
    Pending pending;
    return AsStmt(Process(body, pending), body);
  }

 private:
  // The statement, preceded by a barrier when it needs one; updates `pending`.
  std::vector<Stmt> Process(const Stmt& s, Pending& pending) {
    if (!status_.ok()) return {s};
    if (const Barrier* barrier = As<Barrier>(s)) {
      if (barrier->scope == BarrierScope::kBlock) pending.Clear();
      return {s};
    }
    if (const Seq* seq = As<Seq>(s)) {
      std::vector<Stmt> stmts;
      for (const Stmt& child : seq->stmts) {
        std::vector<Stmt> done = Process(child, pending);
        stmts.insert(stmts.end(), done.begin(), done.end());
      }
      return {Seq::Make(std::move(stmts), s->loc())};
    }
    if (IsAsyncWait(s)) {
      for (const BufferNode* buffer : shared_buffers_) pending.landed[buffer].insert(s.get());
      return {s};
    }
    const For* loop = As<For>(s);
    const If* branch = As<If>(s);
    if (branch != nullptr && PartitionsThreads(branch->cond)) return ProcessRoles(*branch, pending);
    bool divergent = (loop && loop->for_kind != ForKind::kThreadBound &&
                      (dependence_.Depends(loop->min) || dependence_.Depends(loop->extent))) ||
                     (branch && dependence_.Depends(branch->cond));
    if ((!loop && !branch) || divergent) {
      if (divergent) CheckDivergent(s);
      return Leaf(s, UnitAccesses(s, s.get()), pending);
    }
    std::vector<Stmt> out;
    // A barrier the whole statement needs goes in front of it, not into its body.
    if (Conflicts(pending, UnitAccesses(s, nullptr), aliases_)) {
      out.push_back(Barrier::Make(BarrierScope::kBlock, s->loc()));
      inserted_ = true;
      pending.Clear();
    }
    if (loop != nullptr) {
      Pending bounds;
      BufferAccesses accesses;
      CollectAccesses(loop->min, &accesses);
      CollectAccesses(loop->extent, &accesses);
      AddAccesses(accesses, s.get(), &bounds);
      pending.Merge(bounds);
      out.push_back(ProcessLoop(*loop, pending));
    } else {
      Pending cond;
      BufferAccesses accesses;
      CollectAccesses(branch->cond, &accesses);
      AddAccesses(accesses, s.get(), &cond);
      pending.Merge(cond);
      Pending else_pending = pending;
      Stmt then_body = AsStmt(Process(branch->then_body, pending), branch->then_body);
      Stmt else_body;
      if (branch->else_body) {
        else_body = AsStmt(Process(branch->else_body, else_pending), branch->else_body);
      }
      pending.Merge(else_pending);
      out.push_back(If::Make(branch->cond, std::move(then_body), std::move(else_body), s->loc()));
    }
    return out;
  }

  // A branch whose arms different groups of threads run concurrently: each arm is ordered as
  // a block of its own, after a barrier of all threads where the arms' accesses need one.
  std::vector<Stmt> ProcessRoles(const If& branch, Pending& pending) {
    std::vector<Stmt> out;
    Stmt self = If::Make(branch.cond, branch.then_body, branch.else_body, branch.loc());
    if (Conflicts(pending, UnitAccesses(self, nullptr), aliases_)) {
      out.push_back(Barrier::Make(BarrierScope::kBlock, branch.loc()));
      inserted_ = true;
      pending.Clear();
    }
    Pending then_pending;
    Stmt then_body = AsStmt(Process(branch.then_body, then_pending), branch.then_body);
    Stmt else_body;
    if (branch.else_body) {
      Pending else_pending;
      else_body = AsStmt(Process(branch.else_body, else_pending), branch.else_body);
      then_pending.Merge(else_pending);
    }
    pending.Merge(then_pending);
    out.push_back(If::Make(branch.cond, std::move(then_body), std::move(else_body), branch.loc()));
    return out;
  }

  static bool PartitionsThreads(const Expr& cond) {
    const Call* call = As<Call>(cond);
    const IntrinsicInfo* info = call != nullptr ? FindIntrinsic(call->name) : nullptr;
    return info != nullptr && info->partitions_threads;
  }

  // A statement executed as a unit: a barrier before it when it conflicts.
  std::vector<Stmt> Leaf(const Stmt& s, const Pending& accesses, Pending& pending) {
    std::vector<Stmt> out;
    if (Conflicts(pending, accesses, aliases_)) {
      out.push_back(Barrier::Make(BarrierScope::kBlock, s->loc()));
      inserted_ = true;
      pending.Clear();
    }
    pending.Merge(accesses);
    out.push_back(s);
    return out;
  }

  // Iterates the body until the state reaching its head from its end adds nothing new.
  Stmt ProcessLoop(const For& loop, Pending& pending) {
    if (loop.for_kind == ForKind::kThreadBound) {
      Stmt body = AsStmt(Process(loop.body, pending), loop.body);
      return For::Make(loop.var, loop.min, loop.extent, loop.for_kind, std::move(body), loop.loc(),
                       loop.pipeline, loop.thread_axis);
    }
    Pending head = pending;
    while (true) {
      Pending end = head;
      Stmt body = AsStmt(Process(loop.body, end), loop.body);
      if (!status_.ok() || head.Covers(end)) {
        pending = head;  // the loop may run zero times, or end after any iteration
        return For::Make(loop.var, loop.min, loop.extent, loop.for_kind, std::move(body),
                         loop.loc(), loop.pipeline, loop.thread_axis);
      }
      head.Merge(end);
    }
  }

  // The shared accesses of `s`, each attributed to the statement executed as a unit: `unit`
  // for all of them when given, else each leaf, divergent statement, loop head or condition.
  Pending UnitAccesses(const Stmt& s, const StmtNode* unit) {
    Pending out;
    Collect(s, unit, &out);
    return out;
  }
  void Collect(const Stmt& s, const StmtNode* unit, Pending* out) {
    if (!s) return;
    BufferAccesses accesses;
    if (unit != nullptr) {
      CollectAccesses(s, &accesses);
      AddAccesses(accesses, unit, out);
      return;
    }
    if (const Seq* seq = As<Seq>(s)) {
      for (const Stmt& child : seq->stmts) Collect(child, nullptr, out);
    } else if (const For* loop = As<For>(s)) {
      if (loop->for_kind != ForKind::kThreadBound &&
          (dependence_.Depends(loop->min) || dependence_.Depends(loop->extent))) {
        return Collect(s, s.get(), out);
      }
      CollectAccesses(loop->min, &accesses);
      CollectAccesses(loop->extent, &accesses);
      AddAccesses(accesses, s.get(), out);
      Collect(loop->body, nullptr, out);
    } else if (const If* branch = As<If>(s)) {
      if (dependence_.Depends(branch->cond)) return Collect(s, s.get(), out);
      CollectAccesses(branch->cond, &accesses);
      AddAccesses(accesses, s.get(), out);
      Collect(branch->then_body, nullptr, out);
      Collect(branch->else_body, nullptr, out);
    } else {
      Collect(s, s.get(), out);
    }
  }

  // Inside a statement some threads skip, nothing can be synchronized.
  void CheckDivergent(const Stmt& s) {
    AccessList list;
    list.Visit(s);
    if (list.block_barrier) {
      return Fail(s,
                  "a block barrier inside a branch or loop that depends on the thread index "
                  "would wait for threads that never reach it");
    }
    for (size_t i = 0; i < list.accesses.size(); ++i) {
      for (size_t j = i + 1; j < list.accesses.size(); ++j) {
        const Access& a = list.accesses[i];
        const Access& b = list.accesses[j];
        if (a.buffer == b.buffer && (a.write || b.write) && !(a.atomic && b.atomic) &&
            !SameIndices(a, b)) {
          return Fail(
              s, absl::StrCat("threads may exchange data through shared buffer '", a.buffer->name,
                              "' inside a branch or loop that depends "
                              "on the thread index, where no barrier can order them"));
        }
      }
    }
  }

  void Fail(const Stmt& s, std::string_view message) {
    if (!status_.ok()) return;
    std::string text = Print(s);
    text = text.substr(0, text.find('\n'));
    std::string loc = s->loc().known() ? absl::StrCat(s->loc().ToString(), ": ") : "";
    status_ = absl::FailedPreconditionError(
        absl::StrCat(loc, "in kernel '", kernel_.name, "': insert-barriers: ", std::string(message),
                     " (at `", text, "`)"));
  }

  static Stmt AsStmt(std::vector<Stmt> stmts, const Stmt& original) {
    if (stmts.size() == 1) return stmts[0];
    return Seq::Make(std::move(stmts), original->loc());
  }

  const KernelNode& kernel_;
  ThreadDependence dependence_;
  std::vector<const BufferNode*> shared_buffers_;
  Aliases aliases_;
  absl::Status status_;
  bool inserted_ = false;
};

class BarrierRemover : public IRMutator {
 protected:
  Stmt MutateBarrier(const Barrier&, const Stmt&) override { return nullptr; }
};

}  // namespace

absl::StatusOr<Kernel> InsertBarriers(const Kernel& kernel, const TargetInfo& target) {
  if (target.ThreadsExecutingBlock(kernel->launch) <= 1) {
    return BarrierRemover().MutateKernel(kernel);
  }
  BarrierInserter inserter(*kernel);
  Stmt body = inserter.Run(kernel->body);
  if (!inserter.status().ok()) return inserter.status();
  return inserter.inserted() ? kernel->WithBody(std::move(body)) : kernel;
}

absl::StatusOr<bool> InsertBarriers(Module& module, const TargetInfo& target) {
  return MapKernels(module,
                    [&target](const Kernel& kernel) { return InsertBarriers(kernel, target); });
}

PassInfo InsertBarriersPass() {
  PassInfo info;
  info.name = "insert-barriers";
  info.description =
      "puts block barriers between shared-memory accesses of different threads (removes "
      "barriers where one thread runs a block)";
  info.needs_target = true;
  info.run_kernel = EachKernel([](const Kernel& kernel, const PassOptions& options) {
    return InsertBarriers(kernel, options.target());
  });
  return info;
}

}  // namespace tile_ir::passes
