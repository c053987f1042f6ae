// Whether a copied region may pass its tensor's edge (padded_reductions_internal.h).
#include <optional>

#include "passes/analysis/padded_reductions_internal.h"
#include "tile_ir/structural_equal.h"

namespace tile_ir::passes::padding {
namespace {

// Lets nest shallowly in practice; the bound keeps a pathological chain cheap.
constexpr int kMaxDepth = 16;

// Each `D % c == 0` in a conjunction of requirements, as (D, c).
void CollectDivisors(const Expr& condition,
                     absl::flat_hash_map<const Var*, std::vector<int64_t>>& divisors) {
  const Binary* node = As<Binary>(condition);
  if (node == nullptr) return;
  if (node->op == BinaryOp::kAnd) {
    CollectDivisors(node->a, divisors);
    CollectDivisors(node->b, divisors);
    return;
  }
  if (node->op != BinaryOp::kEq || AsConstInt(node->b) != 0) return;
  const Binary* rem = As<Binary>(node->a);
  if (rem == nullptr || (rem->op != BinaryOp::kMod && rem->op != BinaryOp::kFloorMod)) return;
  const Var* dim = As<Var>(rem->a);
  std::optional<int64_t> divisor = AsConstInt(rem->b);
  if (dim != nullptr && divisor && *divisor > 0) divisors[dim].push_back(*divisor);
}

}  // namespace

EdgeFacts::EdgeFacts(const KernelNode& kernel) {
  divisibility_.AddRequirements(kernel);
  for (const ShapeRequirement& requirement : kernel.requirements) {
    CollectDivisors(requirement.condition, required_divisors_);
  }
}

bool EdgeFacts::MayPassEdge(const Region& region, int dim) const {
  const Range& range = region.ranges[dim];
  const Expr& size = region.buffer->shape[dim];
  std::optional<int64_t> min = AsConstInt(range.min);
  std::optional<int64_t> extent = AsConstInt(range.extent);
  std::optional<int64_t> constant_size = AsConstInt(size);
  if (min && extent && constant_size) return *min < 0 || *min + *extent > *constant_size;
  if (min == 0 && StructuralEqual(range.extent, size)) return false;  // the whole dim
  if (!extent || *extent <= 0) return true;
  return !(Divides(size, *extent) && MultipleOf(range.min, *extent, 0));
}

bool EdgeFacts::Divides(const Expr& size, int64_t extent) const {
  if (std::optional<int64_t> value = AsConstInt(size)) return *value % extent == 0;
  if (divisibility_.Of(size) % extent == 0) return true;
  auto required = required_divisors_.find(As<Var>(size));
  if (required == required_divisors_.end()) return false;
  for (int64_t divisor : required->second) {
    if (divisor % extent == 0) return true;
  }
  return false;
}

bool EdgeFacts::MultipleOf(const Expr& e, int64_t factor, int depth) const {
  if (depth > kMaxDepth) return false;
  if (std::optional<int64_t> value = AsConstInt(e)) return *value % factor == 0;
  if (const Var* var = As<Var>(e)) {
    auto let = lets_.find(var);
    return let != lets_.end() && MultipleOf(let->second, factor, depth + 1);
  }
  if (const Cast* cast = As<Cast>(e)) return MultipleOf(cast->value, factor, depth + 1);
  if (const Binary* node = As<Binary>(e)) {
    switch (node->op) {
      case BinaryOp::kAdd:
      case BinaryOp::kSub:
        if (MultipleOf(node->a, factor, depth + 1) && MultipleOf(node->b, factor, depth + 1)) {
          return true;
        }
        break;
      case BinaryOp::kMul:
        if (MultipleOf(node->a, factor, depth + 1) || MultipleOf(node->b, factor, depth + 1)) {
          return true;
        }
        break;
      default: break;
    }
  }
  // Powers of two that split across factors (8 * 8 for 64).
  return divisibility_.Of(e) % factor == 0;
}

}  // namespace tile_ir::passes::padding
