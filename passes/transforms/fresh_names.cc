// Collects a kernel's declared names and hands out unused ones.
#include "passes/transforms/fresh_names.h"

#include "absl/strings/str_cat.h"
#include "tile_ir/text_syntax.h"
#include "tile_ir/visitor.h"

namespace tile_ir::passes {
namespace {

class DeclaredNames : public IRVisitor {
 public:
  explicit DeclaredNames(absl::flat_hash_set<std::string>& names) : names_(names) {}

 protected:
  void VisitFor(const For& node) override {
    names_.insert(node.var->name);
    IRVisitor::VisitFor(node);
  }
  void VisitLet(const Let& node) override {
    names_.insert(node.var->name);
    IRVisitor::VisitLet(node);
  }
  void VisitAllocate(const Allocate& node) override {
    names_.insert(node.buffer->name);
    IRVisitor::VisitAllocate(node);
  }

 private:
  absl::flat_hash_set<std::string>& names_;
};

}  // namespace

FreshNames::FreshNames(const KernelNode& kernel) {
  for (const VarRef& dim : kernel.dims) taken_.insert(dim->name);
  for (const Param& param : kernel.params) taken_.insert(param.name());
  for (const GridAxis& axis : kernel.launch.grid) taken_.insert(axis.var->name);
  DeclaredNames(taken_).Visit(kernel.body);
}

std::string FreshNames::Fresh(std::string_view base) {
  std::string valid = SanitizeIdentifier(base);
  if (taken_.insert(valid).second) return valid;
  int& suffix = next_suffix_[valid];
  while (true) {
    std::string candidate = absl::StrCat(valid, "_", ++suffix);
    if (taken_.insert(candidate).second) return candidate;
  }
}

}  // namespace tile_ir::passes
