// overlap-gemm-chains: a consumer loop's second gemm of iteration k - 1 runs while the register
// work of iteration k does (see overlap_gemm_chains.md).
#include "targets/cuda/passes/overlap_gemm_chains.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "passes/analysis/buffer_access.h"
#include "passes/utils/fresh_names.h"
#include "passes/utils/substitute.h"
#include "targets/cuda/cuda_target_info.h"
#include "targets/cuda/gemm_wgmma.h"
#include "targets/cuda/passes/cuda_pass.h"
#include "tile_ir/mutator.h"
#include "tile_ir/op_shorthand.h"
#include "tile_ir/visitor.h"

namespace tile_ir::cuda {
namespace {

bool IsWait(const Stmt& s) {
  const Call* call = Evaluate::CallOf(s);
  return call != nullptr && call->name.rfind("cuda.mbarrier_wait_parity", 0) == 0;
}

bool IsArrival(const Stmt& s) {
  const Call* call = Evaluate::CallOf(s);
  return call != nullptr && call->name.rfind("cuda.mbarrier_arrive", 0) == 0;
}

// What a run of statements reads and writes.
passes::BufferAccesses AccessesOf(const std::vector<Stmt>& stmts) {
  passes::BufferAccesses accesses;
  for (const Stmt& s : stmts) passes::CollectAccesses(s, &accesses);
  return accesses;
}

bool NamesAny(const passes::BufferAccesses& accesses,
              const std::vector<const BufferNode*>& buffers) {
  for (const BufferNode* b : buffers) {
    if (accesses.reads.contains(b) || accesses.writes.contains(b)) return true;
  }
  return false;
}

bool Intersect(const absl::flat_hash_set<const BufferNode*>& a,
               const absl::flat_hash_set<const BufferNode*>& b) {
  for (const BufferNode* x : a) {
    if (b.contains(x)) return true;
  }
  return false;
}

// Whether two statements may swap: neither writes what the other reads or writes.
bool Independent(const passes::BufferAccesses& a, const passes::BufferAccesses& b) {
  return !Intersect(a.writes, b.reads) && !Intersect(a.writes, b.writes) &&
         !Intersect(a.reads, b.writes);
}

// Whether a statement keeps to a thread's registers: it accesses local buffers only and holds
// no barrier, allocation or call statement. Calls inside its expressions stay allowed, lane
// shuffles (impure) included: the rotation moves whole statements the same way in every
// thread, and the one condition it adds (the trip count > 0) is the loop's own, which every
// thread that ran the loop together evaluates alike.
bool RegistersOnly(const Stmt& s) {
  class Checker : public IRVisitor {
   public:
    using IRVisitor::Visit;
    bool ok = true;

   protected:
    void VisitBufferUse(const Buffer& b) override { ok &= b->scope == MemoryScope::kLocal; }
    void VisitBarrier(const Barrier& node) override { ok = false; }
    void VisitAllocate(const Allocate& node) override { ok = false; }
    void VisitEvaluate(const Evaluate& node) override { ok = false; }
  } checker;
  checker.Visit(s);
  return checker.ok;
}

// The loop's body split around its two gemms (overlap_gemm_chains.md names the parts).
struct Chain {
  std::vector<Stmt> a, r1, x, x1, x2, w2, r2;
  Stmt first;                // G1's statement
  Stmt second;               // G2's
  const Call* g1 = nullptr;  // their calls
  const Call* g2 = nullptr;
  int64_t s_registers = 0;  // G1's accumulators
  int64_t o_registers = 0;  // G2's
  int64_t p_registers = 0;  // G2's A
};

// The loop's chain; nullopt for a loop without one, and then `why_not` says why when the loop
// has the two gemms but the statements around them do not allow the rotation.
std::optional<Chain> FindChain(const For& loop, std::string* why_not) {
  if (loop.for_kind != ForKind::kSerial) return std::nullopt;
  std::vector<Stmt> body = Seq::StmtsOf(loop.body);
  std::optional<size_t> first;
  std::optional<size_t> second;
  for (size_t i = 0; i < body.size(); ++i) {
    const Call* call = Evaluate::CallOf(body[i]);
    if (call == nullptr) continue;
    if (call->name == kGemmWgmmaIntrinsic || call->name == kGemmWgmmaAsyncIntrinsic ||
        call->name == kGemmWgmmaRegisterAAsyncIntrinsic) {
      if (first || call->name != kGemmWgmmaIntrinsic) return std::nullopt;
      first = i;
    } else if (call->name == kGemmWgmmaRegisterAIntrinsic) {
      if (!first || second) return std::nullopt;
      second = i;
    }
  }
  if (!first || !second) return std::nullopt;
  Chain chain;
  chain.first = body[*first];
  chain.second = body[*second];
  chain.g1 = Evaluate::CallOf(chain.first);
  chain.g2 = Evaluate::CallOf(chain.second);
  std::optional<int64_t> s = WgmmaRegisterOperandLength(*chain.g1, 2);
  std::optional<int64_t> o = WgmmaRegisterOperandLength(*chain.g2, 2);
  std::optional<int64_t> p = WgmmaRegisterOperandLength(*chain.g2, 0);
  if (!s || !o || !p || *p % 2 != 0) return std::nullopt;
  chain.s_registers = *s;
  chain.o_registers = *o;
  chain.p_registers = *p;
  size_t i = 0;
  for (; i < *first; ++i) chain.a.push_back(body[i]);
  for (i = *first + 1; i < *second && IsArrival(body[i]); ++i) chain.r1.push_back(body[i]);
  size_t waits = *second;
  while (waits > i && IsWait(body[waits - 1])) --waits;
  chain.x.assign(body.begin() + static_cast<std::ptrdiff_t>(i),
                 body.begin() + static_cast<std::ptrdiff_t>(waits));
  const std::vector<Stmt>& x = chain.x;
  chain.w2.assign(body.begin() + static_cast<std::ptrdiff_t>(waits),
                  body.begin() + static_cast<std::ptrdiff_t>(*second));
  for (i = *second + 1; i < body.size(); ++i) {
    if (!IsArrival(body[i])) {
      *why_not = "a statement other than an mbarrier arrival follows its second gemm";
      return std::nullopt;
    }
    chain.r2.push_back(body[i]);
  }

  // Nothing declared at the top level (a let's scope is the rest of the body, which the
  // rotation splits), and the register work keeps to registers.
  for (const Stmt& st : body) {
    if (As<Let>(st) != nullptr || As<Allocate>(st) != nullptr) {
      *why_not = "its body declares a variable or buffer at its top level";
      return std::nullopt;
    }
  }
  for (const Stmt& st : x) {
    if (!RegistersOnly(st)) {
      *why_not = "the work between its gemms touches memory other than registers, or synchronizes";
      return std::nullopt;
    }
  }
  const BufferNode* s_buffer = As<BufferLoad>(chain.g1->args[2])->buffer.get();
  const BufferNode* p_buffer = As<BufferLoad>(chain.g2->args[0])->buffer.get();
  const BufferNode* o_buffer = As<BufferLoad>(chain.g2->args[2])->buffer.get();
  const std::vector<const BufferNode*> in_flight = {p_buffer, o_buffer};
  // A and G1 of iteration k move in front of G2 of iteration k - 1.
  passes::BufferAccesses g2;
  passes::CollectAccesses(body[*second], &g2);
  std::vector<Stmt> early = chain.a;
  early.push_back(body[*first]);
  passes::BufferAccesses early_accesses = AccessesOf(early);
  if (NamesAny(early_accesses, in_flight) || !Independent(early_accesses, g2) ||
      p_buffer == s_buffer || o_buffer == s_buffer) {
    *why_not = "what comes before its first gemm, or the gemm itself, uses the second's operands";
    return std::nullopt;
  }
  // X splits into what runs while G2 does and what waits for it; an X2 statement moves past
  // the X1 statements after it.
  std::vector<passes::BufferAccesses> moved;
  for (const Stmt& st : x) {
    passes::BufferAccesses accesses;
    passes::CollectAccesses(st, &accesses);
    if (NamesAny(accesses, in_flight)) {
      chain.x2.push_back(st);
      moved.push_back(std::move(accesses));
      continue;
    }
    for (const passes::BufferAccesses& m : moved) {
      if (!Independent(m, accesses)) {
        *why_not = "work that must wait for the second gemm feeds work that need not";
        return std::nullopt;
      }
    }
    chain.x1.push_back(st);
  }
  if (chain.x1.empty()) {
    *why_not = "none of the work between its gemms could run beside the second";
    return std::nullopt;
  }
  return chain;
}

std::vector<Stmt> At(const std::vector<Stmt>& stmts, const VarRef& var, const Expr& value,
                     passes::FreshNames& names) {
  std::vector<Stmt> out;
  passes::VarMap map = {{var.get(), value}};
  for (const Stmt& s : stmts)
    out.push_back(passes::RenameDeclared(passes::Substitute(s, map), names));
  return out;
}

void Append(std::vector<Stmt>* out, const std::vector<Stmt>& stmts) {
  out->insert(out->end(), stmts.begin(), stmts.end());
}

Stmt Rotate(const For& loop, const Chain& chain, passes::FreshNames& names) {
  const DataType type = loop.var->dtype();
  const Expr one = Int(1, type);
  const Expr previous = Op(BinaryOp::kSub, loop.var, one);
  const Expr last = Op(BinaryOp::kSub, Op(BinaryOp::kAdd, loop.min, loop.extent), one);

  // The first iteration up to G2, synchronously.
  std::vector<Stmt> first_half = chain.a;
  first_half.push_back(chain.first);
  Append(&first_half, chain.r1);
  // X in its original order: nothing is in flight yet.
  Append(&first_half, chain.x);
  std::vector<Stmt> out = At(first_half, loop.var, loop.min, names);

  // The steady state.
  std::vector<Stmt> body = chain.a;
  body.push_back(Evaluate::MakeVoidCall(kGemmWgmmaAsyncIntrinsic, chain.g1->args));
  std::vector<Stmt> issue_g2 = chain.w2;
  issue_g2.push_back(Evaluate::MakeVoidCall(kGemmWgmmaRegisterAAsyncIntrinsic, chain.g2->args));
  Append(&body, At(issue_g2, loop.var, previous, names));
  body.push_back(Evaluate::MakeVoidCall(kWgmmaWaitIntrinsic,
                                        {chain.g1->args[2], Int(1), Int(chain.s_registers)}));
  Append(&body, chain.r1);
  Append(&body, chain.x1);
  body.push_back(Evaluate::MakeVoidCall(kWgmmaWaitIntrinsic,
                                        {chain.g2->args[2], Int(0), Int(chain.o_registers)}));
  body.push_back(Evaluate::MakeVoidCall(kWgmmaFenceOperandIntrinsic,
                                        {chain.g2->args[0], Int(chain.p_registers)}));
  Append(&body, At(chain.r2, loop.var, previous, names));
  Append(&body, chain.x2);
  out.push_back(For::Make(loop.var, Op(BinaryOp::kAdd, loop.min, one),
                          Op(BinaryOp::kSub, loop.extent, one), loop.for_kind,
                          Seq::Make(std::move(body)), loop.loc(), loop.pipeline, loop.thread_axis));

  // The last iteration's G2, synchronously.
  std::vector<Stmt> second_half = chain.w2;
  second_half.push_back(chain.second);
  Append(&second_half, chain.r2);
  Append(&out, At(second_half, loop.var, last, names));
  return If::Make(Op(BinaryOp::kGt, loop.extent, Int(0, loop.extent->dtype())),
                  Seq::Make(std::move(out), loop.loc()), nullptr, loop.loc());
}

class Overlapper : public IRMutator {
 public:
  Overlapper(const KernelNode& kernel, std::vector<std::string>* remarks)
      : kernel_(kernel), names_(kernel), remarks_(remarks) {}
  using IRMutator::Mutate;

 protected:
  Stmt MutateFor(const For& node, const Stmt& self) override {
    std::string why_not;
    std::optional<Chain> chain = FindChain(node, &why_not);
    const std::string loop = absl::StrCat("overlap-gemm-chains: kernel '", kernel_.name,
                                          "': loop '", node.var->name, "' ");
    if (chain) {
      if (remarks_ != nullptr) {
        remarks_->push_back(absl::StrCat(loop, "issues each iteration's ", chain->g1->name,
                                         " with the previous iteration's ", chain->g2->name,
                                         ", whose wait follows ", chain->x1.size(),
                                         " statements of register work"));
      }
      return Rotate(node, *chain, names_);
    }
    if (!why_not.empty() && remarks_ != nullptr) {
      remarks_->push_back(absl::StrCat(loop, "runs its two gemms in turn: ", why_not));
    }
    return IRMutator::MutateFor(node, self);
  }

 private:
  const KernelNode& kernel_;
  passes::FreshNames names_;
  std::vector<std::string>* remarks_;
};

}  // namespace

Kernel OverlapGemmChains(const Kernel& kernel, std::vector<std::string>* remarks) {
  Stmt body = Overlapper(*kernel, remarks).Mutate(kernel->body);
  if (body == kernel->body) return kernel;
  return KernelNode::Make(kernel->name, kernel->dims, kernel->params, kernel->launch,
                          std::move(body), kernel->loc, kernel->requirements);
}

passes::PassInfo OverlapGemmChainsPass() {
  passes::PassInfo info;
  info.name = "overlap-gemm-chains";
  info.description =
      "rotates a consumer loop that chains two wgmma gemms through registers (an attention's "
      "Q K^T and P V) so that each iteration issues its first gemm with the previous "
      "iteration's second, and runs its register work while that one does";
  info.run_kernel = CudaPass([](const CudaTargetInfo* cuda, const passes::PassOptions& options)
                                 -> absl::StatusOr<passes::KernelRewrite> {
    if (cuda == nullptr || !cuda->overlaps_gemm_chains()) {
      return passes::KernelRewrite([](const Kernel& kernel) { return kernel; });
    }
    return passes::KernelRewrite([&options](const Kernel& kernel) {
      std::vector<std::string> remarks;
      Kernel result = OverlapGemmChains(kernel, &remarks);
      for (std::string& line : remarks) options.Remark(std::move(line));
      return result;
    });
  });
  return info;
}

}  // namespace tile_ir::cuda
