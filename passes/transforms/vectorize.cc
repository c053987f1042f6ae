// Loop vectorization: rebuilds a vectorized loop's store with the loop variable as a ramp,
// tracking which subexpressions stay scalar, and gives up (serial loop) on anything else.
#include "passes/transforms/vectorize.h"

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "passes/analysis/arith/expr_simplifier.h"
#include "passes/analysis/fragment_layout.h"
#include "passes/utils/fresh_names.h"
#include "tile_ir/mutator.h"
#include "tile_ir/op_shorthand.h"
#include "tile_ir/structural_equal.h"
#include "tile_ir/visitor.h"

namespace tile_ir::passes {
namespace {

// Each accessed buffer must be dense in its last dimension and not packed, so that a ramp
// of stride 1 in its last index is a contiguous vector access.
bool VectorAccessible(const BufferNode& buffer) {
  if (buffer.dtype.bits() < 8) return false;
  return buffer.strides.empty() || AsConstInt(buffer.strides.back()) == 1;
}

// The vector form of expressions where the loop variable takes `base` + lane in each of
// `lanes` lanes: an expression of `lanes` lanes, or the scalar itself where it does not
// depend on the variable. nullptr when not vectorizable.
class VectorBuilder {
 public:
  VectorBuilder(const Var* var, Expr base, int lanes, const Store& store)
      : var_(var), base_(std::move(base)), lanes_(lanes), store_(store) {}

  Expr Vector(const Expr& e) {
    switch (e->kind()) {
      case ExprKind::kIntImm:
      case ExprKind::kFloatImm: return e;
      case ExprKind::kVar:
        return As<Var>(e) == var_ ? Ramp::Make(base_, Int(1, e->dtype()), lanes_) : e;
      case ExprKind::kUnary: {
        const Unary& node = *As<Unary>(e);
        Expr a = Vector(node.a);
        if (!a) return nullptr;
        if (a == node.a) return e;
        return Unary::Make(node.op, Widen(a));
      }
      case ExprKind::kBinary: return VectorBinary(*As<Binary>(e), e);
      case ExprKind::kCast: {
        Expr value = Vector(As<Cast>(e)->value);
        if (!value) return nullptr;
        if (value == As<Cast>(e)->value) return e;
        return Cast::Make(e->dtype().with_lanes(lanes_), Widen(value));
      }
      case ExprKind::kSelect: {
        const Select& node = *As<Select>(e);
        Expr c = Vector(node.cond);
        Expr t = Vector(node.true_value);
        Expr f = Vector(node.false_value);
        if (!c || !t || !f) return nullptr;
        if (c == node.cond && t == node.true_value && f == node.false_value) return e;
        return Select::Make(Widen(c), Widen(t), Widen(f));
      }
      case ExprKind::kBufferLoad: return VectorLoad(*As<BufferLoad>(e), e);
      default: return nullptr;
    }
  }

  // The store's indices: all but the last scalar, the last a ramp of stride 1.
  std::optional<std::vector<Expr>> StoreIndices() {
    std::vector<Expr> indices = Indices(store_.indices);
    if (indices.empty() || !IsUnitRamp(indices.back())) return std::nullopt;
    return indices;
  }

  Expr Widen(const Expr& e) {
    return e->dtype().lanes() == lanes_ ? e : Broadcast::Make(e, lanes_);
  }

 private:
  Expr VectorBinary(const Binary& node, const Expr& self) {
    Expr a = Vector(node.a);
    Expr b = Vector(node.b);
    if (!a || !b) return nullptr;
    if (a == node.a && b == node.b) return self;
    // Index arithmetic keeps ramps, so that contiguity stays visible.
    const Ramp* ra = As<Ramp>(a);
    const Ramp* rb = As<Ramp>(b);
    bool a_scalar = a->dtype().lanes() == 1;
    bool b_scalar = b->dtype().lanes() == 1;
    if ((node.op == BinaryOp::kAdd || node.op == BinaryOp::kSub) && (ra || a_scalar) &&
        (rb || b_scalar)) {
      Expr zero = Int(0, node.dtype());
      return Ramp::Make(Simplified(Op(node.op, ra ? ra->base : a, rb ? rb->base : b)),
                        Simplified(Op(node.op, ra ? ra->stride : zero, rb ? rb->stride : zero)),
                        lanes_);
    }
    if (node.op == BinaryOp::kMul && ((ra && b_scalar) || (a_scalar && rb))) {
      const Ramp* ramp = ra ? ra : rb;
      const Expr& scale = ra ? b : a;
      return Ramp::Make(Simplified(Op(BinaryOp::kMul, ramp->base, scale)),
                        Simplified(Op(BinaryOp::kMul, ramp->stride, scale)), lanes_);
    }
    return Binary::Make(node.op, Widen(a), Widen(b));
  }

  Expr VectorLoad(const BufferLoad& node, const Expr& self) {
    std::vector<Expr> indices = Indices(node.indices);
    if (indices.empty() || !VectorAccessible(*node.buffer)) return nullptr;
    // Reading another element of the stored buffer would make iterations depend on one
    // another.
    if (node.buffer == store_.buffer) {
      for (size_t d = 0; d < node.indices.size(); ++d) {
        if (!StructuralEqual(node.indices[d], store_.indices[d])) return nullptr;
      }
    }
    if (indices.back()->dtype().lanes() == 1) {
      return self;  // the same element in every lane: a scalar load, broadcast by its user
    }
    if (!IsUnitRamp(indices.back())) return nullptr;
    return BufferLoad::Make(node.buffer, std::move(indices));
  }

  // Vector forms of an access's indices; empty when one is not vectorizable or an index
  // before the last depends on the loop variable.
  std::vector<Expr> Indices(const std::vector<Expr>& indices) {
    std::vector<Expr> result;
    for (size_t d = 0; d < indices.size(); ++d) {
      Expr index = Vector(indices[d]);
      if (!index || (d + 1 < indices.size() && index->dtype().lanes() != 1)) return {};
      result.push_back(index);
    }
    return result;
  }

  static bool IsUnitRamp(const Expr& e) {
    const Ramp* ramp = As<Ramp>(e);
    return ramp != nullptr && AsConstInt(ramp->stride) == 1;
  }
  static Expr Simplified(const Expr& e) { return arith::SimplifyExpr(e); }

  const Var* var_;
  const Expr base_;
  const int lanes_;
  const Store& store_;
};

class LoopVectorizer : public IRMutator {
 public:
  LoopVectorizer(const Kernel& kernel, const TargetInfo& target)
      : names_(*kernel), max_bytes_(target.max_vector_bytes()) {}

 protected:
  Stmt MutateFor(const For& original, const Stmt& self) override {
    Stmt mutated = IRMutator::MutateFor(original, self);
    if (original.for_kind != ForKind::kVectorized) return mutated;
    const For& loop = *As<For>(mutated);
    if (Stmt vectorized = Vectorize(loop)) return vectorized;
    // A loop that indexes a thread's local array (a fragment's registers) by its variable
    // stays unrolled: GPU compilers keep such an array in registers only when every index
    // is a constant.
    ForKind kind = IndexesLocalArray(loop) ? ForKind::kUnrolled : ForKind::kSerial;
    return For::Make(loop.var, loop.min, loop.extent, kind, loop.body, loop.loc());
  }

 private:
  static bool IndexesLocalArray(const For& loop) {
    class Finder : public IRVisitor {
     public:
      explicit Finder(const Var* var) : var_(var) {}
      using IRVisitor::Visit;
      bool found = false;

     protected:
      void VisitBufferLoad(const BufferLoad& node) override {
        Check(*node.buffer, node.indices);
        IRVisitor::VisitBufferLoad(node);
      }
      void VisitStore(const Store& node) override {
        Check(*node.buffer, node.indices);
        IRVisitor::VisitStore(node);
      }

     private:
      void Check(const BufferNode& buffer, const std::vector<Expr>& indices) {
        if (buffer.scope != MemoryScope::kLocal) return;
        for (const Expr& index : indices) found |= Mentions(index, var_);
      }
      const Var* var_;
    };
    Finder finder(loop.var.get());
    finder.Visit(loop.body);
    return finder.found;
  }

  Stmt Vectorize(const For& loop) {
    std::optional<int64_t> extent = AsConstInt(loop.extent);
    const Seq* seq = As<Seq>(loop.body);
    const Store* store = As<Store>(seq && seq->stmts.size() == 1 ? seq->stmts[0] : loop.body);
    if (!extent || store == nullptr) return nullptr;
    int lanes = Lanes(*store, *extent);
    if (lanes < 2) return nullptr;
    DataType type = loop.var->dtype();
    VarRef outer;
    Expr base = loop.min;
    if (lanes < *extent) {
      outer = Var::Make(names_.Fresh(loop.var->name + "_outer"), type);
      base = arith::SimplifyExpr(
          Op(BinaryOp::kAdd, loop.min, Op(BinaryOp::kMul, outer, Int(lanes, type))));
    }
    VectorBuilder builder(loop.var.get(), base, lanes, *store);
    std::optional<std::vector<Expr>> indices = builder.StoreIndices();
    if (!indices || !VectorAccessible(*store->buffer)) return nullptr;
    Expr value = builder.Vector(store->value);
    if (!value) return nullptr;
    Stmt vector_store =
        Store::Make(store->buffer, *std::move(indices), builder.Widen(value), store->loc());
    if (!outer) return vector_store;
    return For::Make(outer, Int(0, type), Int(*extent / lanes, type), ForKind::kSerial,
                     std::move(vector_store), loop.loc());
  }

  // The widest power of two that fits the extent and the target's vector width for the
  // widest element the store touches.
  int Lanes(const Store& store, int64_t extent) const {
    int widest = store.buffer->dtype.bits();
    WidestLoad(store.value, &widest);
    int64_t lanes = 1;
    while (lanes * 2 <= extent && lanes * 2 * widest <= int64_t{max_bytes_} * 8 && lanes < 1024) {
      lanes *= 2;
    }
    return static_cast<int>(lanes);
  }
  static void WidestLoad(const Expr& e, int* widest) {
    class Finder : public IRVisitor {
     public:
      explicit Finder(int* widest) : widest_(widest) {}
      using IRVisitor::Visit;

     protected:
      void VisitBufferLoad(const BufferLoad& node) override {
        *widest_ = std::max(*widest_, node.buffer->dtype.bits());
        IRVisitor::VisitBufferLoad(node);
      }

     private:
      int* widest_;
    };
    Finder(widest).Visit(e);
  }

  FreshNames names_;
  const int max_bytes_;
};

}  // namespace

Kernel VectorizeLoops(const Kernel& kernel, const TargetInfo& target) {
  return LoopVectorizer(kernel, target).MutateKernel(kernel);
}

bool VectorizeLoops(Module& module, const TargetInfo& target) {
  return *MapKernels(module,
                     [&target](const Kernel& kernel) { return VectorizeLoops(kernel, target); });
}

PassInfo VectorizePass() {
  PassInfo info;
  info.name = "vectorize";
  info.description =
      "turns vectorized loops into ramp and broadcast vector accesses up to the target's "
      "vector width (serial loops where that is not safe)";
  info.needs_target = true;
  info.run_kernel = EachKernel([](const Kernel& kernel, const PassOptions& options) {
    return VectorizeLoops(kernel, options.target());
  });
  return info;
}

}  // namespace tile_ir::passes
