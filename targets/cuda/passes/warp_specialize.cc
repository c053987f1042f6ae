// warp-specialize: finds the one top-level pipelined loop of a kernel, checks that its copies
// can move to a producer warpgroup, and splits the kernel into the two roles with mbarriers
// per stage slot (see warp_specialize.md for the shape of the result).
#include "targets/cuda/passes/warp_specialize.h"

#include <algorithm>
#include <mutex>
#include <optional>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "passes/analysis/arith/expr_simplifier.h"
#include "passes/analysis/buffer_access.h"
#include "passes/analysis/divisibility.h"
#include "passes/analysis/pipeline_schedule.h"
#include "passes/analysis/software_pipeline_stages.h"
#include "passes/pass/target_info.h"
#include "passes/utils/fresh_names.h"
#include "passes/utils/loop_body.h"
#include "targets/cuda/cuda_target_info.h"
#include "targets/cuda/gemm_wgmma.h"
#include "targets/cuda/intrinsics.h"
#include "targets/cuda/passes/cluster_pairs.h"
#include "targets/cuda/passes/core_matrix_tiles.h"
#include "targets/cuda/passes/cuda_pass.h"
#include "targets/cuda/passes/persistent_tiles.h"
#include "targets/cuda/passes/tma_stores.h"
#include "targets/cuda/tensor_maps.h"
#include "tile_ir/intrinsics.h"
#include "tile_ir/mutator.h"
#include "tile_ir/op_shorthand.h"
#include "tile_ir/visitor.h"

namespace tile_ir::cuda {
namespace {

using passes::BufferAccesses;
using passes::BufferMap;
using passes::CollectAccesses;

// How often each buffer is named, and the variables an expression or statement mentions.
class Uses : public IRVisitor {
 public:
  using IRVisitor::Visit;
  absl::flat_hash_map<const BufferNode*, int64_t> buffers;
  absl::flat_hash_set<const Var*> vars;

 protected:
  void VisitBufferUse(const Buffer& buffer) override { ++buffers[buffer.get()]; }
  void VisitVar(const Var& node) override { vars.insert(&node); }
};

Uses UsesOf(const Stmt& stmt) {
  Uses uses;
  uses.Visit(stmt);
  return uses;
}

// Whether a let's value may be computed by every thread of both roles before the split: no
// loads (a consumer statement may write what they read) and no calls.
class PureScalar : public IRVisitor {
 public:
  using IRVisitor::Visit;
  bool pure = true;

 protected:
  void VisitBufferLoad(const BufferLoad& node) override { pure = false; }
  void VisitCall(const Call& node) override { pure = false; }
};

bool IsPureLet(const Stmt& stmt) {
  const Let* let = As<Let>(stmt);
  if (let == nullptr) return false;
  PureScalar check;
  check.Visit(let->value);
  return check.pure;
}

// Counts the regions of gemms that read a buffer as a shared operand of a wgmma the target
// will lower them to, with the tile 128-byte swizzled (the order a TMA load writes).
class SwizzledWgmmaOperandUses : public IRVisitor {
 public:
  SwizzledWgmmaOperandUses(const BufferNode* tile, const KernelNode& kernel,
                           const CudaTargetInfo& cuda)
      : tile_(tile), kernel_(kernel), cuda_(cuda) {}
  using IRVisitor::Visit;
  int64_t count = 0;

 protected:
  void VisitGemm(const Gemm& node) override {
    IRVisitor::VisitGemm(node);
    if (node.a.buffer.get() != tile_ && node.b.buffer.get() != tile_) return;
    std::optional<WgmmaPlan> plan = cuda_.WgmmaPlanFor(node, kernel_);
    if (!plan || !plan->operands_swizzled) return;
    if (node.a.buffer.get() == tile_ && !plan->a_in_registers) ++count;
    if (node.b.buffer.get() == tile_) ++count;
  }

 private:
  const BufferNode* tile_;
  const KernelNode& kernel_;
  const CudaTargetInfo& cuda_;
};

// ptxas allocates the code after a setmaxnreg at that instruction's count: the kernel's entry
// count is the even share, 65536 / threads, but the consumers' region may name registers
// above it (H200, run 16: the split attention kernel's consumers name R168 in a 168-register
// kernel). So the consumers' fragments must leave room for addresses and temporaries in the
// count warp-roles gives them, or they spill.
constexpr int64_t kRegistersBesideFragments = 32;

std::string RegistersWhyNot(const KernelNode& kernel) {
  const int64_t threads = kernel.launch.threads[0];
  int64_t fragment_registers = 0;  // 32-bit registers per consumer thread
  class Fragments : public IRVisitor {
   public:
    using IRVisitor::Visit;
    std::vector<const BufferNode*> buffers;

   protected:
    void VisitAllocate(const Allocate& node) override {
      if (node.buffer->scope == MemoryScope::kFragment) buffers.push_back(node.buffer.get());
      IRVisitor::VisitAllocate(node);
    }
  } fragments;
  fragments.Visit(kernel.body);
  for (const BufferNode* buffer : fragments.buffers) {
    int64_t bits = buffer->dtype.bits() * buffer->dtype.lanes();
    for (const Expr& extent : buffer->shape) {
      std::optional<int64_t> size = AsConstInt(extent);
      if (!size) return "";  // sized at run time: the lowering decides, not this estimate
      bits *= *size;
    }
    fragment_registers += std::max<int64_t>(1, (bits / 32 + threads - 1) / threads);
  }
  const int64_t consumer_registers = RoleRegisters(threads).second;
  if (fragment_registers + kRegistersBesideFragments <= consumer_registers) return "";
  return absl::StrCat("its fragments take ", fragment_registers,
                      " registers per consumer thread; beside a producer warpgroup the consumers "
                      "get ",
                      consumer_registers, ", which leaves fewer than the ",
                      kRegistersBesideFragments, " their addresses and temporaries need");
}

// The split of one kernel, or the reason it cannot be split.
class Splitter {
 public:
  Splitter(const Kernel& kernel, const CudaTargetInfo* cuda)
      : kernel_(kernel), cuda_(cuda), names_(*kernel) {}

  // The reason, or empty with `result` set; a reason the split kernel keeps one tile per
  // block goes to `persistent_why_not`.
  std::string Run(Kernel* result, std::string* persistent_why_not);
  // With {tma_store=on}, what the split did with each of the consumers' output copies.
  const std::vector<std::string>& store_remarks() const { return store_remarks_; }
  // With {cluster=2}: why the blocks run alone, or empty.
  const std::string& pair_why_not() const { return pair_why_not_; }

 private:
  std::string Check(const For& loop, const std::vector<Stmt>& top);
  // Why the copies cannot all be TMA loads, or empty with group_bytes_ set.
  std::string TmaWhyNot();
  // With {cluster=2}: why the kernel's blocks cannot run in pairs that share a tile, or empty
  // with pair_producer_ set.
  std::string PairWhyNot(const For& loop, const std::vector<Stmt>& top);
  Stmt TmaLoad(const Copy& copy, Expr barrier, bool pair) const;
  Stmt Emit(const For& loop, const std::vector<Stmt>& top, size_t loop_index,
            const PersistentTiles* tiles);

  const Kernel& kernel_;
  const CudaTargetInfo* cuda_;
  passes::FreshNames names_;
  // The copies, in body order, and the group of each: adjacent copies of the body share one
  // mbarrier per slot, which the consumers wait for before the first statement that reads
  // one of the group's tiles.
  std::vector<Stmt> producers_;
  std::vector<size_t> group_of_;
  std::vector<int64_t> group_bytes_;     // what each group's loads deliver (TmaWhyNot)
  std::vector<size_t> group_first_use_;  // index into consumers_
  std::vector<size_t> group_last_use_;   // index into consumers_
  std::vector<Stmt> consumers_;
  BufferMap staged_;
  // The top-level lets only the consumers compute (Check): those that load, and those that
  // name one of them; the others stay in front of the split for both roles.
  absl::flat_hash_set<const Var*> consumer_only_;
  std::vector<std::string> store_remarks_;
  // {cluster=2}: the copy whose tile both blocks of a pair load, half each; the reason there is
  // none.
  std::optional<size_t> pair_producer_;
  std::string pair_why_not_;

  bool StaysInFront(const Stmt& s) const {
    const Let* let = As<Let>(s);
    return let != nullptr && !consumer_only_.contains(let->var.get());
  }
};

std::string Splitter::Run(Kernel* result, std::string* persistent_why_not) {
  const KernelNode& kernel = *kernel_;
  std::vector<Stmt> top = Seq::StmtsOf(kernel.body);
  std::optional<size_t> loop_index;
  int pipelined = 0;
  for (size_t i = 0; i < top.size(); ++i) {
    const For* loop = As<For>(top[i]);
    if (loop != nullptr && loop->for_kind == ForKind::kPipelined) {
      loop_index = i;
      ++pipelined;
    }
  }
  if (pipelined == 0) {
    // A pipelined loop nested in other statements: say so; none at all: nothing to say.
    class Finder : public IRVisitor {
     public:
      using IRVisitor::Visit;
      bool found = false;

     protected:
      void VisitFor(const For& node) override {
        found |= node.for_kind == ForKind::kPipelined;
        IRVisitor::VisitFor(node);
      }
    } finder;
    finder.Visit(kernel.body);
    return finder.found ? "its pipelined loop is not at the top level of the kernel body" : "";
  }
  if (pipelined > 1) {
    return absl::StrCat("it has ", pipelined,
                        " pipelined loops at its top level (one can be split)");
  }
  const For& loop = *As<For>(top[*loop_index]);
  if (std::string why = Check(loop, top); !why.empty()) return why;
  if (std::string why = TmaWhyNot(); !why.empty()) return why;
  if (cuda_->persistent_blocks() > 0) {
    PersistentTiles tiles(
        kernel, top, loop, cuda_->persistent_blocks(),
        [this](const Stmt& s) { return StaysInFront(s); }, names_);
    if (tiles.why_not().empty()) {
      if (cuda_->cluster_blocks() > 1) {
        pair_why_not_ = "it is persistent, and persistent blocks do not run in clusters yet";
      }
      *result =
          KernelNode::Make(kernel.name, kernel.dims, kernel.params, tiles.PersistentLaunch(),
                           Emit(loop, top, *loop_index, &tiles), kernel.loc, kernel.requirements);
      return "";
    }
    *persistent_why_not = tiles.why_not();
  }
  Launch launch = kernel.launch;
  if (cuda_->cluster_blocks() == 2) {
    pair_why_not_ = PairWhyNot(loop, top);
    if (pair_why_not_.empty()) launch.cluster = {2};
  }
  *result =
      KernelNode::Make(kernel.name, kernel.dims, kernel.params, std::move(launch),
                       Emit(loop, top, *loop_index, nullptr), kernel.loc, kernel.requirements);
  return "";
}

std::string Splitter::PairWhyNot(const For& loop, const std::vector<Stmt>& top) {
  PairedCopy choice = CopyForPairs(*kernel_, top, loop, producers_);
  pair_producer_ = choice.copy;
  return choice.why_not;
}

std::string Splitter::Check(const For& loop, const std::vector<Stmt>& top) {
  const KernelNode& kernel = *kernel_;
  const int stages = loop.pipeline.num_stages;
  if (stages < 2) return "its pipelined loop has fewer than 2 stages";
  if (kernel.launch.threads.size() != 1 || kernel.launch.threads[0] % kProducerThreads != 0 ||
      kernel.launch.threads[0] + kProducerThreads > 1024) {
    return absl::StrCat("its threads are not one axis of a multiple of ", kProducerThreads,
                        " that leaves room for a producer warpgroup of ", kProducerThreads);
  }
  if (kernel.launch.threads[0] < kMinSplitBlockThreads) {
    // Its accumulators fill a warpgroup's registers already (cuda_target_info.h says why one
    // consumer warpgroup does not pay).
    return "it has one consumer warpgroup, and a producer warpgroup beside it would halve the "
           "blocks per SM (two consumer warpgroups, e.g. a 128 x 256 tile on 256 threads, "
           "split)";
  }
  if (!kernel.launch.cluster.empty()) return "it runs in thread-block clusters";
  if (std::string why = RegistersWhyNot(kernel); !why.empty()) return why;
  const std::vector<int>& order = loop.pipeline.order;
  for (size_t i = 0; i < order.size(); ++i) {
    if (order[i] != static_cast<int>(i)) return "its pipeline has an explicit issue order";
  }
  std::vector<Stmt> body = passes::LoopBodyStmts(loop);
  const std::vector<int>& stage = loop.pipeline.stage;
  if (!stage.empty() && stage.size() != body.size()) return "its stage list does not fit its body";
  // The copies the schedule issues ahead (stage 0; without a schedule, the body's leading
  // copies) go to the producer; every other statement must run at the last stage, since the
  // consumers run one iteration at a time.
  bool previous_was_copy = false;
  Uses used_before;  // by the consumer statements so far
  for (size_t i = 0; i < body.size(); ++i) {
    const bool copy = passes::IsGlobalToSharedCopy(body[i]) &&
                      (stage.empty() ? consumers_.empty() : stage[i] == 0);
    if (copy) {
      const BufferNode* dst = As<Copy>(body[i])->dst.buffer.get();
      if (used_before.buffers.contains(dst)) {
        // Waiting for this iteration's tile there would read it before it is copied.
        return absl::StrCat("its body uses '", dst->name, "' before the copy that fills it");
      }
      if (!previous_was_copy) group_bytes_.push_back(0);
      producers_.push_back(body[i]);
      group_of_.push_back(group_bytes_.size() - 1);
    } else if (!stage.empty() && stage[i] != stages - 1) {
      return stage[i] == 0 ? "a statement other than a copy from global into shared memory is "
                             "scheduled at stage 0"
                           : "a statement of its body is scheduled at an intermediate stage";
    } else {
      consumers_.push_back(body[i]);
      used_before.Visit(body[i]);
    }
    previous_was_copy = copy;
  }
  if (producers_.empty()) return "its body has no copies from global into shared memory";
  if (consumers_.empty()) return "nothing in its body uses the copies";
  group_first_use_.assign(group_bytes_.size(), consumers_.size());
  group_last_use_.assign(group_bytes_.size(), 0);
  for (size_t c = consumers_.size(); c-- > 0;) {
    Uses uses = UsesOf(consumers_[c]);
    for (size_t p = 0; p < producers_.size(); ++p) {
      if (uses.buffers.contains(As<Copy>(producers_[p])->dst.buffer.get())) {
        group_first_use_[group_of_[p]] = c;
        group_last_use_[group_of_[p]] = std::max(group_last_use_[group_of_[p]], c);
      }
    }
  }

  BufferAccesses consumed;
  for (const Stmt& s : consumers_) CollectAccesses(s, &consumed);
  Uses kernel_uses = UsesOf(kernel.body);
  Uses loop_uses = UsesOf(loop.body);
  // Variables the producer branch may name: the loop's, the kernel's signature and grid
  // (never declared in the body), and lets that stay in front of the split. A let that loads,
  // or that names such a let, is the consumers' alone.
  absl::flat_hash_set<const Var*>& consumer_only = consumer_only_;
  for (const Stmt& s : top) {
    const Let* let = As<Let>(s);
    if (let == nullptr) continue;
    bool names_consumer_let = false;
    for (const Var* var : UsesOf(s).vars) names_consumer_let |= consumer_only.contains(var);
    if (!IsPureLet(s) || names_consumer_let) consumer_only.insert(let->var.get());
  }
  for (const Stmt& s : producers_) {
    const Copy& copy = *As<Copy>(s);
    const BufferNode* dst = copy.dst.buffer.get();
    if (!passes::IsFullRegion(copy.dst)) {
      return absl::StrCat("copy into '", dst->name, "' fills part of it");
    }
    if (staged_.contains(dst)) return absl::StrCat("two copies fill '", dst->name, "'");
    if (consumed.writes.contains(dst) || consumed.writes.contains(copy.src.buffer.get())) {
      return absl::StrCat("the loop writes what the copy into '", dst->name, "' reads or fills");
    }
    if (kernel_uses.buffers[dst] != loop_uses.buffers[dst]) {
      return absl::StrCat("'", dst->name, "' is used outside the loop");
    }
    Uses copy_uses = UsesOf(s);
    for (const Var* var : copy_uses.vars) {
      if (consumer_only.contains(var)) {
        return absl::StrCat("the copy into '", dst->name, "' reads '", var->name,
                            "', a let that loads from memory");
      }
    }
    staged_[dst] = passes::StagedBuffer(copy.dst.buffer, stages);
  }
  return "";
}

std::string Splitter::TmaWhyNot() {
  const passes::Divisibility divisibility = TmaDivisibility(*kernel_);
  for (size_t p = 0; p < producers_.size(); ++p) {
    const Copy& copy = *As<Copy>(producers_[p]);
    const BufferNode& dst = *copy.dst.buffer;
    auto refuse = [&](absl::string_view why) {
      return absl::StrCat("the copy into '", dst.name, "' ", why);
    };
    if (std::string why = TmaTileWhyNot(*kernel_, copy.src, dst.shape, divisibility);
        !why.empty()) {
      return refuse(absl::StrCat("cannot be a TMA load: ", why));
    }
    if (copy.src.buffer->dtype != dst.dtype) return refuse("converts its elements");
    SwizzledWgmmaOperandUses operand_uses(&dst, *kernel_, *cuda_);
    int64_t uses = 0;
    for (const Stmt& c : consumers_) {
      operand_uses.Visit(c);
      uses += UsesOf(c).buffers[&dst];
    }
    if (uses == 0 || operand_uses.count != uses) {
      return refuse("fills a tile that is read otherwise than as a swizzled wgmma operand");
    }
    // What the load delivers: the tile, a constant shape of whole bytes (TmaTileWhyNot).
    group_bytes_[group_of_[p]] +=
        *AsConstInt(dst.shape[0]) * *AsConstInt(dst.shape[1]) * (dst.dtype.bits() / 8);
  }
  return "";
}

// cuda.tma_load_<rank>d(dst[0, 0], src[0, ...], barrier, <region's first element>, ROWS,
// COLS) for the copy (the caller's rewrite gives dst its slot and the coordinates their
// iteration).
Stmt Splitter::TmaLoad(const Copy& copy, Expr barrier, bool pair) const {
  const Buffer& dst = copy.dst.buffer;
  const Buffer& src = copy.src.buffer;
  DataType index = copy.src.ranges[0].min->dtype();
  std::vector<Expr> origin(src->rank(), Int(0, index));
  std::vector<Expr> args = {BufferLoad::Make(dst, {Int(0, index), Int(0, index)}),
                            BufferLoad::Make(src, std::move(origin)), std::move(barrier)};
  for (const Range& range : copy.src.ranges) args.push_back(range.min);
  args.push_back(dst->shape[0]);
  args.push_back(dst->shape[1]);
  const int rank = static_cast<int>(src->rank());
  return Evaluate::MakeVoidCall(pair ? TmaLoadPairIntrinsic(rank) : TmaLoadIntrinsic(rank),
                                std::move(args));
}

Stmt Splitter::Emit(const For& loop, const std::vector<Stmt>& top, size_t loop_index,
                    const PersistentTiles* tiles) {
  const int stages = loop.pipeline.num_stages;
  const int64_t threads = kernel_->launch.threads[0];
  const DataType type = loop.var->dtype();
  // One mbarrier per slot for each group of copies and each direction: a group's tiles are
  // released once its last reader is done with them, so the producer refills a slot of K
  // while the consumers still read V of the same iteration.
  std::vector<Buffer> full;
  std::vector<Buffer> empty;
  for (size_t g = 0; g < group_bytes_.size(); ++g) {
    full.push_back(
        BufferNode::Make(names_.Fresh("ws_full"), kI64, {Int(stages)}, MemoryScope::kShared));
    empty.push_back(
        BufferNode::Make(names_.Fresh("ws_empty"), kI64, {Int(stages)}, MemoryScope::kShared));
  }
  // Persistent roles loop over tiles; their pipeline counts iterations on across tiles.
  VarRef producer_tile = Var::Make(names_.Fresh("tile_iter"), kI32);
  VarRef consumer_tile = Var::Make(names_.Fresh("tile_iter"), kI32);
  auto slot_and_parity = [&](const Expr& k, bool producer) {
    Expr trip = Op(BinaryOp::kSub, k, loop.min);
    if (tiles != nullptr) {
      Expr tile_iter = producer ? producer_tile : consumer_tile;
      if (type != kI32) tile_iter = Cast::Make(type, tile_iter);
      trip = Op(BinaryOp::kAdd, Op(BinaryOp::kMul, tile_iter, loop.extent), trip);
    }
    trip = arith::SimplifyExpr(trip);
    Expr slot = arith::SimplifyExpr(Op(BinaryOp::kMod, trip, Int(stages, type)));
    Expr round = Op(BinaryOp::kDiv, trip, Int(stages, type));
    if (producer) round = Op(BinaryOp::kAdd, round, Int(1, type));
    return std::pair(slot, arith::SimplifyExpr(Op(BinaryOp::kMod, round, Int(2, type))));
  };

  // The producer: its own loop variable, so that each loop declares its own.
  VarRef k_producer = Var::Make(names_.Fresh(loop.var->name + "_producer"), type);
  auto [p_slot, p_parity] = slot_and_parity(k_producer, /*producer=*/true);
  // A pair's slot is released by both blocks' consumers, the other's at cluster scope.
  const bool pair = pair_producer_.has_value();
  std::vector<Stmt> producer_body;
  passes::IterationRewriter producer_rewriter(staged_, p_slot, {{loop.var.get(), k_producer}},
                                              nullptr);
  // One thread: per group, the slot's release, the bytes its phase waits for, then the loads
  // that deliver them.
  for (size_t p = 0; p < producers_.size(); ++p) {
    Expr full_slot = BufferLoad::Make(full[group_of_[p]], {p_slot});
    if (p == 0 || group_of_[p] != group_of_[p - 1]) {
      producer_body.push_back(
          Evaluate::MakeVoidCall(pair ? kMbarrierWaitParityCluster : "cuda.mbarrier_wait_parity",
                                 {BufferLoad::Make(empty[group_of_[p]], {p_slot}), p_parity}));
      producer_body.push_back(Evaluate::MakeVoidCall("cuda.mbarrier_arrive_expect_tx",
                                                     {full_slot, Int(group_bytes_[group_of_[p]])}));
    }
    producer_body.push_back(producer_rewriter.Mutate(
        TmaLoad(*As<Copy>(producers_[p]), full_slot, pair_producer_ == p)));
  }
  Stmt producer_loop = For::Make(k_producer, loop.min, loop.extent, ForKind::kSerial,
                                 Seq::Make(std::move(producer_body)), loop.loc());
  if (tiles != nullptr) producer_loop = tiles->LoopOverTiles(producer_tile, producer_loop, names_);
  Stmt producer = If::Make(Call::Make(kBool, kProducerLeaderMarker, {}), std::move(producer_loop));

  // The consumers wait for a group's slot before its first reader.
  auto [c_slot, c_parity] = slot_and_parity(loop.var, /*producer=*/false);
  std::vector<Stmt> consumer_body;
  passes::IterationRewriter consumer_rewriter(staged_, c_slot, {}, nullptr);
  for (size_t c = 0; c < consumers_.size(); ++c) {
    for (size_t g = 0; g < group_bytes_.size(); ++g) {
      if (group_first_use_[g] != c) continue;
      consumer_body.push_back(Evaluate::MakeVoidCall(
          "cuda.mbarrier_wait_parity", {BufferLoad::Make(full[g], {c_slot}), c_parity}));
    }
    consumer_body.push_back(consumer_rewriter.Mutate(consumers_[c]));
    // A group's slot is free once its last reader returned (a synchronous gemm has read its
    // tiles by then); a slot of a pair of blocks once both blocks' consumers are done with it:
    // each arrives on its own block's barrier and on the other's.
    for (size_t g = 0; g < group_bytes_.size(); ++g) {
      if (group_last_use_[g] != c) continue;
      consumer_body.push_back(
          Evaluate::MakeVoidCall(pair ? kMbarrierArrivePair : kMbarrierArriveWarpgroup,
                                 {BufferLoad::Make(empty[g], {c_slot})}));
    }
  }

  // Declarations and pure lets stay in front of the split for both roles; every other
  // statement outside the loop is the consumers'.
  std::vector<Stmt> front;
  std::vector<Stmt> consumer;
  size_t consumer_loop = 0;  // where the pipeline loop is in `consumer`
  for (size_t i = 0; i < top.size(); ++i) {
    if (i == loop_index) {
      consumer_loop = consumer.size();
      consumer.push_back(For::Make(loop.var, loop.min, loop.extent, ForKind::kSerial,
                                   Seq::Make(std::move(consumer_body)), loop.loc()));
    } else if (tiles != nullptr && tiles->IsBlockLet(top[i])) {
      continue;  // each role's tile loop computes it for its tile
    } else if (As<Allocate>(top[i]) != nullptr || StaysInFront(top[i])) {
      front.push_back(top[i]);
    } else {
      consumer.push_back(top[i]);
    }
  }
  for (const Buffer& f : full) front.push_back(Allocate::Make(f));
  for (const Buffer& e : empty) front.push_back(Allocate::Make(e));
  // {tma_store=on}: the consumers' output tiles leave through shared memory and the TMA.
  std::vector<Stmt> drain;
  if (cuda_->tma_stores()) {
    const int64_t barriers =
        static_cast<int64_t>(full.size() + empty.size()) * passes::kCoreMatrixTileAlignment;
    TmaStoreEpilogue stores = StoreTilesWithTma(
        *kernel_, std::vector<Stmt>(consumer.begin() + consumer_loop + 1, consumer.end()),
        SharedFootprint(kernel_->body, staged_) + barriers, cuda_->max_shared_memory_bytes(),
        tiles != nullptr, names_);
    consumer.resize(consumer_loop + 1);
    consumer.insert(consumer.end(), stores.epilogue.begin(), stores.epilogue.end());
    front.insert(front.end(), stores.allocations.begin(), stores.allocations.end());
    drain = std::move(stores.drain);
    store_remarks_ = std::move(stores.remarks);
  }
  for (int s = 0; s < stages; ++s) {
    // A slot's phase: the leader's one arrival and the bytes of its loads.
    for (const Buffer& f : full) {
      front.push_back(
          Evaluate::MakeVoidCall("cuda.mbarrier_init", {BufferLoad::Make(f, {Int(s)}), Int(1)}));
    }
    for (const Buffer& e : empty) {
      front.push_back(Evaluate::MakeVoidCall(
          "cuda.mbarrier_init",
          {BufferLoad::Make(e, {Int(s)}), Int((pair ? 2 : 1) * threads / kProducerThreads)}));
    }
  }
  // Both blocks' barriers exist before either block's loads or arrivals reach the other's.
  if (pair) front.push_back(Evaluate::MakeVoidCall(kClusterSync, {}));
  Stmt consumers = Seq::Make(std::move(consumer));
  if (tiles != nullptr) consumers = tiles->LoopOverTiles(consumer_tile, consumers, names_);
  if (!drain.empty()) {
    std::vector<Stmt> all = Seq::StmtsOf(consumers);
    all.insert(all.end(), drain.begin(), drain.end());
    consumers = Seq::Make(std::move(all));
  }
  front.push_back(If::Make(Call::Make(kBool, kProducerWarpsMarker, {}), std::move(producer),
                           std::move(consumers), loop.loc()));
  // No block leaves while the other may still arrive on its barriers: the consumers' last slot
  // of a non-persistent kernel is never released (warp-roles' KeepOneGroupInFlight), so a
  // producer tail that waited for every slot would hang, and this barrier is what orders the
  // exit.
  if (pair) front.push_back(Evaluate::MakeVoidCall(kClusterSync, {}));
  return passes::AllocationRestager(staged_).Mutate(
      Seq::Make(std::move(front), kernel_->body->loc()));
}

}  // namespace

std::pair<int, int> RoleRegisters(int64_t consumer_threads) {
  // The producer needs few: addresses and a loop. CUTLASS and FlashAttention-3 give it 40
  // beside two consumer warpgroups, 32 beside three, 24 beside more.
  const int producer = consumer_threads <= 256 ? 40 : consumer_threads <= 384 ? 32 : 24;
  int64_t consumer = (kRegisterFile - int64_t{kProducerThreads} * producer) / consumer_threads;
  consumer = std::min<int64_t>(consumer / 8 * 8, 256);  // setmaxnreg takes multiples of 8
  return {producer, static_cast<int>(consumer)};
}

void RegisterWarpSpecializationIntrinsics() {
  static std::once_flag once;
  std::call_once(once, [] {
    RegisterRoleMarker(kProducerWarpsMarker,
                       "true in the producer warpgroup of a warp-specialized kernel (a marker "
                       "that warp-roles replaces with a thread-index test)",
                       /*partitions_threads=*/true);  // the roles' arms run concurrently
    RegisterRoleMarker(kProducerLeaderMarker,
                       "true in one thread of the producer warpgroup, the one that issues its "
                       "TMA loads (a marker that warp-roles replaces with a thread-index test)",
                       /*partitions_threads=*/false);  // one thread of the producer's arm
    RegisterTmaStoreIntrinsics();
    // Only a foreign registration of the same name can fail; lowering then names it.
    const std::pair<const char*, const char*> calls[] = {
        {"cuda.mbarrier_init", "initializes the mbarrier at arg 0 to expect arg 1 arrivals"},
        {"cuda.fence_barrier_init", "makes mbarrier initializations visible to other threads"},
        {"cuda.mbarrier_wait_parity",
         "waits until the phase of parity arg 1 of the mbarrier at arg 0 has completed"},
        {"cuda.mbarrier_arrive", "arrives on the mbarrier at arg 0 (release)"},
        {kMbarrierArriveWarpgroup,
         "arrives on the mbarrier at arg 0 once for the executing warpgroup, from its first "
         "thread, after the warpgroup's wgmma reading the slot have retired (release)"},
        {"cuda.mbarrier_arrive_expect_tx",
         "arrives on the mbarrier at arg 0 and adds arg 1 bytes to the transactions its phase "
         "waits for"},
        {"cuda.named_barrier_sync", "waits at named barrier arg 0 for arg 1 threads"},
        {"cuda.named_barrier_arrive",
         "counts this thread towards named barrier arg 0 of arg 1 threads, without waiting"},
        {kMbarrierArrivePair,
         "arrives on the mbarrier at arg 0 of this block and on the same mbarrier of the other "
         "block of its cluster of two (release)"},
        {kMbarrierWaitParityCluster,
         "waits until the phase of parity arg 1 of the mbarrier at arg 0 has completed, "
         "acquiring at cluster scope (arrivals from the other block of a pair)"},
        {kClusterSync,
         "waits until every thread of every block of the cluster has come here (barrier.cluster)"},
        {"cuda.setmaxnreg_inc", "raises this warpgroup's registers per thread to arg 0"},
        {"cuda.setmaxnreg_dec", "lowers this warpgroup's registers per thread to arg 0"},
    };
    for (const auto& [name, description] : calls) {
      std::string_view n = name;
      int args = n == "cuda.fence_barrier_init" || n == kClusterSync ? 0
                 : n == "cuda.mbarrier_arrive" || n == kMbarrierArrivePair ||
                         n == kMbarrierArriveWarpgroup || n == "cuda.setmaxnreg_inc" ||
                         n == "cuda.setmaxnreg_dec"
                     ? 1
                     : 2;
      int template_args = n.rfind("cuda.setmaxnreg", 0) == 0 ? 1 : 0;
      RegisterCudaIntrinsic(name, args, template_args, description).IgnoreError();
    }
  });
}

Kernel WarpSpecialize(const Kernel& kernel, const CudaTargetInfo& cuda,
                      std::vector<std::string>* why_not) {
  Kernel result = kernel;
  std::string persistent_why_not;
  Splitter splitter(kernel, &cuda);
  std::string why = splitter.Run(&result, &persistent_why_not);
  if (!why.empty() && why_not != nullptr) {
    why_not->push_back(absl::StrCat("warp-specialize: kernel '", kernel->name,
                                    "' keeps its copies in the compute warps: ", why));
  }
  if (why.empty() && result != kernel && why_not != nullptr) {
    // What was done is worth a line too: tile-run --explain and the autotuner show it.
    const bool persistent = cuda.persistent_blocks() > 0 && persistent_why_not.empty();
    why_not->push_back(
        absl::StrCat("warp-specialize: kernel '", kernel->name,
                     "' gives its copies to a producer warpgroup "
                     "(TMA loads and mbarriers) beside ",
                     kernel->launch.threads[0] / kProducerThreads, " consumer warpgroups",
                     persistent ? absl::StrCat("; persistent: at most ", cuda.persistent_blocks(),
                                               " blocks loop over the output tiles")
                                : ""));
  }
  if (!persistent_why_not.empty() && why_not != nullptr) {
    why_not->push_back(absl::StrCat("warp-specialize: kernel '", kernel->name,
                                    "' keeps one output tile per block: ", persistent_why_not));
  }
  if (why.empty() && cuda.cluster_blocks() > 1 && why_not != nullptr) {
    why_not->push_back(
        splitter.pair_why_not().empty()
            ? absl::StrCat("warp-specialize: kernel '", kernel->name,
                           "' runs in clusters of 2 blocks along x, each loading half of the "
                           "tile both read with a TMA multicast")
            : absl::StrCat("warp-specialize: kernel '", kernel->name,
                           "' keeps its blocks out of clusters: ", splitter.pair_why_not()));
  }
  for (const std::string& remark : splitter.store_remarks()) {
    if (why_not != nullptr) {
      why_not->push_back(absl::StrCat("warp-specialize: kernel '", kernel->name, "' ", remark));
    }
  }
  return result;
}

passes::PassInfo WarpSpecializePass() {
  passes::PassInfo info;
  info.name = "warp-specialize";
  info.description =
      "moves the copies of a kernel's top-level pipelined loop to a producer warpgroup that "
      "fills multi-buffered shared tiles ahead of the compute warps, synchronized by mbarriers "
      "(sm_90a)";
  info.needs_target = true;
  info.run_kernel = CudaPass([](const CudaTargetInfo* cuda, const passes::PassOptions& options)
                                 -> absl::StatusOr<passes::KernelRewrite> {
    if (cuda == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          "warp-specialize lowers for CUDA targets; the target is ", options.target().name()));
    }
    // sm_80 (no mbarrier parity waits or setmaxnreg) and {warp_specialize=off}: as before.
    if (!cuda->warp_specializes()) {
      return passes::KernelRewrite([](const Kernel& kernel) { return kernel; });
    }
    return passes::KernelRewrite([cuda, &options](const Kernel& kernel) {
      std::vector<std::string> why_not;
      Kernel result = WarpSpecialize(kernel, *cuda, &why_not);
      for (std::string& remark : why_not) options.Remark(std::move(remark));
      return result;
    });
  });
  return info;
}

}  // namespace tile_ir::cuda
