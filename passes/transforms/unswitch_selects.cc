// unswitch-selects: decides a select that holds on a whole parallel nest once for the nest
// (see unswitch_selects.h).
#include "passes/transforms/unswitch_selects.h"

#include <optional>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "passes/analysis/arith/expr_simplifier.h"
#include "passes/analysis/var_mentions.h"
#include "passes/utils/fresh_names.h"
#include "tile_ir/mutator.h"
#include "tile_ir/op_shorthand.h"
#include "tile_ir/visitor.h"

namespace tile_ir::passes {
namespace {

// A nest variable's range: [min, min + extent).
struct Range {
  int64_t min;
  int64_t extent;
};
using Box = absl::flat_hash_map<const Var*, Range>;

// `rest + sum(coefficient * var)` over the nest's variables; `rest` names none of them.
struct Affine {
  absl::flat_hash_map<const Var*, int64_t> coefficients;
  Expr rest;
};

class AffineForms {
 public:
  AffineForms(const Box& box, const VarSet& inner) : box_(box), inner_(inner) {
    for (const auto& [var, range] : box) nest_vars_.insert(var);
  }

  std::optional<Affine> Of(const Expr& e) const {
    if (!e->dtype().is_int() || e->dtype().is_vector()) return std::nullopt;
    if (const Var* var = As<Var>(e); var != nullptr && box_.contains(var)) {
      return Affine{{{var, 1}}, Int(0, e->dtype())};
    }
    if (!MentionsAny(e, nest_vars_)) {
      // Invariant on the nest unless it reads a variable the nest defines.
      if (MentionsAny(e, inner_)) return std::nullopt;
      return Affine{{}, e};
    }
    const Binary* binary = As<Binary>(e);
    if (binary == nullptr) return std::nullopt;
    switch (binary->op) {
      case BinaryOp::kAdd:
      case BinaryOp::kSub: {
        std::optional<Affine> a = Of(binary->a);
        std::optional<Affine> b = Of(binary->b);
        if (!a || !b) return std::nullopt;
        const int64_t sign = binary->op == BinaryOp::kAdd ? 1 : -1;
        for (const auto& [var, c] : b->coefficients) a->coefficients[var] += sign * c;
        a->rest = Op(binary->op, a->rest, b->rest);
        return a;
      }
      case BinaryOp::kMul: {
        std::optional<int64_t> factor = AsConstInt(binary->b);
        Expr term = binary->a;
        if (!factor) {
          factor = AsConstInt(binary->a);
          term = binary->b;
        }
        if (!factor) return std::nullopt;
        std::optional<Affine> a = Of(term);
        if (!a) return std::nullopt;
        for (auto& [var, c] : a->coefficients) c *= *factor;
        a->rest = Op(BinaryOp::kMul, a->rest, Int(*factor, e->dtype()));
        return a;
      }
      default: return std::nullopt;
    }
  }

  // The least value of `a` over the box.
  Expr Minimum(const Affine& a) const {
    Expr least = a.rest;
    const DataType type = a.rest->dtype();
    for (const auto& [var, c] : a.coefficients) {
      if (c == 0) continue;
      const Range& range = box_.at(var);
      const int64_t corner = c > 0 ? range.min : range.min + range.extent - 1;
      least = Op(BinaryOp::kAdd, least, Int(c * corner, type));
    }
    return least;
  }

 private:
  const Box& box_;
  const VarSet& inner_;
  VarSet nest_vars_;
};

// The condition under which `cond` holds at every point of the box, or nullopt when `cond` is
// not a conjunction of comparisons of affine forms.
std::optional<Expr> EverywhereCondition(const Expr& cond, const AffineForms& forms) {
  const Binary* binary = As<Binary>(cond);
  if (binary == nullptr) return std::nullopt;
  if (binary->op == BinaryOp::kAnd) {
    std::optional<Expr> a = EverywhereCondition(binary->a, forms);
    std::optional<Expr> b = EverywhereCondition(binary->b, forms);
    if (!a || !b) return std::nullopt;
    return Op(BinaryOp::kAnd, *a, *b);
  }
  // Each comparison as `high - low >= slack`.
  Expr high;
  Expr low;
  int64_t slack = 0;
  switch (binary->op) {
    case BinaryOp::kGe: high = binary->a, low = binary->b; break;
    case BinaryOp::kGt: high = binary->a, low = binary->b, slack = 1; break;
    case BinaryOp::kLe: high = binary->b, low = binary->a; break;
    case BinaryOp::kLt: high = binary->b, low = binary->a, slack = 1; break;
    default: return std::nullopt;
  }
  std::optional<Affine> difference = forms.Of(Op(BinaryOp::kSub, high, low));
  if (!difference) return std::nullopt;
  const DataType type = difference->rest->dtype();
  return Op(BinaryOp::kGe, forms.Minimum(*difference), Int(slack, type));
}

// The variables a statement defines (lets, loops), and whether it declares a buffer.
class DefinedVars : public IRVisitor {
 public:
  using IRVisitor::Visit;
  VarSet vars;
  bool declares_buffer = false;

 protected:
  void VisitBufferDecl(const Buffer& buffer) override {
    declares_buffer = true;
    IRVisitor::VisitBufferDecl(buffer);
  }
  void VisitLet(const Let& node) override {
    vars.insert(node.var.get());
    IRVisitor::VisitLet(node);
  }
  void VisitFor(const For& node) override {
    vars.insert(node.var.get());
    IRVisitor::VisitFor(node);
  }
};

// The selects of a statement whose conditions read a nest variable and hold on the whole
// nest under a condition EverywhereCondition finds.
class NestSelects : public IRVisitor {
 public:
  explicit NestSelects(const AffineForms& forms, const VarSet& nest_vars)
      : forms_(forms), nest_vars_(nest_vars) {}
  using IRVisitor::Visit;
  absl::flat_hash_set<const Select*> selects;
  std::vector<Expr> conditions;

 protected:
  void VisitSelect(const Select& node) override {
    if (MentionsAny(node.cond, nest_vars_)) {
      if (std::optional<Expr> everywhere = EverywhereCondition(node.cond, forms_)) {
        selects.insert(&node);
        conditions.push_back(*everywhere);
        Visit(node.true_value);  // the arm that stays
        return;
      }
    }
    IRVisitor::VisitSelect(node);
  }

 private:
  const AffineForms& forms_;
  const VarSet& nest_vars_;
};

// Replaces the chosen selects by their true arms.
class TakeTrueArms : public IRMutator {
 public:
  explicit TakeTrueArms(const absl::flat_hash_set<const Select*>& selects) : selects_(selects) {}
  using IRMutator::Mutate;

 protected:
  Expr MutateSelect(const Select& node, const Expr& self) override {
    if (selects_.contains(&node)) return Mutate(node.true_value);
    return IRMutator::MutateSelect(node, self);
  }

 private:
  const absl::flat_hash_set<const Select*>& selects_;
};

class Unswitch : public IRMutator {
 public:
  explicit Unswitch(FreshNames& names) : names_(names) {}
  using IRMutator::Mutate;

 protected:
  Stmt MutateFor(const For& node, const Stmt& self) override {
    if (node.for_kind != ForKind::kParallel) return IRMutator::MutateFor(node, self);
    // The chain of directly nested parallel loops and their box.
    Box box;
    VarSet nest_vars;
    const For* loop = &node;
    while (true) {
      std::optional<int64_t> min = AsConstInt(loop->min);
      std::optional<int64_t> extent = AsConstInt(loop->extent);
      if (!min || !extent || *extent < 1) return self;  // left as written
      box[loop->var.get()] = Range{*min, *extent};
      nest_vars.insert(loop->var.get());
      const Stmt* body = &loop->body;
      if (const Seq* seq = As<Seq>(*body); seq != nullptr && seq->stmts.size() == 1) {
        body = &seq->stmts[0];
      }
      const For* inner = As<For>(*body);
      if (inner == nullptr || inner->for_kind != ForKind::kParallel) break;
      loop = inner;
    }
    DefinedVars defined;
    defined.Visit(loop->body);
    if (defined.declares_buffer) return self;
    AffineForms forms(box, defined.vars);
    NestSelects found(forms, nest_vars);
    found.Visit(loop->body);
    if (found.selects.empty()) return self;
    Expr everywhere = found.conditions[0];
    for (size_t i = 1; i < found.conditions.size(); ++i) {
      everywhere = Op(BinaryOp::kAnd, everywhere, found.conditions[i]);
    }
    Stmt unmasked = RenameDeclared(TakeTrueArms(found.selects).Mutate(self), names_);
    return If::Make(arith::SimplifyExpr(everywhere), unmasked, self, node.loc());
  }

 private:
  FreshNames& names_;
};

}  // namespace

absl::StatusOr<Kernel> UnswitchSelects(const Kernel& kernel) {
  FreshNames names(*kernel);
  Stmt body = Unswitch(names).Mutate(kernel->body);
  if (body == kernel->body) return kernel;
  return KernelNode::Make(kernel->name, kernel->dims, kernel->params, kernel->launch,
                          std::move(body), kernel->loc, kernel->requirements);
}

PassInfo UnswitchSelectsPass() {
  PassInfo info;
  info.name = "unswitch-selects";
  info.description =
      "a parallel nest whose selects' conditions (comparisons affine in its variables) hold on "
      "the whole nest at most iterations around it (a causal or ragged mask) becomes "
      "if (they hold everywhere) { the nest without them } else { the nest }";
  info.run_kernel =
      EachKernel([](const Kernel& kernel, const PassOptions&) { return UnswitchSelects(kernel); });
  return info;
}

}  // namespace tile_ir::passes
