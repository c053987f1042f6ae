// Shape specialization: substitute the bound dims and drop them from the signature.
#include "passes/transforms/specialize_dims.h"

#include <limits>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "passes/analysis/arith/expr_simplifier.h"
#include "passes/analysis/arith/int_math.h"
#include "passes/analysis/arith/interval.h"
#include "passes/utils/dim_values.h"
#include "passes/utils/substitute.h"
#include "tile_ir/printer.h"
#include "tile_ir/visitor.h"

namespace tile_ir::passes {
namespace {

std::string FormatValues(const std::map<std::string, int64_t>& values) {
  std::vector<std::string> items;
  for (const auto& [name, value] : values) items.push_back(absl::StrCat(name, "=", value));
  return absl::StrJoin(items, ", ");
}

}  // namespace

absl::StatusOr<Kernel> SpecializeDims(const Kernel& kernel,
                                      const std::map<std::string, int64_t>& values) {
  VarMap map;
  std::vector<VarRef> kept;
  std::vector<std::string> names;
  for (const VarRef& dim : kernel->dims) {
    names.push_back(dim->name);
    auto it = values.find(dim->name);
    if (it == values.end()) {
      kept.push_back(dim);
      continue;
    }
    if (it->second < 1) {
      // Tensors are sized by their dims, and no tensor dimension is empty (the verifier's
      // rule); say so here, naming the value, rather than as IR that does not verify.
      return absl::InvalidArgumentError(absl::StrCat("kernel '", kernel->name, "': dim '",
                                                     dim->name, "' = ", it->second,
                                                     "; a dimension is at least 1"));
    }
    bool is_i32 = dim->dtype() == kI32;
    if (is_i32 && (it->second < std::numeric_limits<int32_t>::min() ||
                   it->second > std::numeric_limits<int32_t>::max())) {
      return absl::InvalidArgumentError(absl::StrCat("kernel '", kernel->name, "': dim '",
                                                     dim->name, "' is i32; ", it->second,
                                                     " does not fit"));
    }
    map[dim.get()] = Int(it->second, dim->dtype());
  }
  for (const auto& [name, value] : values) {
    bool known = false;
    for (const std::string& each : names) known |= each == name;
    if (!known) {
      return absl::InvalidArgumentError(absl::StrCat(
          "kernel '", kernel->name, "' has no dim '", name,
          "' to specialize (its dims: ", names.empty() ? "none" : absl::StrJoin(names, ", "), ")"));
    }
  }
  Kernel substituted = Substitute(kernel, map);
  // A requirement the constants decide is checked here, once, and dropped; the others stay
  // for the launch to check.
  arith::ExprSimplifier simplifier;
  for (const VarRef& dim : kept) simplifier.BindRange(dim, {1, arith::TypeMax(dim->dtype())});
  std::vector<ShapeRequirement> requirements;
  for (size_t i = 0; i < substituted->requirements.size(); ++i) {
    const ShapeRequirement& requirement = substituted->requirements[i];
    Expr folded = simplifier.Simplify(requirement.condition);
    const IntImm* value = As<IntImm>(folded);
    if (value == nullptr) {
      requirements.push_back({folded, requirement.loc});
    } else if (value->value == 0) {
      return absl::InvalidArgumentError(absl::StrCat("kernel '", kernel->name, "' requires ",
                                                     Print(kernel->requirements[i].condition),
                                                     ", which ", FormatValues(values), " breaks"));
    }
  }
  return KernelNode::Make(substituted->name, std::move(kept), substituted->params,
                          substituted->launch, substituted->body, substituted->loc,
                          std::move(requirements));
}

std::vector<std::string> DimsSizingRegisters(const KernelNode& kernel) {
  // The variables of one expression.
  class VarFinder : public IRVisitor {
   public:
    using IRVisitor::Visit;
    absl::flat_hash_set<const Var*> mentioned;

   protected:
    void VisitVar(const Var& node) override { mentioned.insert(&node); }
  };
  // The variables of the extents of fragment and local allocations.
  class ExtentFinder : public IRVisitor {
   public:
    using IRVisitor::Visit;
    absl::flat_hash_set<const Var*> mentioned;

   protected:
    void VisitAllocate(const Allocate& node) override {
      const MemoryScope scope = node.buffer->scope;
      if (scope == MemoryScope::kFragment || scope == MemoryScope::kLocal) {
        VarFinder vars;
        for (const Expr& extent : node.buffer->shape) vars.Visit(extent);
        mentioned.insert(vars.mentioned.begin(), vars.mentioned.end());
      }
      IRVisitor::VisitAllocate(node);
    }
  };
  ExtentFinder finder;
  finder.Visit(kernel.body);
  std::vector<std::string> names;
  for (const VarRef& dim : kernel.dims) {
    if (finder.mentioned.contains(dim.get())) names.push_back(dim->name);
  }
  return names;
}

absl::StatusOr<Kernel> SpecializeRegisterDims(const Kernel& kernel,
                                              const std::map<std::string, int64_t>& values,
                                              std::vector<std::string>* specialized) {
  std::vector<std::string> names = DimsSizingRegisters(*kernel);
  if (names.empty()) return kernel;
  std::map<std::string, int64_t> chosen;
  for (const std::string& name : names) {
    auto it = values.find(name);
    if (it == values.end()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "kernel '", kernel->name, "': dim ", name,
          " sizes a fragment, so it is compiled in as a constant, and no value was given for it"));
    }
    chosen.emplace(name, it->second);
  }
  absl::StatusOr<Kernel> result = SpecializeDims(kernel, chosen);
  if (result.ok() && specialized != nullptr) {
    specialized->insert(specialized->end(), names.begin(), names.end());
  }
  return result;
}

PassInfo SpecializeDimsPass() {
  PassInfo info;
  info.name = "specialize-dims";
  info.description =
      "binds symbolic dims to constants (values=\"M=4096,N=4096\") in every kernel that has them";
  info.options = {{"values", OptionType::kString, "", "comma-separated NAME=INTEGER bindings"}};
  info.run_kernel = [](const PassOptions& options) -> absl::StatusOr<KernelRewrite> {
    absl::StatusOr<std::map<std::string, int64_t>> values =
        ParseDimValues(options.GetString("values"), "specialize-dims");
    if (!values.ok()) return values.status();
    return KernelRewrite(
        [values = *std::move(values)](const Kernel& kernel) -> absl::StatusOr<Kernel> {
          std::map<std::string, int64_t> own;
          for (const VarRef& dim : kernel->dims) {
            auto it = values.find(dim->name);
            if (it != values.end()) own.insert(*it);
          }
          if (own.empty()) return kernel;
          return SpecializeDims(kernel, own);
        });
  };
  return info;
}

}  // namespace tile_ir::passes
