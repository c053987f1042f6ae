// warp-roles: the producer warpgroup of a warp-specialized kernel, its thread indices and
// barriers, and the consumers' named barriers (see warp_roles.md).
#include "targets/cuda/passes/warp_roles.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "passes/analysis/arith/expr_simplifier.h"
#include "passes/analysis/var_mentions.h"
#include "passes/utils/fresh_names.h"
#include "passes/utils/substitute.h"
#include "targets/c_source/shared_memory.h"
#include "targets/cuda/cuda_target_info.h"
#include "targets/cuda/gemm_wgmma.h"
#include "targets/cuda/passes/cuda_pass.h"
#include "targets/cuda/passes/tma_stores.h"
#include "targets/cuda/passes/warp_specialize.h"
#include "tile_ir/mutator.h"
#include "tile_ir/op_shorthand.h"
#include "tile_ir/visitor.h"

namespace tile_ir::cuda {
namespace {

// bar.sync 0 is __syncthreads; the roles take the next two.
constexpr int kConsumerBarrier = 1;
constexpr int kProducerBarrier = 2;

bool IsProducerMarker(const Expr& e) {
  const Call* call = As<Call>(e);
  return call != nullptr && call->name == kProducerWarpsMarker;
}

bool IsLeaderMarker(const Expr& e) {
  const Call* call = As<Call>(e);
  return call != nullptr && call->name == kProducerLeaderMarker;
}

// The consumers' leader marker (tma_stores.h) becomes a test for their first thread.
class ConsumerLeader : public IRMutator {
 public:
  explicit ConsumerLeader(VarRef tx) : tx_(std::move(tx)) {}
  using IRMutator::Mutate;

 protected:
  Expr MutateCall(const Call& node, const Expr& self) override {
    if (node.name != kConsumerLeaderMarker) return IRMutator::MutateCall(node, self);
    return Op(BinaryOp::kEq, tx_, Int(0, tx_->dtype()));
  }

 private:
  VarRef tx_;
};

// Block barriers become `replacement` (nullptr: removed).
class BarrierRewriter : public IRMutator {
 public:
  explicit BarrierRewriter(Stmt replacement) : replacement_(std::move(replacement)) {}
  using IRMutator::Mutate;

 protected:
  Stmt MutateBarrier(const Barrier& node, const Stmt& self) override {
    if (node.scope != BarrierScope::kBlock) return self;
    return replacement_ != nullptr ? replacement_ : Seq::Make({}, node.loc());
  }
  // Removed barriers leave no empty blocks behind.
  Stmt MutateSeq(const Seq& node, const Stmt& self) override {
    std::vector<Stmt> stmts;
    bool changed = false;
    for (const Stmt& s : node.stmts) {
      Stmt result = Mutate(s);
      changed |= result != s;
      const Seq* empty = As<Seq>(result);
      if (empty != nullptr && empty->stmts.empty()) continue;
      stmts.push_back(std::move(result));
    }
    return changed ? Seq::Make(std::move(stmts), node.loc()) : self;
  }

 private:
  Stmt replacement_;
};

class RoleBinder {
 public:
  RoleBinder(const Kernel& kernel, const For& threads, bool pingpong, int64_t shared_limit)
      : kernel_(kernel),
        names_(*kernel),
        tx_(threads.var),
        consumers_(0),
        pingpong_(pingpong),
        shared_limit_(shared_limit),
        turn_(BufferNode::Make(names_.Fresh("ws_turn"), kI64, {Int(2)}, MemoryScope::kShared)) {}

  absl::StatusOr<Kernel> Run(const For& thread_loop, int64_t consumers);

 private:
  absl::StatusOr<Stmt> Producer(const Stmt& branch);
  Stmt Consumer(const Stmt& branch);

  const Kernel& kernel_;
  passes::FreshNames names_;
  VarRef tx_;
  int64_t consumers_;
  bool pingpong_;
  int64_t shared_limit_;
  // Ping-pong's two turn mbarriers, allocated and initialized if a loop takes turns.
  Buffer turn_;
  bool takes_turns_ = false;
  // Top-level lets whose value depends on the thread index: wrong in the producer branch
  // once its threads are renumbered.
  absl::flat_hash_set<const Var*> thread_lets_;
};

absl::StatusOr<Kernel> RoleBinder::Run(const For& thread_loop, int64_t consumers) {
  consumers_ = consumers;
  std::vector<Stmt> out;
  std::vector<Stmt> inits;
  bool split = false;
  absl::flat_hash_set<const Var*> thread_dependent = {tx_.get()};
  for (const Stmt& s : Seq::StmtsOf(thread_loop.body)) {
    if (Evaluate::IsCallTo(s, "cuda.mbarrier_init")) {
      if (inits.empty()) out.push_back(nullptr);  // where the initialization goes
      inits.push_back(s);
      continue;
    }
    const Let* let = As<Let>(s);
    if (let != nullptr && passes::MentionsAny(let->value, thread_dependent)) {
      thread_dependent.insert(let->var.get());
      thread_lets_.insert(let->var.get());
    }
    const If* branch = As<If>(s);
    if (branch == nullptr || !IsProducerMarker(branch->cond)) {
      out.push_back(s);
      continue;
    }
    if (split) {
      return absl::InternalError(
          absl::StrCat("warp-roles: kernel '", kernel_->name, "' has two producer branches"));
    }
    split = true;
    absl::StatusOr<Stmt> producer = Producer(branch->then_body);
    if (!producer.ok()) return producer.status();
    Stmt consumer = branch->else_body != nullptr ? Consumer(branch->else_body) : Seq::Make({});
    out.push_back(If::Make(Op(BinaryOp::kGe, tx_, Int(consumers_, tx_->dtype())), *producer,
                           consumer, branch->loc()));
  }
  if (!split) return kernel_;
  // plan-shared-memory has run: the turn barriers go past the end of its pool, so that the
  // planned buffers, and the barriers insert-barriers placed for them, stay as they are.
  std::optional<int64_t> turn_offset;
  if (takes_turns_) {
    constexpr int64_t kAlignment = 16;  // plan-shared-memory's, for buffers without their own
    turn_offset =
        (c_source::SharedMemoryBytes(*kernel_) + kAlignment - 1) / kAlignment * kAlignment;
    const int64_t bytes = *turn_offset + 2 * static_cast<int64_t>(sizeof(int64_t));
    if (bytes > shared_limit_) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "warp-roles: kernel '", kernel_->name,
          "': {pingpong=on} needs 16 bytes of shared memory for its turn barriers past the ",
          *turn_offset, " bytes the kernel uses: ", bytes, " in all, over the target's limit of ",
          shared_limit_, "; use a smaller tile or fewer stages, or leave ping-pong off"));
    }
    if (inits.empty()) out.insert(out.begin(), nullptr);
    // Each turn is the 128 arrivals of one warpgroup.
    for (int w = 0; w < 2; ++w) {
      inits.push_back(Evaluate::MakeVoidCall(
          "cuda.mbarrier_init", {BufferLoad::Make(turn_, {Int(w)}), Int(kProducerThreads)}));
    }
  }
  std::vector<Stmt> spliced;
  for (Stmt& s : out) {
    if (s != nullptr) {
      spliced.push_back(std::move(s));
      continue;
    }
    if (takes_turns_) spliced.push_back(Allocate::Make(turn_, {}, turn_offset));
    inits.push_back(Evaluate::MakeVoidCall("cuda.fence_barrier_init", {}));
    spliced.push_back(If::Make(Op(BinaryOp::kEq, tx_, Int(0, tx_->dtype())), Seq::Make(inits)));
    spliced.push_back(Barrier::Make(BarrierScope::kBlock));
  }
  out = std::move(spliced);
  const int64_t all = consumers_ + kProducerThreads;
  Stmt body = For::Make(tx_, thread_loop.min, Int(all, thread_loop.extent->dtype()),
                        ForKind::kThreadBound, Seq::Make(std::move(out)), thread_loop.loc(),
                        thread_loop.pipeline, thread_loop.thread_axis);
  Launch launch = kernel_->launch;
  launch.threads = {all};
  return KernelNode::Make(kernel_->name, kernel_->dims, kernel_->params, std::move(launch),
                          std::move(body), kernel_->loc, kernel_->requirements);
}

absl::StatusOr<Stmt> RoleBinder::Producer(const Stmt& branch) {
  const passes::VarSet mentioned = passes::MentionedVars(branch);
  for (const Var* var : thread_lets_) {
    if (mentioned.contains(var)) {
      return absl::InternalError(
          absl::StrCat("warp-roles: kernel '", kernel_->name, "': the producer branch reads '",
                       var->name, "', computed from the consumers' thread index before the split"));
    }
  }
  std::vector<Stmt> out;
  if (consumers_ >= 2 * kProducerThreads) {
    out.push_back(
        Evaluate::MakeVoidCall("cuda.setmaxnreg_dec", {Int(RoleRegisters(consumers_).first)}));
  }
  Stmt producer_barrier = Evaluate::MakeVoidCall("cuda.named_barrier_sync",
                                                 {Int(kProducerBarrier), Int(kProducerThreads)});
  const passes::VarMap renumber = {
      {tx_.get(), Op(BinaryOp::kSub, tx_, Int(consumers_, tx_->dtype()))}};
  for (const Stmt& s : Seq::StmtsOf(branch)) {
    const If* leader = As<If>(s);
    if (leader != nullptr && IsLeaderMarker(leader->cond)) {
      // TMA loads: the first producer thread issues them all, nothing to renumber.
      out.push_back(If::Make(Op(BinaryOp::kEq, tx_, Int(consumers_, tx_->dtype())),
                             BarrierRewriter(nullptr).Mutate(leader->then_body), nullptr,
                             leader->loc()));
    } else {
      out.push_back(BarrierRewriter(producer_barrier).Mutate(passes::Substitute(s, renumber)));
    }
  }
  return Seq::Make(std::move(out), branch->loc());
}

// Whether a statement names a buffer.
bool Names(const Stmt& s, const BufferNode* buffer) {
  class Finder : public IRVisitor {
   public:
    using IRVisitor::Visit;
    explicit Finder(const BufferNode* buffer) : buffer_(buffer) {}
    bool found = false;

   protected:
    void VisitBufferUse(const Buffer& b) override { found |= b.get() == buffer_; }

   private:
    const BufferNode* buffer_;
  } finder(buffer);
  finder.Visit(s);
  return finder.found;
}

// A consumer loop `wait full[slot(k)]; ...; gemm_wgmma(...); arrive empty[slot(k)]` whose
// other statements leave the accumulators alone becomes
//
//   for k { wait full[slot(k)]; ...; gemm_wgmma_async(...);
//           if (k > min) arrive empty[slot(k - 1)]; }
//   wgmma_wait(C[0], 0, <registers>);
//
//   if (extent > 0) arrive empty[slot(min + extent - 1)];   // with `release_last`
//
// Each iteration's instructions run while the next iteration waits for its slot; an
// iteration's call retires the previous one's group, so that is when the previous slot's
// tiles are released. The last slot is released once the last group has retired when the loop
// runs again (`release_last`: a persistent kernel's tile loop around it, whose producer waits
// for that slot on its next tile); a loop that runs once leaves it, no producer waits for it.
// Nullopt for a loop of another shape.
std::optional<Stmt> KeepOneGroupInFlight(const For& loop, bool release_last) {
  if (loop.for_kind != ForKind::kSerial) return std::nullopt;
  std::vector<Stmt> body = Seq::StmtsOf(loop.body);
  if (body.size() < 3 || !Evaluate::IsCallTo(body.front(), "cuda.mbarrier_wait_parity") ||
      !(Evaluate::IsCallTo(body.back(), "cuda.mbarrier_arrive") ||
        Evaluate::IsCallTo(body.back(), kMbarrierArriveWarpgroup) ||
        Evaluate::IsCallTo(body.back(), kMbarrierArrivePair)) ||
      !Evaluate::IsCallTo(body[body.size() - 2], kGemmWgmmaIntrinsic)) {
    return std::nullopt;
  }
  const Call& gemm = *Evaluate::CallOf(body[body.size() - 2]);
  std::optional<int64_t> registers = WgmmaRegisterOperandLength(gemm, 2);
  if (!registers) return std::nullopt;
  const BufferNode* c = As<BufferLoad>(gemm.args[2])->buffer.get();
  for (size_t i = 0; i + 2 < body.size(); ++i) {
    if (Names(body[i], c)) return std::nullopt;
  }
  const DataType type = loop.var->dtype();
  Stmt previous_release = passes::Substitute(
      body.back(), {{loop.var.get(), Op(BinaryOp::kSub, loop.var, Int(1, type))}});
  Stmt last_release = passes::Substitute(
      body.back(), {{loop.var.get(),
                     Op(BinaryOp::kSub, Op(BinaryOp::kAdd, loop.min, loop.extent), Int(1, type))}});
  body[body.size() - 2] = Evaluate::MakeVoidCall(kGemmWgmmaAsyncIntrinsic, gemm.args);
  body.back() = If::Make(Op(BinaryOp::kGt, loop.var, loop.min), previous_release);
  std::vector<Stmt> out = {
      For::Make(loop.var, loop.min, loop.extent, loop.for_kind, Seq::Make(std::move(body)),
                loop.loc(), loop.pipeline, loop.thread_axis),
      Evaluate::MakeVoidCall(kWgmmaWaitIntrinsic, {gemm.args[2], Int(0), Int(*registers)})};
  if (release_last) {
    out.push_back(
        If::Make(Op(BinaryOp::kGt, loop.extent, Int(0, loop.extent->dtype())), last_release));
  }
  return Seq::Make(std::move(out), loop.loc());
}

// Ping-pong of two consumer warpgroups (FlashAttention-3's warp scheduler barriers): in a
// consumer loop with two or more gemms and other work between them (an attention's softmax),
// warpgroup w issues its iteration's first gemm (an ss wgmma) only after the other warpgroup
// issued its own, and lets the other go once it has issued. The turns are two mbarriers of 128
// arrivals each, `turn` (ws_turn[2], which RoleBinder allocates and initializes):
//
//   if (tx >= 128) eval cuda.mbarrier_arrive(ws_turn[0]);       // warpgroup 0 goes first
//   for k {
//     ...
//     eval cuda.mbarrier_wait_parity(ws_turn[w], (k - min) % 2);  // my turn
//     eval cuda.gemm_wgmma_async(...);                              // issued, in flight
//     eval cuda.mbarrier_arrive(ws_turn[1 - w]);                    // the other's turn
//     eval cuda.wgmma_wait(C[0], 0, <registers>);
//     ...
//   }
//
// (w = tx / 128, each barrier named as a constant in a branch on tx < 128) so that the two
// warpgroups' gemms alternate on the tensor cores and one's softmax runs while the other's gemms
// do. Phase j of ws_turn[0] completes with warpgroup 1's arrivals before the loop (j = 0) or in
// iteration j - 1; phase j of ws_turn[1] with warpgroup 0's in iteration j. Neither barrier can
// complete a phase ahead of the wait for the one before (each arrival follows the arriving
// warpgroup's own wait, which follows the other's arrival), so a parity wait never mistakes
// one phase for the next, and both warpgroups run the loop's trip count (the block's), so
// neither waits forever. Named barriers (bar.sync / bar.arrive, as FlashAttention-3 has them)
// order the same turns; with them compute-sanitizer's racecheck reported RAW hazards on the
// epilogue's staging tile across the consumers' bar.sync (runs 20-23, outputs correct), which
// a minimal kernel of the same barrier protocol does not reproduce
// (bench/results/h100_2026-12-07_run24/pingpong_probe.cu); with mbarriers the kernel is clean
// under racecheck, synccheck and memcheck and as fast (run 24). One loop per kernel takes turns
// (the caller's choice): a second loop's parities would start over while the first one's phases
// run on. Nullopt for another loop.
std::optional<Stmt> PingPong(const For& loop, const VarRef& tx, const Buffer& turn) {
  if (loop.for_kind != ForKind::kSerial) return std::nullopt;
  std::vector<Stmt> body = Seq::StmtsOf(loop.body);
  std::optional<size_t> first;
  int gemms = 0;
  for (size_t i = 0; i < body.size(); ++i) {
    if (Evaluate::IsCallTo(body[i], kGemmWgmmaIntrinsic) ||
        Evaluate::IsCallTo(body[i], kGemmWgmmaRegisterAIntrinsic)) {
      if (!first) first = i;
      ++gemms;
    }
  }
  if (gemms < 2 || !Evaluate::IsCallTo(body[*first], kGemmWgmmaIntrinsic)) return std::nullopt;
  const Call& gemm = *Evaluate::CallOf(body[*first]);
  std::optional<int64_t> registers = WgmmaRegisterOperandLength(gemm, 2);
  if (!registers) return std::nullopt;
  const DataType type = tx->dtype();
  const DataType k_type = loop.var->dtype();
  const Expr parity = arith::SimplifyExpr(
      Op(BinaryOp::kMod, Op(BinaryOp::kSub, loop.var, loop.min), Int(2, k_type)));
  auto slot = [&](int w) { return BufferLoad::Make(turn, {Int(w)}); };
  // Each warpgroup names its barrier as a constant (a branch on the warpgroup, uniform in each
  // warp).
  const Expr first_group = Op(BinaryOp::kLt, tx, Int(kProducerThreads, type));
  std::vector<Stmt> turn_stmts = {
      If::Make(first_group, Evaluate::MakeVoidCall("cuda.mbarrier_wait_parity", {slot(0), parity}),
               Evaluate::MakeVoidCall("cuda.mbarrier_wait_parity", {slot(1), parity})),
      Evaluate::MakeVoidCall(kGemmWgmmaAsyncIntrinsic, gemm.args),
      If::Make(first_group, Evaluate::MakeVoidCall("cuda.mbarrier_arrive", {slot(1)}),
               Evaluate::MakeVoidCall("cuda.mbarrier_arrive", {slot(0)})),
      Evaluate::MakeVoidCall(kWgmmaWaitIntrinsic, {gemm.args[2], Int(0), Int(*registers)})};
  body.erase(body.begin() + static_cast<std::ptrdiff_t>(*first));
  body.insert(body.begin() + static_cast<std::ptrdiff_t>(*first), turn_stmts.begin(),
              turn_stmts.end());
  Stmt first_turn = If::Make(Op(BinaryOp::kGe, tx, Int(kProducerThreads, type)),
                             Evaluate::MakeVoidCall("cuda.mbarrier_arrive", {slot(0)}));
  return Seq::Make({first_turn, For::Make(loop.var, loop.min, loop.extent, loop.for_kind,
                                          Seq::Make(std::move(body)), loop.loc(), loop.pipeline,
                                          loop.thread_axis)},
                   loop.loc());
}

Stmt RoleBinder::Consumer(const Stmt& branch) {
  std::vector<Stmt> out;
  if (consumers_ >= 2 * kProducerThreads) {
    out.push_back(
        Evaluate::MakeVoidCall("cuda.setmaxnreg_inc", {Int(RoleRegisters(consumers_).second)}));
  }
  Stmt rewritten = BarrierRewriter(Evaluate::MakeVoidCall("cuda.named_barrier_sync",
                                                          {Int(kConsumerBarrier), Int(consumers_)}))
                       .Mutate(ConsumerLeader(tx_).Mutate(branch));
  // The pipeline loop, at the top of the branch or inside a persistent kernel's tile loop.
  class Overlap : public IRMutator {
   public:
    Overlap(VarRef tx, bool pingpong, Buffer turn)
        : tx_(std::move(tx)), pingpong_(pingpong), turn_(std::move(turn)) {}
    bool paired() const { return paired_; }
    using IRMutator::Mutate;

   protected:
    Stmt MutateFor(const For& node, const Stmt& self) override {
      if (std::optional<Stmt> overlapped = KeepOneGroupInFlight(node, enclosing_loops_ > 0)) {
        return *overlapped;
      }
      // Not in a persistent kernel's tile loop: each tile's loop would count its parities
      // from its own first iteration while the turn barriers' phases run on across tiles. And
      // one loop only (PingPong says why).
      if (pingpong_ && !paired_ && enclosing_loops_ == 0) {
        if (std::optional<Stmt> alternating = PingPong(node, tx_, turn_)) {
          paired_ = true;
          return *alternating;
        }
      }
      ++enclosing_loops_;
      Stmt result = IRMutator::MutateFor(node, self);
      --enclosing_loops_;
      return result;
    }

   private:
    VarRef tx_;
    bool pingpong_;
    Buffer turn_;
    bool paired_ = false;  // a loop takes turns already
    int enclosing_loops_ = 0;
  };
  // Two consumer warpgroups take turns; with more, which order would be a choice of its own.
  Overlap overlap(tx_, pingpong_ && consumers_ == 2 * kProducerThreads, turn_);
  out.push_back(overlap.Mutate(rewritten));
  takes_turns_ = overlap.paired();
  return Seq::Make(std::move(out), branch->loc());
}

}  // namespace

absl::StatusOr<Kernel> BindWarpRoles(const Kernel& kernel, bool pingpong, int64_t shared_limit) {
  const For* threads = As<For>(kernel->body);
  if (const Seq* seq = As<Seq>(kernel->body); seq != nullptr && seq->stmts.size() == 1) {
    threads = As<For>(seq->stmts[0]);
  }
  if (threads == nullptr || threads->for_kind != ForKind::kThreadBound) {
    // Not thread-level yet, or without a split: a marker left here would reach the emitter,
    // which refuses it by name.
    return kernel;
  }
  std::optional<int64_t> consumers = AsConstInt(threads->extent);
  if (!consumers || *consumers % kProducerThreads != 0) return kernel;
  return RoleBinder(kernel, *threads, pingpong, shared_limit).Run(*threads, *consumers);
}

passes::PassInfo WarpRolesPass() {
  passes::PassInfo info;
  info.name = "warp-roles";
  info.description =
      "gives warp-specialize's producer branch a warpgroup of its own threads: renumbers its "
      "threads, turns the consumers' block barriers into named barriers, initializes the "
      "mbarriers and reallocates registers between the roles";
  info.run_kernel = CudaPass([](const CudaTargetInfo* cuda, const passes::PassOptions&)
                                 -> absl::StatusOr<passes::KernelRewrite> {
    const bool pingpong = cuda != nullptr && cuda->pingpong();
    const int64_t shared_limit =
        cuda != nullptr ? cuda->max_shared_memory_bytes() : std::numeric_limits<int64_t>::max();
    return passes::KernelRewrite([pingpong, shared_limit](const Kernel& kernel) {
      return BindWarpRoles(kernel, pingpong, shared_limit);
    });
  });
  return info;
}

}  // namespace tile_ir::cuda
