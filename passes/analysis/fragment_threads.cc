// Enumeration over small integer boxes: fragment tiles and the loop nests that walk them.
#include "passes/analysis/fragment_threads.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"

namespace tile_ir::passes {
namespace {

// Fragments live in registers, so any real one is far smaller than this.
constexpr int64_t kMaxEnumerated = int64_t{1} << 22;

// Calls visit(values) with values[d] set to domain[d]'s value at every point of `domain` in
// row-major order, until it returns false.
template <typename Visit>
void ForEachPoint(const std::vector<VarRange>& domain, Visit visit) {
  std::vector<int64_t> values(domain.size());
  for (size_t d = 0; d < domain.size(); ++d) {
    if (domain[d].extent <= 0) return;
    values[d] = domain[d].min;
  }
  while (true) {
    if (!visit(absl::Span<const int64_t>(values))) return;
    size_t d = domain.size();
    while (true) {
      if (d == 0) return;
      --d;
      if (++values[d] < domain[d].min + domain[d].extent) break;
      values[d] = domain[d].min;
    }
  }
}

std::vector<const Var*> Slots(const std::vector<VarRange>& domain) {
  std::vector<const Var*> slots;
  for (const VarRange& range : domain) slots.push_back(range.var);
  return slots;
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
  const std::vector<const Var*> slots = Slots(domain);
  const IntProgram thread_at(layout.outputs[0], slots);
  const IntProgram reg_at(layout.outputs[1], slots);
  std::string error;
  ForEachPoint(domain, [&](absl::Span<const int64_t> values) {
    std::optional<int64_t> thread = thread_at.Run(values);
    std::optional<int64_t> reg = reg_at.Run(values);
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
  const std::vector<const Var*> slots = Slots(domain);
  std::vector<IntProgram> programs;
  for (const Expr& e : exprs) programs.emplace_back(e, slots);
  bool agree = true;
  ForEachPoint(domain, [&](absl::Span<const int64_t> values) {
    std::optional<int64_t> first = programs[0].Run(values);
    agree = first.has_value();
    for (size_t i = 1; agree && i < programs.size(); ++i) agree = programs[i].Run(values) == first;
    return agree;
  });
  return agree;
}

}  // namespace tile_ir::passes
