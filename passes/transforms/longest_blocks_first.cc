// longest-blocks-first: walks a grid axis backwards when the blocks' loops grow along it (see
// longest_blocks_first.h).
#include "passes/transforms/longest_blocks_first.h"

#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "passes/analysis/var_mentions.h"
#include "passes/utils/fresh_names.h"
#include "passes/utils/substitute.h"
#include "tile_ir/op_shorthand.h"
#include "tile_ir/visitor.h"

namespace tile_ir::passes {
namespace {

Trend Negate(Trend t) {
  if (t == Trend::kNonDecreasing) return Trend::kNonIncreasing;
  if (t == Trend::kNonIncreasing) return Trend::kNonDecreasing;
  return t;
}

// The trend of a + b, and of min(a, b) and max(a, b): each keeps a direction both share.
Trend Combine(Trend a, Trend b) {
  if (a == Trend::kConstant) return b;
  if (b == Trend::kConstant) return a;
  return a == b ? a : Trend::kUnknown;
}

bool IsDim(const Expr& e, const KernelNode& kernel) {
  const Var* var = As<Var>(e);
  if (var == nullptr) return false;
  for (const VarRef& dim : kernel.dims) {
    if (dim.get() == var) return true;
  }
  return false;
}

// Whether `e` is known positive: a positive constant, a kernel dimension (at least 1), or
// their sums, products, minima, maxima and ceiling quotients.
bool IsPositive(const Expr& e, const KernelNode& kernel) {
  if (std::optional<int64_t> value = AsConstInt(e)) return *value > 0;
  if (IsDim(e, kernel)) return true;
  const Binary* binary = As<Binary>(e);
  if (binary == nullptr) return false;
  switch (binary->op) {
    case BinaryOp::kAdd:
    case BinaryOp::kMul:
    case BinaryOp::kCeilDiv:
    case BinaryOp::kMin:
    case BinaryOp::kMax: return IsPositive(binary->a, kernel) && IsPositive(binary->b, kernel);
    default: return false;
  }
}

}  // namespace

Trend TrendIn(const Expr& e, const Var* var, const KernelNode& kernel) {
  if (!e->dtype().is_int()) return MentionsAny(e, {var}) ? Trend::kUnknown : Trend::kConstant;
  if (const Var* v = As<Var>(e)) return v == var ? Trend::kNonDecreasing : Trend::kConstant;
  if (const Cast* cast = As<Cast>(e)) {
    // A cast between integer types keeps the order unless it narrows; a narrowing one wraps.
    const DataType from = cast->value->dtype();
    if (!from.is_int() || from.bits() > e->dtype().bits()) {
      return MentionsAny(e, {var}) ? Trend::kUnknown : Trend::kConstant;
    }
    return TrendIn(cast->value, var, kernel);
  }
  const Binary* binary = As<Binary>(e);
  if (binary == nullptr) return MentionsAny(e, {var}) ? Trend::kUnknown : Trend::kConstant;
  const Trend a = TrendIn(binary->a, var, kernel);
  const Trend b = TrendIn(binary->b, var, kernel);
  if (a == Trend::kConstant && b == Trend::kConstant) return Trend::kConstant;
  switch (binary->op) {
    case BinaryOp::kAdd:
    case BinaryOp::kMin:
    case BinaryOp::kMax: return Combine(a, b);
    case BinaryOp::kSub: return Combine(a, Negate(b));
    case BinaryOp::kMul:
      // One factor varies, the other is held: a positive one keeps the trend.
      if (b == Trend::kConstant && IsPositive(binary->b, kernel)) return a;
      if (a == Trend::kConstant && IsPositive(binary->a, kernel)) return b;
      return Trend::kUnknown;
    case BinaryOp::kDiv:
    case BinaryOp::kFloorDiv:
    case BinaryOp::kCeilDiv:
      // Each rounding of x / d is non-decreasing in x for a positive d.
      if (b == Trend::kConstant && IsPositive(binary->b, kernel)) return a;
      return Trend::kUnknown;
    default: return Trend::kUnknown;
  }
}

namespace {

// The trends of the kernel's loop extents in one grid variable, lets seen through.
class LoopTrends : public IRVisitor {
 public:
  LoopTrends(const KernelNode& kernel, const Var* axis) : kernel_(kernel), axis_(axis) {}
  using IRVisitor::Visit;

  bool grows = false;     // some loop's extent is non-decreasing in the axis
  bool mixed = false;     // some loop's extent mentions it otherwise
  std::string loop_name;  // the first loop that grows

 protected:
  void VisitLet(const Let& node) override {
    lets_[node.var.get()] = Substitute(node.value, lets_);
    IRVisitor::VisitLet(node);
  }
  void VisitFor(const For& node) override {
    const Expr extent = Substitute(node.extent, lets_);
    switch (TrendIn(extent, axis_, kernel_)) {
      case Trend::kConstant: break;
      case Trend::kNonDecreasing:
        if (!grows) loop_name = node.var->name;
        grows = true;
        break;
      default: mixed = true;
    }
    IRVisitor::VisitFor(node);
  }

 private:
  const KernelNode& kernel_;
  const Var* axis_;
  VarMap lets_;
};

}  // namespace

absl::StatusOr<Kernel> LongestBlocksFirst(const Kernel& kernel, std::string* why) {
  if (kernel->launch.swizzle) return kernel;
  FreshNames names(*kernel);
  VarMap reversed;
  std::vector<Stmt> lets;
  for (const GridAxis& axis : kernel->launch.grid) {
    LoopTrends trends(*kernel, axis.var.get());
    trends.Visit(kernel->body);
    if (!trends.grows || trends.mixed) continue;
    VarRef backwards = Var::Make(names.Fresh(axis.var->name + "_reversed"), axis.var->dtype());
    const DataType type = axis.var->dtype();
    Expr extent = axis.extent->dtype() == type ? axis.extent : Cast::Make(type, axis.extent);
    lets.push_back(Let::Make(backwards,
                             Op(BinaryOp::kSub, Op(BinaryOp::kSub, extent, Int(1, type)), axis.var),
                             kernel->body->loc()));
    reversed[axis.var.get()] = backwards;
    if (why != nullptr) {
      absl::StrAppend(why, why->empty() ? "" : "; ", "longest-blocks-first: kernel '", kernel->name,
                      "': the trip count of loop '", trends.loop_name, "' grows with ",
                      axis.var->name, ", so blocks walk ", axis.var->name,
                      " backwards and the longest are launched first");
    }
  }
  if (reversed.empty()) return kernel;
  return RemapBlockIndices(kernel, kernel->launch, std::move(lets), reversed);
}

PassInfo LongestBlocksFirstPass() {
  PassInfo info;
  info.name = "longest-blocks-first";
  info.description =
      "walks a grid axis backwards when the trip counts of the blocks' loops grow along it "
      "(a causal attention's), so that a GPU launches the longest blocks first and short ones "
      "fill the tail";
  info.run_kernel =
      EachKernel([](const Kernel& kernel, const PassOptions& options) -> absl::StatusOr<Kernel> {
        std::string why;
        absl::StatusOr<Kernel> result = LongestBlocksFirst(kernel, &why);
        if (!result.ok()) return result.status();
        if (!why.empty()) options.Remark(std::move(why));
        return result;
      });
  return info;
}

}  // namespace tile_ir::passes
