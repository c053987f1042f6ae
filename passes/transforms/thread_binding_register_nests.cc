// Binding with several threads per block: the fast form of a parallel nest that touches
// fragments, where each thread walks its own registers in an unrolled loop instead of
// walking the whole nest (see Binder::RegisterNest).
#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "passes/analysis/arith/expr_simplifier.h"
#include "passes/analysis/fragment_layout.h"
#include "passes/transforms/thread_binding_binder.h"
#include "passes/transforms/thread_binding_internal.h"
#include "passes/transforms/thread_binding_placement.h"
#include "tile_ir/mutator.h"

namespace tile_ir::passes::thread_binding {
namespace {

// A fragment access of the nest's body: its (owner, register) expressions and the box of
// loop variables (the nest's and those of constant inner loops they mention) to enumerate
// them over.
struct FragmentAccess {
  const void* node;
  const BufferLoad* load;  // null for a store
  Expr owner;
  Expr reg;
  std::vector<VarRange> box;
  // A replicated fragment's: `owner` names `replica` (count copies) until the nest binds it.
  VarRef replica;
  int64_t replicate = 1;
};

// Every fragment access of a body with these contents, stores first.
std::vector<FragmentAccess> FragmentAccesses(const FragmentMap& fragments, const Contents& contents,
                                             const std::vector<VarRange>& domain) {
  std::vector<FragmentAccess> accesses;
  auto add = [&](const void* node, const BufferLoad* load, const Buffer& buffer,
                 const std::vector<Expr>& indices) {
    const Layout& layout = fragments.at(buffer.get()).layout;
    std::vector<Expr> place = ApplyLayout(layout, ToI32(indices));
    FragmentAccess access{node, load, place[0], place[1], domain, layout.replica, layout.replicate};
    for (const VarRange& range : contents.constant_loops) {
      if (Mentions(place[0], range.var) || Mentions(place[1], range.var)) {
        access.box.push_back(range);
      }
    }
    accesses.push_back(std::move(access));
  };
  for (const Store* store : contents.fragment_stores) {
    add(store, nullptr, store->buffer, store->indices);
  }
  for (const BufferLoad* load : contents.fragment_loads) {
    add(load, load, load->buffer, load->indices);
  }
  return accesses;
}

// The variables of the loops inside `body`.
absl::flat_hash_map<const Var*, VarRef> InnerLoopVars(const Stmt& body) {
  class Finder : public IRVisitor {
   public:
    using IRVisitor::Visit;
    absl::flat_hash_map<const Var*, VarRef> vars;

   protected:
    void VisitFor(const For& node) override {
      vars[node.var.get()] = node.var;
      IRVisitor::VisitFor(node);
    }
  };
  Finder finder;
  finder.Visit(body);
  return finder.vars;
}

// How much `reg` grows per step of each inner loop, from the start of `box`; nullopt where
// it cannot be evaluated there.
std::optional<std::vector<int64_t>> InnerLoopSteps(const Expr& reg,
                                                   const std::vector<VarRange>& box,
                                                   const std::vector<VarRange>& inner_loops) {
  std::vector<int64_t> steps(inner_loops.size(), 0);
  IntEnv start;
  for (const VarRange& range : box) start[range.var] = range.min;
  std::optional<int64_t> at_start = EvaluateInt(reg, start);
  if (!at_start) return std::nullopt;
  for (size_t k = 0; k < inner_loops.size(); ++k) {
    if (inner_loops[k].extent < 2) continue;
    IntEnv next = start;
    next[inner_loops[k].var] = inner_loops[k].min + 1;
    std::optional<int64_t> at_next = EvaluateInt(reg, next);
    if (!at_next) return std::nullopt;
    steps[k] = *at_next - *at_start;
  }
  return steps;
}

// Where a fragment access of the fast form finds its register.
struct AccessRegister {
  // A load of elements that threads other than the primary access's hold: it reads the
  // fragment's shared mirror, as in the generic form.
  bool mirrored = false;
  // The register as a function of the round (`round`) plus a fixed multiple of each inner
  // loop's offset; nullptr where the layout's expression stays.
  Expr reg;
};

// The register of `access` in the fast form. At every point of its box a store must sit on
// the thread that the primary access places the point on; a load that does not reads the
// mirror. nullopt where a store does not, or the access cannot be evaluated.
std::optional<AccessRegister> FindAccessRegister(
    const FragmentAccess& access, const std::vector<VarRange>& domain, const Placement& placement,
    const absl::flat_hash_map<const Var*, VarRef>& loop_vars, int64_t max_unrolled,
    const VarRef& round) {
  std::vector<VarRange> inner_loops(access.box.begin() + domain.size(), access.box.end());
  std::optional<std::vector<int64_t>> steps = InnerLoopSteps(access.reg, access.box, inner_loops);
  if (!steps) return std::nullopt;
  std::vector<std::optional<int64_t>> by_register(placement.registers);
  bool function = true;
  bool on_primary_thread = true;
  int64_t base = 0;
  // The box's own slots, then the replica index where the access has one.
  std::vector<const Var*> slots = BoxSlots(access.box);
  const IntProgram reg_at(access.reg, slots);
  if (access.replica) slots.push_back(access.replica.get());
  const IntProgram owner_at(access.owner, slots);
  std::vector<int64_t> at(slots.size());
  // Where each of `domain`'s variables sits in the box.
  std::vector<size_t> domain_slot;
  for (const VarRange& range : domain) {
    domain_slot.push_back(std::find(slots.begin(), slots.end(), range.var) - slots.begin());
    if (domain_slot.back() >= access.box.size()) return std::nullopt;
  }
  bool ok = EnumerateBox(access.box, kMaxPoints, [&](absl::Span<const int64_t> values, int64_t) {
    int64_t point = 0;
    for (size_t d = 0; d < domain.size(); ++d) {
      point = point * domain[d].extent + (values[domain_slot[d]] - domain[d].min);
    }
    std::copy(values.begin(), values.end(), at.begin());
    std::optional<int64_t> t;
    if (access.replica) {
      // A load of a replicated element reads whichever copy is on the walking thread.
      for (int64_t k = 0; k < access.replicate && t != placement.point_thread[point]; ++k) {
        at.back() = k;
        t = owner_at.Run(at);
      }
    } else {
      t = owner_at.Run(at);
    }
    std::optional<int64_t> reg = reg_at.Run(values);
    if (!t || !reg) return false;
    if (*t != placement.point_thread[point]) {
      on_primary_thread = false;
      return false;
    }
    int64_t shift = 0;
    bool first = true;
    for (size_t k = 0; k < inner_loops.size(); ++k) {
      int64_t offset = values[domain.size() + k] - inner_loops[k].min;
      shift += (*steps)[k] * offset;
      first &= offset == 0;
    }
    if (first) {  // inner loops at their start: comes first for each point
      base = *reg;
      std::optional<int64_t>& slot = by_register[placement.point_register[point]];
      if (slot && *slot != *reg) function = false;
      slot = *reg;
    } else if (*reg != base + shift) {
      function = false;
    }
    return true;
  });
  if (!ok && !on_primary_thread && access.load != nullptr) return AccessRegister{true, nullptr};
  if (!ok) return std::nullopt;
  Expr reg = function ? RegisterTable(by_register, max_unrolled, round) : nullptr;
  for (size_t k = 0; reg && k < inner_loops.size(); ++k) {
    if ((*steps)[k] == 0) continue;
    auto found = loop_vars.find(inner_loops[k].var);
    if (found == loop_vars.end()) return AccessRegister{false, nullptr};
    Expr offset = Op(BinaryOp::kSub, AsI32(found->second), Int(inner_loops[k].min));
    reg = Op(BinaryOp::kAdd, reg, Op(BinaryOp::kMul, Int((*steps)[k]), offset));
  }
  return AccessRegister{false, reg ? arith::SimplifyExpr(reg) : nullptr};
}

}  // namespace

std::optional<Stmt> Binder::RegisterNest(const For& root, const Stmt& site) {
  std::optional<ParallelBox> box = FindParallelBox(root);
  if (!box) return std::nullopt;
  const std::vector<VarRange>& domain = box->domain;
  const Stmt& body = box->chain.back()->body;
  Contents contents = Scan(body);
  if (contents.parallel || contents.thread_bound || contents.barrier || contents.tile_op ||
      !contents.fragment() || !FragmentsPassedWhole(body).empty()) {
    return std::nullopt;
  }
  std::vector<FragmentAccess> accesses = FragmentAccesses(fragments_, contents, domain);
  // A nest that writes a replicated fragment runs once per copy: the copies become one more
  // parallel dimension of the box (a loop of its own, over a fresh variable), and every
  // replicated store follows the first one's replica. A nest that only reads one reads copy 0.
  Stmt replica_loop;
  if (accesses.front().replica) {
    FragmentAccess& first = accesses.front();
    if (first.load != nullptr) {
      first.owner = arith::SimplifyExpr(SubstituteVar(first.owner, first.replica.get(), Int(0)));
      first.replica = nullptr;
    } else {
      VarRef copy = Var::Make(names_.Fresh("replica"), root.var->dtype());
      replica_loop = For::Make(copy, Int(0, copy->dtype()), Int(first.replicate, copy->dtype()),
                               ForKind::kParallel, body, root.loc());
      VarRange range{copy.get(), 0, first.replicate};
      box->chain.push_back(As<For>(replica_loop));
      box->domain.push_back(range);
      box->total *= first.replicate;
      const int64_t count = first.replicate;
      for (FragmentAccess& access : accesses) {
        // Every access is enumerated over the whole box, the copies' dimension included.
        access.box.insert(access.box.begin() + domain.size() - 1, range);
        if (access.load != nullptr || !access.replica) continue;
        if (access.replicate != count) return std::nullopt;
        access.owner = SubstituteVar(access.owner, access.replica.get(), AsI32(copy));
        access.replica = nullptr;
      }
    }
  }
  for (const FragmentAccess& access : accesses) {
    // A replicated store in a nest placed by an unreplicated access would write one copy.
    if (access.load == nullptr && access.replica) return std::nullopt;
  }
  // The placement of each point of the box by the first access.
  const FragmentAccess& primary = accesses.front();
  if (primary.box.size() != domain.size()) return std::nullopt;
  std::optional<Placement> placement = FindPlacement(primary.owner, primary.reg, *box, threads_);
  if (!placement) return std::nullopt;
  std::optional<AffinePlacement> affine = FindAffine(*placement, threads_, box->total);
  std::optional<Separable> separable;
  if (!affine) {
    separable = FindSeparable(domain, placement->owned, placement->registers, threads_);
    if (!separable) return std::nullopt;
  }
  const int64_t max_unrolled = affine ? kMaxUnrolled : kMaxSeparableUnrolled;
  // Register tables are built before the round variable exists, over this stand-in.
  VarRef placeholder = Var::Make("__round");
  absl::flat_hash_map<const Var*, VarRef> loop_vars = InnerLoopVars(body);
  std::vector<const BufferLoad*> mirrored;
  std::vector<Expr> access_registers;
  for (const FragmentAccess& access : accesses) {
    std::optional<AccessRegister> found =
        FindAccessRegister(access, domain, *placement, loop_vars, max_unrolled, placeholder);
    if (!found) return std::nullopt;
    if (found->mirrored) mirrored.push_back(access.load);
    access_registers.push_back(found->reg);
  }
  for (const BufferLoad* load : mirrored) {
    for (const Store* store : contents.fragment_stores) {
      if (store->buffer == load->buffer) return std::nullopt;  // Nest() reports it
    }
  }
  DataType type = FlatIndexType(root);
  VarRef round = Var::Make(names_.Fresh("r"), type);
  for (size_t k = 0; k < accesses.size(); ++k) {
    if (!access_registers[k]) continue;
    register_override_[accesses[k].node] =
        SubstituteVar(access_registers[k], placeholder.get(), round);
  }
  for (const BufferLoad* load : mirrored) {
    RequestMirror(load->buffer.get(), site);
    via_mirror_.insert(load);
  }
  Expr thread = thread_->dtype() == type ? thread_ : Cast::Make(type, thread_);
  bool registers_known = std::all_of(access_registers.begin(), access_registers.end(),
                                     [](const Expr& reg) { return reg != nullptr; });
  if (separable) {
    return SeparableNest(root, *box, *separable, body, round, thread, registers_known);
  }
  return AffineNest(root, *box, *affine, placement->registers, body, round, thread,
                    registers_known);
}

Stmt Binder::AffineNest(const For& root, const ParallelBox& box, const AffinePlacement& form,
                        int64_t registers, const Stmt& body, const VarRef& round,
                        const Expr& thread, bool registers_known) {
  if (registers_known) {
    if (int64_t run = VectorRunLength(box, form, registers, body, round); run > 1) {
      return VectorRunNest(root, box, form, registers, body, round, thread, run);
    }
  }
  DataType type = FlatIndexType(root);
  std::optional<Expr> progression = Progression(form.offset, round, type);
  Expr b = progression ? *progression : SelectChain(form.offset, round, type);
  // The body at the element e.
  VarRef element = Var::Make(names_.Fresh("e"), type);
  Expr first =
      arith::SimplifyExpr(Op(BinaryOp::kAdd, Op(BinaryOp::kMul, Int(form.a, type), thread), b));
  std::vector<Stmt> inner;
  int64_t stride = 1;
  for (size_t d = box.chain.size(); d-- > 0;) {
    Expr position = stride > 1 ? Op(BinaryOp::kDiv, element, Int(stride, type)) : Expr(element);
    if (d > 0) position = Op(BinaryOp::kMod, position, Int(box.domain[d].extent, type));
    const For& loop = *box.chain[d];
    Expr value = Op(BinaryOp::kAdd, Int(box.domain[d].min, type), position);
    if (loop.var->dtype() != type) value = Cast::Make(loop.var->dtype(), value);
    inner.insert(inner.begin(), Let::Make(loop.var, arith::SimplifyExpr(value), loop.loc()));
    stride *= box.domain[d].extent;
  }
  std::vector<Stmt> rewritten = RewriteFastBody(body);
  inner.insert(inner.end(), rewritten.begin(), rewritten.end());
  std::vector<Stmt> stmts = {Let::Make(element, first, root.loc())};
  if (form.guard) {
    stmts.push_back(If::Make(Op(BinaryOp::kLt, element, Int(box.total, type)),
                             Seq::Make(std::move(inner), root.loc()), nullptr, root.loc()));
  } else {
    stmts.insert(stmts.end(), inner.begin(), inner.end());
  }
  ForKind kind = registers <= kMaxUnrolled ? ForKind::kUnrolled : ForKind::kSerial;
  return For::Make(round, Int(0, type), Int(registers, type), kind,
                   Seq::Make(std::move(stmts), root.loc()), root.loc());
}

Stmt Binder::SeparableNest(const For& root, const ParallelBox& box, const Separable& form,
                           const Stmt& body, const VarRef& round, const Expr& thread,
                           bool registers_known) {
  if (registers_known) {
    if (int64_t run = VectorRunLength(box, form, body, round); run > 1) {
      return VectorRunNest(root, box, form, body, round, thread, run);
    }
  }
  DataType type = FlatIndexType(root);
  std::vector<Stmt> stmts;
  Expr in_box;
  for (size_t d = 0; d < box.chain.size(); ++d) {
    const For& loop = *box.chain[d];
    const VarRange& range = box.domain[d];
    std::vector<std::optional<int64_t>> q(form.q[d].begin(), form.q[d].end());
    std::optional<Expr> progression = Progression(q, round, type);
    Expr value = Op(BinaryOp::kAdd, BitLinear(form.bits[d], thread, type),
                    progression ? *progression : SelectChain(q, round, type));
    value = arith::SimplifyExpr(value);
    if (loop.var->dtype() != type) value = Cast::Make(loop.var->dtype(), value);
    stmts.push_back(Let::Make(loop.var, arith::SimplifyExpr(value), loop.loc()));
    DataType var_type = loop.var->dtype();
    auto add = [&](Expr cond) { in_box = in_box ? Op(BinaryOp::kAnd, in_box, cond) : cond; };
    if (form.guard_low[d]) add(Op(BinaryOp::kGe, loop.var, Int(range.min, var_type)));
    if (form.guard_high[d]) {
      add(Op(BinaryOp::kLt, loop.var, Int(range.min + range.extent, var_type)));
    }
  }
  std::vector<Stmt> inner = RewriteFastBody(body);
  if (in_box) {
    stmts.push_back(If::Make(in_box, Seq::Make(std::move(inner), root.loc()), nullptr, root.loc()));
  } else {
    stmts.insert(stmts.end(), inner.begin(), inner.end());
  }
  return For::Make(round, Int(0, type), Int(static_cast<int64_t>(form.q[0].size()), type),
                   ForKind::kUnrolled, Seq::Make(std::move(stmts), root.loc()), root.loc());
}

std::vector<Stmt> Binder::RewriteFastBody(const Stmt& body) {
  Stmt rewritten = Mutate(body);
  register_override_.clear();
  via_mirror_.clear();
  if (const Seq* seq = As<Seq>(rewritten)) return seq->stmts;
  return {rewritten};
}

}  // namespace tile_ir::passes::thread_binding
