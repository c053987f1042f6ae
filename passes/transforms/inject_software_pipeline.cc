// Software-pipeline injection: checks that a pipelined loop's schedule can be realized, then
// emits prologue, steady state and epilogue over shared buffers with a stage dimension.
#include "passes/transforms/inject_software_pipeline.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "passes/analysis/arith/expr_simplifier.h"
#include "passes/analysis/buffer_access.h"
#include "passes/analysis/pipeline_schedule.h"
#include "passes/analysis/shared_buffer_bytes.h"
#include "passes/analysis/software_pipeline_stages.h"
#include "passes/analysis/var_mentions.h"
#include "passes/utils/fresh_names.h"
#include "passes/utils/loop_body.h"
#include "passes/utils/stmt_simplifier.h"
#include "tile_ir/mutator.h"
#include "tile_ir/op_shorthand.h"
#include "tile_ir/visitor.h"

namespace tile_ir::passes {
namespace {

Stmt AsyncCommit() { return Evaluate::Make(Call::Make(kVoid, "async_commit", {})); }
Stmt AsyncWait(int64_t pending) {
  return Evaluate::Make(Call::Make(kVoid, "async_wait", {Int(pending)}));
}

// What a subtree uses and declares.
class LoopFacts : public IRVisitor {
 public:
  using IRVisitor::Visit;
  absl::flat_hash_map<const BufferNode*, int64_t> uses;
  absl::flat_hash_set<const Var*> declared_vars;
  absl::flat_hash_set<const BufferNode*> declared_buffers;
  // Operands of tile operations whose regions cannot gain a stage dimension (a reduce's
  // or cumsum's dim counts the region's dimensions).
  absl::flat_hash_set<const BufferNode*> unstageable;

 protected:
  void VisitBufferUse(const Buffer& buffer) override { ++uses[buffer.get()]; }
  void VisitFor(const For& node) override {
    declared_vars.insert(node.var.get());
    IRVisitor::VisitFor(node);
  }
  void VisitLet(const Let& node) override {
    declared_vars.insert(node.var.get());
    IRVisitor::VisitLet(node);
  }
  void VisitAllocate(const Allocate& node) override {
    declared_buffers.insert(node.buffer.get());
    IRVisitor::VisitAllocate(node);
  }
  void VisitReduce(const Reduce& node) override {
    Unstageable(node.src, node.dst);
    IRVisitor::VisitReduce(node);
  }
  void VisitCumsum(const Cumsum& node) override {
    Unstageable(node.src, node.dst);
    IRVisitor::VisitCumsum(node);
  }
  void VisitAtomicAdd(const AtomicAdd& node) override {
    Unstageable(node.src, node.dst);
    IRVisitor::VisitAtomicAdd(node);
  }

 private:
  void Unstageable(const Region& src, const Region& dst) {
    unstageable.insert(src.buffer.get());
    unstageable.insert(dst.buffer.get());
  }
};

bool RegionMentions(const Region& region, const VarSet& vars) {
  for (const Range& range : region.ranges) {
    if (MentionsAny(range.min, vars) || MentionsAny(range.extent, vars)) return true;
  }
  return false;
}

struct Schedule {
  std::vector<Stmt> producers;  // stage 0: global-to-shared copies, in statement order
  std::vector<Stmt> consumers;  // stage S - 1, in statement order
  BufferMap staged;             // each producer's destination -> its staged version
};

class PipelineInjector : public IRMutator {
 public:
  PipelineInjector(const Kernel& kernel, const TargetInfo& target)
      : kernel_(kernel), target_(target), names_(*kernel), async_(target.has_async_copy()) {
    kernel_facts_.Visit(kernel->body);
  }
  using IRMutator::Mutate;

  // Staged buffers, for the declarations outside their loops.
  const BufferMap& staged() const { return staged_; }
  // Why a loop could not be pipelined as asked (its stages do not fit); OK otherwise.
  const absl::Status& error() const { return error_; }

 protected:
  Stmt MutateSeq(const Seq& node, const Stmt& self) override {
    bool changed = false;
    std::vector<Stmt> stmts;
    for (const Stmt& s : node.stmts) {
      Stmt result = Mutate(s);
      changed |= result != s;
      if (splice_.contains(result.get())) {
        const auto& inner = As<Seq>(result)->stmts;
        stmts.insert(stmts.end(), inner.begin(), inner.end());
      } else {
        stmts.push_back(std::move(result));
      }
    }
    return changed ? Seq::Make(std::move(stmts), node.loc()) : self;
  }

  Stmt MutateFor(const For& original, const Stmt& self) override {
    Stmt mutated = IRMutator::MutateFor(original, self);
    if (original.for_kind != ForKind::kPipelined) return mutated;
    const For& loop = *As<For>(mutated);
    std::optional<Schedule> schedule;
    if (async_ && loop.pipeline.num_stages >= 2) schedule = Analyze(original, loop);
    if (schedule && !FitsSharedMemory(loop, *schedule)) return self;
    if (!schedule) {
      return For::Make(loop.var, loop.min, loop.extent, ForKind::kSerial, loop.body, loop.loc());
    }
    Stmt pipelined = Emit(loop, *schedule);
    splice_.insert(pipelined.get());
    return pipelined;
  }

 private:
  std::optional<Schedule> Analyze(const For& original, const For& loop);
  bool FitsSharedMemory(const For& loop, const Schedule& schedule);
  Stmt Emit(const For& loop, const Schedule& schedule);

  const Kernel& kernel_;
  const TargetInfo& target_;
  absl::Status error_;
  FreshNames names_;
  const bool async_;
  LoopFacts kernel_facts_;
  BufferMap staged_;
  absl::flat_hash_set<const StmtNode*> splice_;
};

std::optional<Schedule> PipelineInjector::Analyze(const For& original, const For& loop) {
  int stages = loop.pipeline.num_stages;
  PipelineInfo info = loop.pipeline;
  if (info.stage.empty()) {
    std::optional<PipelineInfo> plan = PlanPipeline(loop);
    if (!plan) return std::nullopt;
    info = *std::move(plan);
  }
  std::vector<Stmt> stmts = LoopBodyStmts(loop);
  if (info.stage.size() != stmts.size()) return std::nullopt;
  Schedule schedule;
  // What statements before each producer use: a use before the copy reads the previous
  // iteration's tile, which moving the copy ahead would replace.
  BufferAccesses earlier;
  for (size_t i = 0; i < stmts.size(); ++i) {
    if (info.stage[i] == 0) {
      const Copy* copy = As<Copy>(stmts[i]);
      if (copy == nullptr || earlier.reads.contains(copy->dst.buffer.get()) ||
          earlier.writes.contains(copy->dst.buffer.get())) {
        return std::nullopt;
      }
      schedule.producers.push_back(stmts[i]);
    } else if (info.stage[i] == stages - 1) {
      schedule.consumers.push_back(stmts[i]);
    } else {
      return std::nullopt;
    }
    CollectAccesses(stmts[i], &earlier);
  }
  if (schedule.producers.empty()) return std::nullopt;
  LoopFacts loop_facts;
  loop_facts.Visit(original.body);
  BufferAccesses consumed;
  for (const Stmt& s : schedule.consumers) CollectAccesses(s, &consumed);
  for (const Stmt& s : schedule.producers) {
    if (!IsGlobalToSharedCopy(s)) return std::nullopt;
    const Copy& copy = *As<Copy>(s);
    const BufferNode* dst = copy.dst.buffer.get();
    const BufferNode* src = copy.src.buffer.get();
    if (!IsFullRegion(copy.dst) || schedule.staged.contains(dst) || consumed.writes.contains(dst) ||
        consumed.writes.contains(src) || loop_facts.declared_buffers.contains(dst) ||
        loop_facts.unstageable.contains(dst) || kernel_facts_.uses[dst] != loop_facts.uses[dst] ||
        RegionMentions(copy.src, loop_facts.declared_vars) ||
        RegionMentions(copy.dst, loop_facts.declared_vars)) {
      return std::nullopt;
    }
    schedule.staged[dst] = StagedBuffer(copy.dst.buffer, stages);
  }
  return schedule;
}

// The stages of a loop, each a copy of every tile its copies fill, must fit the target's
// shared memory, or no kernel could hold them. Refused here, before the prologue is built
// (one group of copies per stage: a num_stages of 2^31 - 1 would be billions of statements),
// with plan-shared-memory's terms: the bytes needed and the limit.
bool PipelineInjector::FitsSharedMemory(const For& loop, const Schedule& schedule) {
  const int64_t stages = loop.pipeline.num_stages;
  const int64_t limit = target_.max_shared_memory_bytes();
  int64_t stage_bytes = 0;
  for (const auto& [original, staged] : schedule.staged) {
    std::optional<int64_t> bytes = SharedBufferBytes(*original);
    if (!bytes) continue;  // plan-shared-memory names a tile without a constant shape
    stage_bytes += *bytes;
  }
  if (stage_bytes == 0 || stages <= limit / stage_bytes) return true;
  if (error_.ok()) {
    std::string where = loop.loc().known() ? absl::StrCat(loop.loc().ToString(), ": ") : "";
    error_ = absl::ResourceExhaustedError(
        absl::StrCat(where, "in kernel '", kernel_->name,
                     "': inject-software-pipeline: a pipelined loop of num_stages=", stages,
                     " over tiles of ", stage_bytes, " bytes per stage needs more than the ", limit,
                     " bytes of shared memory target '", target_.name(),
                     "' allows; use fewer stages or smaller tiles"));
  }
  return false;
}

Stmt PipelineInjector::Emit(const For& loop, const Schedule& schedule) {
  const int stages = loop.pipeline.num_stages;
  const DataType type = loop.var->dtype();
  const Expr& min = loop.min;
  const Expr& extent = loop.extent;
  // The slot of iteration `k`: its distance from the first iteration, modulo the stages.
  auto slot_of = [&](const Expr& k) {
    return arith::SimplifyExpr(Op(BinaryOp::kMod, Op(BinaryOp::kSub, k, min), Int(stages, type)));
  };
  auto producers_at = [&](const Expr& iteration) {
    std::vector<Stmt> copies;
    IterationRewriter rewriter(schedule.staged, slot_of(iteration), {{loop.var.get(), iteration}},
                               nullptr);
    for (const Stmt& s : schedule.producers) copies.push_back(Simplify(rewriter.Mutate(s)));
    return copies;
  };
  std::vector<Stmt> out;
  // Past a constant trip count the prologue would only commit empty groups: the steady loop
  // then has no trips and the epilogue waits for every group.
  int64_t prologue_groups = stages - 1;
  if (std::optional<int64_t> trips = AsConstInt(extent)) {
    prologue_groups = std::clamp<int64_t>(*trips, 0, prologue_groups);
  }
  for (int p = 0; p < prologue_groups; ++p) {
    Expr guard = arith::SimplifyExpr(Op(BinaryOp::kLt, Int(p, type), extent));
    std::vector<Stmt> copies =
        producers_at(arith::SimplifyExpr(Op(BinaryOp::kAdd, min, Int(p, type))));
    std::optional<int64_t> decided = AsConstInt(guard);
    if (!decided) {
      out.push_back(If::Make(guard, Seq::Make(std::move(copies)), nullptr, loop.loc()));
    } else if (*decided != 0) {
      out.insert(out.end(), copies.begin(), copies.end());
    }
    out.push_back(AsyncCommit());
  }

  Expr steady_extent = arith::SimplifyExpr(
      Op(BinaryOp::kMax, Op(BinaryOp::kSub, extent, Int(stages - 1, type)), Int(0, type)));
  std::vector<Stmt> steady = {AsyncWait(stages - 2)};
  std::vector<Stmt> ahead =
      producers_at(arith::SimplifyExpr(Op(BinaryOp::kAdd, loop.var, Int(stages - 1, type))));
  steady.insert(steady.end(), ahead.begin(), ahead.end());
  steady.push_back(AsyncCommit());
  IterationRewriter current(schedule.staged, slot_of(loop.var), {}, nullptr);
  for (const Stmt& s : schedule.consumers) steady.push_back(current.Mutate(s));
  std::optional<int64_t> steady_trips = AsConstInt(steady_extent);
  if (!steady_trips || *steady_trips > 0) {
    out.push_back(For::Make(loop.var, min, steady_extent, ForKind::kSerial,
                            Seq::Make(std::move(steady)), loop.loc()));
  }

  Expr epilogue_extent = arith::SimplifyExpr(Op(BinaryOp::kMin, extent, Int(stages - 1, type)));
  std::optional<int64_t> epilogue_trips = AsConstInt(epilogue_extent);
  if (!epilogue_trips || *epilogue_trips > 0) {
    VarRef k = Var::Make(names_.Fresh(loop.var->name + "_epilogue"), type);
    IterationRewriter last(schedule.staged, slot_of(k), {{loop.var.get(), k}}, &names_);
    std::vector<Stmt> body;
    for (const Stmt& s : schedule.consumers) body.push_back(last.Mutate(s));
    out.push_back(AsyncWait(0));
    out.push_back(For::Make(k, arith::SimplifyExpr(Op(BinaryOp::kAdd, min, steady_extent)),
                            epilogue_extent, ForKind::kSerial, Seq::Make(std::move(body)),
                            loop.loc()));
  }
  for (const auto& [old, staged] : schedule.staged) staged_[old] = staged;
  return Seq::Make(std::move(out), loop.loc());
}

}  // namespace

absl::StatusOr<Kernel> InjectSoftwarePipelines(const Kernel& kernel, const TargetInfo& target) {
  PipelineInjector injector(kernel, target);
  Kernel result = injector.MutateKernel(kernel);
  if (!injector.error().ok()) return injector.error();
  if (injector.staged().empty()) return result;
  return AllocationRestager(injector.staged()).MutateKernel(result);
}

absl::StatusOr<bool> InjectSoftwarePipelines(Module& module, const TargetInfo& target) {
  return MapKernels(
      module, [&target](const Kernel& kernel) { return InjectSoftwarePipelines(kernel, target); });
}

PassInfo InjectSoftwarePipelinePass() {
  PassInfo info;
  info.name = "inject-software-pipeline";
  info.description =
      "turns pipelined loops into prologue, steady state and epilogue over multi-buffered "
      "shared tiles (serial loops without async copies)";
  info.needs_target = true;
  info.run_kernel = EachKernel([](const Kernel& kernel, const PassOptions& options) {
    return InjectSoftwarePipelines(kernel, options.target());
  });
  return info;
}

}  // namespace tile_ir::passes
