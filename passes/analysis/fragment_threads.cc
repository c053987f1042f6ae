// Enumeration over small integer boxes: fragment tiles and the loop nests that walk them.
#include "passes/analysis/fragment_threads.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "passes/analysis/arith/int_math.h"

namespace tile_ir::passes {
namespace {

// Fragments live in registers, so any real one is far smaller than this.
constexpr int64_t kMaxEnumerated = int64_t{1} << 22;

bool IsIntegral(DataType t) { return !t.is_vector() && (t.is_int() || t.is_bool()); }

// Calls `visit` with `env` set to every point of `domain` in row-major order, until it
// returns false; false when it did.
template <typename Visit>
bool ForEachPoint(const std::vector<VarRange>& domain, IntEnv& env, Visit visit) {
  std::vector<int64_t> offset(domain.size(), 0);
  for (const VarRange& range : domain) {
    if (range.extent <= 0) return true;
    env[range.var] = range.min;
  }
  while (true) {
    if (!visit()) return false;
    size_t d = domain.size();
    while (d > 0) {
      --d;
      if (++offset[d] < domain[d].extent) {
        env[domain[d].var] = domain[d].min + offset[d];
        break;
      }
      offset[d] = 0;
      env[domain[d].var] = domain[d].min;
      if (d == 0) return true;
    }
    if (domain.empty()) return true;
  }
}

int64_t BoxSize(const std::vector<VarRange>& domain) {
  int64_t size = 1;
  for (const VarRange& range : domain) {
    if (range.extent <= 0) return 0;
    if (size > kMaxEnumerated / range.extent) return kMaxEnumerated + 1;
    size *= range.extent;
  }
  return size;
}

}  // namespace

std::optional<int64_t> EvaluateInt(const Expr& e, const IntEnv& env) {
  if (!IsIntegral(e->dtype())) return std::nullopt;
  switch (e->kind()) {
    case ExprKind::kIntImm:
      return As<IntImm>(e)->value;
    case ExprKind::kVar: {
      auto it = env.find(As<Var>(e));
      if (it == env.end()) return std::nullopt;
      return it->second;
    }
    case ExprKind::kUnary: {
      const Unary& node = *As<Unary>(e);
      std::optional<int64_t> a = EvaluateInt(node.a, env);
      if (!a) return std::nullopt;
      if (node.op == UnaryOp::kNot) return *a == 0 ? 1 : 0;
      return arith::EvalIntBinary(BinaryOp::kSub, 0, *a, e->dtype());
    }
    case ExprKind::kBinary: {
      const Binary& node = *As<Binary>(e);
      std::optional<int64_t> a = EvaluateInt(node.a, env);
      std::optional<int64_t> b = EvaluateInt(node.b, env);
      if (!a || !b) return std::nullopt;
      return arith::EvalIntBinary(node.op, *a, *b, node.a->dtype());
    }
    case ExprKind::kCast: {
      std::optional<int64_t> value = EvaluateInt(As<Cast>(e)->value, env);
      if (!value) return std::nullopt;
      if (e->dtype().is_bool()) return *value != 0 ? 1 : 0;
      if (!arith::FitsIn(*value, e->dtype())) return std::nullopt;
      return value;
    }
    case ExprKind::kSelect: {
      const Select& node = *As<Select>(e);
      std::optional<int64_t> cond = EvaluateInt(node.cond, env);
      if (!cond) return std::nullopt;
      return EvaluateInt(*cond != 0 ? node.true_value : node.false_value, env);
    }
    default:
      return std::nullopt;
  }
}

absl::StatusOr<int64_t> RegistersPerThread(const BufferNode& fragment, int64_t threads) {
  std::string what = absl::StrCat("fragment '", fragment.name, "'");
  if (!fragment.layout || fragment.layout->outputs.size() < 2) {
    return absl::FailedPreconditionError(absl::StrCat(
        what, " has no (thread, register) layout; run layout-inference before thread-binding"));
  }
  const Layout& layout = *fragment.layout;
  std::vector<VarRange> domain;
  for (size_t d = 0; d < layout.inputs.size(); ++d) {
    std::optional<int64_t> size = AsConstInt(fragment.shape[d]);
    if (!size) {
      return absl::FailedPreconditionError(
          absl::StrCat(what, " has a symbolic shape; fragments need constant shapes"));
    }
    domain.push_back({layout.inputs[d].get(), 0, *size});
  }
  // Each replica is a place of its own: copies must not share one either.
  if (layout.replica) domain.push_back({layout.replica.get(), 0, layout.replicate});
  if (BoxSize(domain) > kMaxEnumerated) {
    return absl::FailedPreconditionError(
        absl::StrCat(what, " has more than ", kMaxEnumerated, " elements"));
  }
  // First pass: every element's place, and the register count.
  std::vector<std::pair<int64_t, int64_t>> places;
  IntEnv env;
  std::string error;
  ForEachPoint(domain, env, [&] {
    std::optional<int64_t> thread = EvaluateInt(layout.outputs[0], env);
    std::optional<int64_t> reg = EvaluateInt(layout.outputs[1], env);
    if (!thread || !reg || *thread < 0 || *thread >= threads || *reg < 0) {
      error = absl::StrCat(" maps an element to thread ", thread ? absl::StrCat(*thread) : "?",
                           ", register ", reg ? absl::StrCat(*reg) : "?", ", outside [0, ", threads,
                           ") x [0, ...)");
      return false;
    }
    places.emplace_back(*thread, *reg);
    return true;
  });
  if (!error.empty()) return absl::FailedPreconditionError(absl::StrCat(what, error));
  int64_t registers = 0;
  for (const auto& [thread, reg] : places) registers = std::max(registers, reg + 1);
  if (registers > kMaxEnumerated / threads) {
    return absl::FailedPreconditionError(
        absl::StrCat(what, " needs ", registers, " registers per thread"));
  }
  std::vector<bool> taken(threads * registers, false);
  for (const auto& [thread, reg] : places) {
    if (taken[thread * registers + reg]) {
      return absl::FailedPreconditionError(absl::StrCat(
          "the layout of ", what, " maps two elements to thread ", thread, ", register ", reg));
    }
    taken[thread * registers + reg] = true;
  }
  return registers;
}

bool AgreeOnDomain(const std::vector<Expr>& exprs, const std::vector<VarRange>& domain) {
  if (exprs.empty() || BoxSize(domain) > kMaxEnumerated) return exprs.empty();
  IntEnv env;
  bool agree = true;
  ForEachPoint(domain, env, [&] {
    std::optional<int64_t> first = EvaluateInt(exprs[0], env);
    agree = first.has_value();
    for (size_t i = 1; agree && i < exprs.size(); ++i) agree = EvaluateInt(exprs[i], env) == first;
    return agree;
  });
  return agree;
}

}  // namespace tile_ir::passes
