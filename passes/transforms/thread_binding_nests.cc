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
#include "passes/analysis/fragment_layout.h"
#include "passes/transforms/simplify.h"
#include "passes/transforms/thread_binding_internal.h"
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
         int vector_bytes, FreshNames& names)
      : kernel_(kernel),
        threads_(threads),
        fragments_(std::move(fragments)),
        thread_(std::move(thread)),
        vector_bytes_(vector_bytes),
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
          if (Scan(s).fragment()) {
            if (std::optional<Stmt> fast = RegisterNest(loop)) return *std::move(fast);
            return Nest(s);
          }
          absl::StatusOr<Stmt> dealt = DealCyclically(kernel_, loop, threads_, thread_, vector_bytes_, names_);
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
      case StmtKind::kStore: return Guarded({s}, s);
      case StmtKind::kLet: {
        const Let& let = *As<Let>(s);
        return Let::Make(let.var, ReadViaMirrors(let.value, s), let.loc());
      }
      case StmtKind::kEvaluate:
        return Evaluate::Make(ReadViaMirrors(As<Evaluate>(s)->value, s), s->loc());
      case StmtKind::kAllocate: return Mutate(s);
      case StmtKind::kBarrier: return s;
      default: return Fail(s, "tile operations must be lowered first (run lower-tile-ops)");
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
    auto fixed = register_override_.find(&node);
    return BufferLoad::Make(it->second.local,
                            {fixed != register_override_.end()
                                 ? fixed->second
                                 : Register(it->second, As<BufferLoad>(result)->indices)});
  }
  Stmt MutateStore(const Store& node, const Stmt& self) override {
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

  // The fast form of a nest that touches fragments (nullopt where it does not apply, and the
  // generic form of Nest() follows): a perfect nest of parallel loops over a constant box
  // whose body holds no parallel loop, where every fragment access of an element sits on
  // the thread that the first fragment store (or else load) places the element on, and that
  // placement, an injective map from the box to (thread t, register r), reads back as
  // linear index = A * t + B[r] (A >= 0, B increasing, so each thread visits its elements
  // in the order the nest did). Each thread then walks its own registers:
  //   for r in 0 +: R unrolled { let e = A * tx + B_r; [if (e < total)] { let i = ...; BODY } }
  // with B_r = B0 + r * D where B is an arithmetic progression, a select chain over r
  // otherwise (R <= kMaxUnrolled), and register indices r (or a function of r) where an
  // access's register depends on r alone. Where the placement is not of that form but
  // separable and bit-linear in the thread (FindSeparable), the loop is SeparableNest's.
  std::optional<Stmt> RegisterNest(const For& root) {
    constexpr int64_t kMaxPoints = int64_t{1} << 20;
    constexpr int64_t kMaxRegisters = 1 << 12;
    constexpr int64_t kMaxUnrolled = 64;
    std::vector<const For*> chain = {&root};
    while (true) {
      const Stmt& body = chain.back()->body;
      const Seq* seq = As<Seq>(body);
      const For* inner = As<For>(seq && seq->stmts.size() == 1 ? seq->stmts[0] : body);
      if (inner == nullptr || inner->for_kind != ForKind::kParallel) break;
      chain.push_back(inner);
    }
    std::vector<VarRange> domain;
    int64_t total = 1;
    for (const For* loop : chain) {
      std::optional<int64_t> min = AsConstInt(loop->min);
      std::optional<int64_t> extent = AsConstInt(loop->extent);
      if (!min || !extent || *extent <= 0 || total > kMaxPoints / *extent) return std::nullopt;
      domain.push_back({loop->var.get(), *min, *extent});
      total *= *extent;
    }
    const Stmt& body = chain.back()->body;
    Contents contents = Scan(body);
    if (contents.parallel || contents.thread_bound || contents.barrier || contents.tile_op ||
        !contents.fragment() || !FragmentsPassedWhole(body).empty()) {
      return std::nullopt;
    }
    // Every fragment access: (owner, register) expressions and the box of loop variables
    // (the nest's and those of constant inner loops they mention) to enumerate them over.
    struct Access {
      const void* node;
      const BufferLoad* load;  // null for a store
      Expr owner;
      Expr reg;
      std::vector<VarRange> box;
    };
    std::vector<Access> accesses;
    auto add = [&](const void* node, const BufferLoad* load, const Buffer& buffer,
                   const std::vector<Expr>& indices) {
      std::vector<Expr> place = ApplyLayout(fragments_.at(buffer.get()).layout, ToI32(indices));
      Access access{node, load, place[0], place[1], domain};
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
    // The placement of each point of the box (row-major linear index) by the first access.
    const Access& primary = accesses.front();
    if (primary.box.size() != domain.size()) return std::nullopt;
    std::vector<int64_t> point_thread(total), point_register(total);
    int64_t registers = 0;
    bool ok = EnumerateBox(domain, kMaxPoints, [&](const IntEnv& env, int64_t point) {
      std::optional<int64_t> t = EvaluateInt(primary.owner, env);
      std::optional<int64_t> r = EvaluateInt(primary.reg, env);
      if (!t || !r || *t < 0 || *t >= threads_ || *r < 0 || *r >= kMaxRegisters) return false;
      point_thread[point] = *t;
      point_register[point] = *r;
      registers = std::max(registers, *r + 1);
      return true;
    });
    if (!ok || registers * threads_ > kMaxPoints) return std::nullopt;
    std::vector<int64_t> owned(registers * threads_, -1);  // (t, r) -> point
    for (int64_t point = 0; point < total; ++point) {
      int64_t& slot = owned[point_register[point] * threads_ + point_thread[point]];
      if (slot >= 0) return std::nullopt;
      slot = point;
    }
    // The affine form: A from any register held by two threads; B[r] from its first holder.
    int64_t a = 0;
    bool guard = false;
    std::vector<std::optional<int64_t>> offset(registers);
    auto find_affine = [&]() -> bool {
      std::optional<int64_t> slope;
      for (int64_t r = 0; r < registers && !slope; ++r) {
        int64_t first = -1;
        for (int64_t t = 0; t < threads_ && !slope; ++t) {
          int64_t point = owned[r * threads_ + t];
          if (point < 0) continue;
          if (first < 0) {
            first = t;
          } else {
            int64_t rise = point - owned[r * threads_ + first];
            if (rise % (t - first) != 0) return false;
            slope = rise / (t - first);
          }
        }
      }
      if (!slope || *slope < 0) return false;
      a = *slope;
      for (int64_t r = 0; r < registers; ++r) {
        for (int64_t t = 0; t < threads_; ++t) {
          int64_t point = owned[r * threads_ + t];
          if (point >= 0 && !offset[r]) offset[r] = point - a * t;
          if (point >= 0 && point != a * t + *offset[r]) return false;
        }
        if (!offset[r]) {
          guard = true;
          continue;
        }
        for (int64_t t = 0; t < threads_; ++t) {
          if (owned[r * threads_ + t] >= 0) continue;
          if (a * t + *offset[r] < total) return false;
          guard = true;
        }
      }
      std::optional<int64_t> previous;
      for (int64_t r = 0; r < registers; ++r) {
        if (!offset[r]) continue;
        if (previous && *offset[r] <= *previous) return false;
        previous = offset[r];
      }
      DataType type = root.var->dtype();
      std::vector<std::optional<int64_t>> table = offset;
      for (std::optional<int64_t>& b : table) {
        if (!b) b = total;
      }
      return registers <= kMaxUnrolled || Progression(table, Placeholder(), type).has_value();
    };
    const bool affine = find_affine();
    std::optional<Separable> separable;
    if (!affine) {
      separable = FindSeparable(domain, owned, registers);
      if (!separable) return std::nullopt;
    }
    const int64_t max_unrolled = affine ? kMaxUnrolled : kMaxSeparableUnrolled;
    // Every access on the primary's thread; its register as a function of r where it is one.
    // Every store on the primary's thread, and every load, or else (as in the generic form)
    // read from the fragment's shared mirror; its register as a function of r plus a fixed
    // multiple of each inner loop's offset where it is one (the layout's expression stays
    // otherwise).
    std::vector<const BufferLoad*> mirrored;
    absl::flat_hash_map<const Var*, VarRef> loop_vars = InnerLoopVars(body);
    std::vector<Expr> access_registers;
    for (const Access& access : accesses) {
      std::vector<VarRange> inner_loops(access.box.begin() + domain.size(), access.box.end());
      std::vector<int64_t> coefficients(inner_loops.size(), 0);
      IntEnv start;
      for (const VarRange& range : access.box) start[range.var] = range.min;
      std::optional<int64_t> at_start = EvaluateInt(access.reg, start);
      if (!at_start) return std::nullopt;
      for (size_t k = 0; k < inner_loops.size(); ++k) {
        if (inner_loops[k].extent < 2) continue;
        IntEnv next = start;
        next[inner_loops[k].var] = inner_loops[k].min + 1;
        std::optional<int64_t> at_next = EvaluateInt(access.reg, next);
        if (!at_next) return std::nullopt;
        coefficients[k] = *at_next - *at_start;
      }
      std::vector<std::optional<int64_t>> by_register(registers);
      bool function = true;
      int64_t base = 0;
      bool ok = EnumerateBox(access.box, kMaxPoints, [&](const IntEnv& env, int64_t) {
        int64_t point = 0;
        for (const VarRange& range : domain) {
          point = point * range.extent + (env.at(range.var) - range.min);
        }
        std::optional<int64_t> t = EvaluateInt(access.owner, env);
        std::optional<int64_t> reg = EvaluateInt(access.reg, env);
        if (!t || !reg) return false;
        if (*t != point_thread[point]) {
          if (access.load) mirrored.push_back(access.load);
          return false;
        }
        int64_t shift = 0;
        bool first = true;
        for (size_t k = 0; k < inner_loops.size(); ++k) {
          int64_t offset = env.at(inner_loops[k].var) - inner_loops[k].min;
          shift += coefficients[k] * offset;
          first &= offset == 0;
        }
        if (first) {  // inner loops at their start: comes first for each point
          base = *reg;
          std::optional<int64_t>& slot = by_register[point_register[point]];
          if (slot && *slot != *reg) function = false;
          slot = *reg;
        } else if (*reg != base + shift) {
          function = false;
        }
        return true;
      });
      if (!ok && !mirrored.empty() && mirrored.back() == access.load) {
        access_registers.push_back(nullptr);
        continue;
      }
      if (!ok) return std::nullopt;
      Expr reg = function ? RegisterTable(by_register, max_unrolled) : nullptr;
      for (size_t k = 0; reg && k < inner_loops.size(); ++k) {
        if (coefficients[k] == 0) continue;
        auto found = loop_vars.find(inner_loops[k].var);
        if (found == loop_vars.end()) {
          reg = nullptr;
          break;
        }
        Expr offset = Op(BinaryOp::kSub, AsI32(found->second), Int(inner_loops[k].min));
        reg = Op(BinaryOp::kAdd, reg, Op(BinaryOp::kMul, Int(coefficients[k]), offset));
      }
      access_registers.push_back(reg ? SimplifyExpr(reg) : nullptr);
    }
    for (const BufferLoad* load : mirrored) {
      for (const Store* store : contents.fragment_stores) {
        if (store->buffer == load->buffer) return std::nullopt;  // Nest() reports it
      }
    }
    DataType type = root.var->dtype();
    VarRef round = Var::Make(names_.Fresh("r"), type);
    for (size_t k = 0; k < accesses.size(); ++k) {
      if (!access_registers[k]) continue;
      register_override_[accesses[k].node] = SubstituteRound(access_registers[k], round);
    }
    for (const BufferLoad* load : mirrored) {
      RequestMirror(load->buffer.get());
      via_mirror_.insert(load);
    }
    Expr thread = thread_->dtype() == type ? thread_ : Cast::Make(type, thread_);
    if (separable) return SeparableNest(root, chain, domain, *separable, body, round, thread);
    std::vector<std::optional<int64_t>> table = offset;
    for (std::optional<int64_t>& b : table) {
      if (!b) b = total;  // no thread holds register r: e >= total fails the guard
    }
    std::optional<Expr> progression = Progression(table, round, type);
    Expr b = progression ? *progression : SelectChain(table, round, type);
    // The body at the element e.
    VarRef element = Var::Make(names_.Fresh("e"), type);
    Expr first = SimplifyExpr(Op(BinaryOp::kAdd, Op(BinaryOp::kMul, Int(a, type), thread), b));
    std::vector<Stmt> inner;
    int64_t stride = 1;
    for (size_t d = chain.size(); d-- > 0;) {
      Expr position = stride > 1 ? Op(BinaryOp::kDiv, element, Int(stride, type)) : Expr(element);
      if (d > 0) position = Op(BinaryOp::kMod, position, Int(domain[d].extent, type));
      const For& loop = *chain[d];
      Expr value = Op(BinaryOp::kAdd, Int(domain[d].min, type), position);
      if (loop.var->dtype() != type) value = Cast::Make(loop.var->dtype(), value);
      inner.insert(inner.begin(), Let::Make(loop.var, SimplifyExpr(value), loop.loc()));
      stride *= domain[d].extent;
    }
    Stmt rewritten = Mutate(body);
    register_override_.clear();
    via_mirror_.clear();
    if (const Seq* seq = As<Seq>(rewritten)) {
      inner.insert(inner.end(), seq->stmts.begin(), seq->stmts.end());
    } else {
      inner.push_back(rewritten);
    }
    std::vector<Stmt> stmts = {Let::Make(element, first, root.loc())};
    if (guard) {
      stmts.push_back(If::Make(Op(BinaryOp::kLt, element, Int(total, type)),
                               Seq::Make(std::move(inner), root.loc()), nullptr, root.loc()));
    } else {
      stmts.insert(stmts.end(), inner.begin(), inner.end());
    }
    ForKind kind = registers <= kMaxUnrolled ? ForKind::kUnrolled : ForKind::kSerial;
    return For::Make(round, Int(0, type), Int(registers, type), kind,
                     Seq::Make(std::move(stmts), root.loc()), root.loc());
  }

  // The separable form always unrolls: it exists for layouts (tensor-core accumulators)
  // whose register arrays nvcc keeps in registers only when every index is a constant after
  // unrolling; one access indexed at run time anywhere sends the whole array to local memory.
  static constexpr int64_t kMaxSeparableUnrolled = 256;

  // A placement whose coordinates are separable and bit-linear: for each dimension d of the
  // nest, coord_d(t, r) = P_d(t) + Q_d(r) with P_d(t) = sum over bits b of t of
  // bits[d][b] * ((t >> b) & 1) (T a power of two).
  struct Separable {
    std::vector<std::vector<int64_t>> bits;  // [d][b]
    std::vector<std::vector<int64_t>> q;     // [d][r]
    // Dimensions whose coordinate leaves the box below / above at a (t, r) holding nothing.
    std::vector<bool> guard_low;
    std::vector<bool> guard_high;
  };

  // The separable form of the placement `owned` ((t, r) -> row-major point of `domain`, -1
  // where (t, r) holds nothing), checked at every (t, r); nullopt where it does not apply
  // (T not a power of two, more than kMaxSeparableUnrolled registers, no register held by
  // every thread, coordinates not of that form, or a (t, r) holding nothing whose
  // coordinates land inside the box).
  std::optional<Separable> FindSeparable(const std::vector<VarRange>& domain,
                                         const std::vector<int64_t>& owned,
                                         int64_t registers) const {
    const int64_t t_count = threads_;
    if (registers > kMaxSeparableUnrolled || t_count < 1 || (t_count & (t_count - 1)) != 0) {
      return std::nullopt;
    }
    int log_t = 0;
    while ((int64_t{1} << log_t) < t_count) ++log_t;
    const size_t dims = domain.size();
    auto coords_of = [&](int64_t point) {
      std::vector<int64_t> c(dims);
      for (size_t d = dims; d-- > 0;) {
        c[d] = domain[d].min + point % domain[d].extent;
        point /= domain[d].extent;
      }
      return c;
    };
    int64_t full = -1;
    for (int64_t r = 0; r < registers && full < 0; ++r) {
      bool all = true;
      for (int64_t t = 0; t < t_count && all; ++t) all = owned[r * t_count + t] >= 0;
      if (all) full = r;
    }
    if (full < 0) return std::nullopt;
    // P_d(t) relative to thread 0, read off the fully held register.
    std::vector<std::vector<int64_t>> p(dims, std::vector<int64_t>(t_count));
    std::vector<int64_t> base = coords_of(owned[full * t_count]);
    for (int64_t t = 0; t < t_count; ++t) {
      std::vector<int64_t> c = coords_of(owned[full * t_count + t]);
      for (size_t d = 0; d < dims; ++d) p[d][t] = c[d] - base[d];
    }
    Separable result;
    result.bits.assign(dims, std::vector<int64_t>(log_t));
    for (size_t d = 0; d < dims; ++d) {
      for (int b = 0; b < log_t; ++b) result.bits[d][b] = p[d][int64_t{1} << b];
      for (int64_t t = 0; t < t_count; ++t) {
        int64_t sum = 0;
        for (int b = 0; b < log_t; ++b) sum += ((t >> b) & 1) * result.bits[d][b];
        if (sum != p[d][t]) return std::nullopt;
      }
    }
    // Q_d(r) from r's first holder; a register nobody holds is sent out of the box in
    // dimension 0 (above its end at every thread).
    result.q.assign(dims, std::vector<int64_t>(registers, 0));
    int64_t lowest_p0 = *std::min_element(p[0].begin(), p[0].end());
    for (int64_t r = 0; r < registers; ++r) {
      int64_t holder = -1;
      for (int64_t t = 0; t < t_count && holder < 0; ++t) {
        if (owned[r * t_count + t] >= 0) holder = t;
      }
      for (size_t d = 0; d < dims; ++d) {
        if (holder >= 0) {
          result.q[d][r] = coords_of(owned[r * t_count + holder])[d] - p[d][holder];
        } else {
          result.q[d][r] = d == 0 ? domain[0].min + domain[0].extent - lowest_p0 : domain[d].min;
        }
      }
    }
    result.guard_low.assign(dims, false);
    result.guard_high.assign(dims, false);
    for (int64_t r = 0; r < registers; ++r) {
      for (int64_t t = 0; t < t_count; ++t) {
        int64_t point = owned[r * t_count + t];
        if (point >= 0) {
          std::vector<int64_t> c = coords_of(point);
          for (size_t d = 0; d < dims; ++d) {
            if (c[d] != p[d][t] + result.q[d][r]) return std::nullopt;
          }
          continue;
        }
        bool outside = false;
        for (size_t d = 0; d < dims; ++d) {
          int64_t x = p[d][t] + result.q[d][r];
          if (x < domain[d].min) {
            result.guard_low[d] = true;
            outside = true;
          } else if (x >= domain[d].min + domain[d].extent) {
            result.guard_high[d] = true;
            outside = true;
          }
        }
        if (!outside) return std::nullopt;
      }
    }
    return result;
  }

  // P(thread): the sum of bits[b] * ((thread >> b) & 1), each run of bits whose coefficients
  // double (c, 2c, 4c, ...) one term c * (thread / 2^b0 % 2^len) (the division left out at
  // bit 0, the remainder at the top bit; the thread index is never negative).
  static Expr BitLinear(const std::vector<int64_t>& bits, const Expr& thread, DataType type) {
    const int log_t = static_cast<int>(bits.size());
    Expr sum;
    for (int b = 0; b < log_t;) {
      if (bits[b] == 0) {
        ++b;
        continue;
      }
      int len = 1;
      while (b + len < log_t && bits[b + len] == 2 * bits[b + len - 1]) ++len;
      Expr x = thread;
      if (b > 0) x = Op(BinaryOp::kDiv, x, Int(int64_t{1} << b, type));
      if (b + len < log_t) x = Op(BinaryOp::kMod, x, Int(int64_t{1} << len, type));
      Expr term = bits[b] == 1 ? x : Op(BinaryOp::kMul, x, Int(bits[b], type));
      sum = sum ? Op(BinaryOp::kAdd, sum, term) : term;
      b += len;
    }
    return sum ? sum : Int(0, type);
  }

  // The separable form: `for r in 0 +: R unrolled { let i = P_i(tx) + Q_i(r); ...;
  // [if (in the box)] { BODY } }`, register overrides and mirrors already set up.
  Stmt SeparableNest(const For& root, const std::vector<const For*>& chain,
                     const std::vector<VarRange>& domain, const Separable& form, const Stmt& body,
                     const VarRef& round, const Expr& thread) {
    DataType type = root.var->dtype();
    std::vector<Stmt> stmts;
    Expr in_box;
    for (size_t d = 0; d < chain.size(); ++d) {
      const For& loop = *chain[d];
      std::vector<std::optional<int64_t>> q(form.q[d].begin(), form.q[d].end());
      std::optional<Expr> progression = Progression(q, round, type);
      Expr value = Op(BinaryOp::kAdd, BitLinear(form.bits[d], thread, type),
                      progression ? *progression : SelectChain(q, round, type));
      value = SimplifyExpr(value);
      if (loop.var->dtype() != type) value = Cast::Make(loop.var->dtype(), value);
      stmts.push_back(Let::Make(loop.var, SimplifyExpr(value), loop.loc()));
      DataType var_type = loop.var->dtype();
      auto add = [&](Expr cond) { in_box = in_box ? Op(BinaryOp::kAnd, in_box, cond) : cond; };
      if (form.guard_low[d]) add(Op(BinaryOp::kGe, loop.var, Int(domain[d].min, var_type)));
      if (form.guard_high[d]) {
        add(Op(BinaryOp::kLt, loop.var, Int(domain[d].min + domain[d].extent, var_type)));
      }
    }
    Stmt rewritten = Mutate(body);
    register_override_.clear();
    via_mirror_.clear();
    std::vector<Stmt> inner;
    if (const Seq* seq = As<Seq>(rewritten)) {
      inner.insert(inner.end(), seq->stmts.begin(), seq->stmts.end());
    } else {
      inner.push_back(rewritten);
    }
    if (in_box) {
      stmts.push_back(
          If::Make(in_box, Seq::Make(std::move(inner), root.loc()), nullptr, root.loc()));
    } else {
      stmts.insert(stmts.end(), inner.begin(), inner.end());
    }
    return For::Make(round, Int(0, type), Int(static_cast<int64_t>(form.q[0].size()), type),
                     ForKind::kUnrolled, Seq::Make(std::move(stmts), root.loc()), root.loc());
  }

  // Calls visit(env, point) at every point of `box` in row-major order (point counting
  // them); false when it returned false or the box is too large.
  template <typename Visit>
  static bool EnumerateBox(const std::vector<VarRange>& box, int64_t limit, Visit visit) {
    int64_t size = 1;
    for (const VarRange& range : box) {
      if (range.extent <= 0) return true;
      if (size > limit / range.extent) return false;
      size *= range.extent;
    }
    IntEnv env;
    for (int64_t point = 0; point < size; ++point) {
      int64_t rest = point;
      for (size_t d = box.size(); d-- > 0;) {
        env[box[d].var] = box[d].min + rest % box[d].extent;
        rest /= box[d].extent;
      }
      if (!visit(env, point)) return false;
    }
    return true;
  }

  // The variables of the loops inside `body`.
  static absl::flat_hash_map<const Var*, VarRef> InnerLoopVars(const Stmt& body) {
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

  // A placeholder for the round variable in register tables built before it exists.
  const VarRef& Placeholder() {
    if (!placeholder_) placeholder_ = Var::Make("__round");
    return placeholder_;
  }
  Expr SubstituteRound(const Expr& e, const VarRef& round) {
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
    Replace replace(Placeholder().get(), round);
    return replace.Mutate(e);
  }

  // An access's register as an expression of the round variable (the placeholder): the
  // progression of its values, or a select chain where the loop unrolls; nullptr (the
  // layout's expression stays) otherwise. Registers no element reaches take any value.
  Expr RegisterTable(std::vector<std::optional<int64_t>> values, int64_t max_unrolled) {
    for (std::optional<int64_t>& v : values) {
      if (!v) v = 0;
    }
    std::optional<Expr> progression = Progression(values, Placeholder(), kI32);
    if (progression) return *progression;
    if (static_cast<int64_t>(values.size()) <= max_unrolled) {
      return SelectChain(values, Placeholder(), kI32);
    }
    return nullptr;
  }

  static std::optional<Expr> Progression(const std::vector<std::optional<int64_t>>& values,
                                         const VarRef& round, DataType type) {
    int64_t b0 = *values[0];
    int64_t d = values.size() > 1 ? *values[1] - b0 : 0;
    for (size_t r = 0; r < values.size(); ++r) {
      if (*values[r] != b0 + static_cast<int64_t>(r) * d) return std::nullopt;
    }
    Expr r = round->dtype() == type ? Expr(round) : Cast::Make(type, round);
    return SimplifyExpr(Op(BinaryOp::kAdd, Int(b0, type), Op(BinaryOp::kMul, r, Int(d, type))));
  }

  static Expr SelectChain(const std::vector<std::optional<int64_t>>& values, const VarRef& round,
                          DataType type) {
    Expr r = round->dtype() == type ? Expr(round) : Cast::Make(type, round);
    Expr chain = Int(*values.back(), type);
    for (size_t k = values.size() - 1; k-- > 0;) {
      chain = Select::Make(Op(BinaryOp::kEq, r, Int(static_cast<int64_t>(k), type)),
                           Int(*values[k], type), chain);
    }
    return chain;
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
  const int vector_bytes_;
  FreshNames& names_;
  absl::flat_hash_map<const BufferNode*, Buffer> mirrors_;
  std::vector<Buffer> mirror_list_;
  // Mirrors to fill before the statement being bound, and the fragment loads that the
  // statement being rewritten takes from mirrors.
  std::vector<const BufferNode*> fills_;
  absl::flat_hash_set<const BufferLoad*> via_mirror_;
  // The fragment loads of the expression being rewritten that pass fragments whole.
  absl::flat_hash_set<const BufferLoad*> passed_whole_;
  // Register indices of fragment accesses (loads and stores of the original body) that the
  // fast nest form fixes, and the stand-in for its round variable.
  absl::flat_hash_map<const void*, Expr> register_override_;
  VarRef placeholder_;
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
                                    FragmentMap fragments, Expr thread, int vector_bytes,
                                    FreshNames& names) {
  Binder binder(kernel, threads, std::move(fragments), std::move(thread), vector_bytes, names);
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
