// Collects a kernel's declared names and hands out unused ones.
#include "passes/utils/fresh_names.h"

#include "absl/strings/str_cat.h"
#include "tile_ir/mutator.h"
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

namespace {

class DeclaredRenamer : public IRMutator {
 public:
  explicit DeclaredRenamer(FreshNames& names) : names_(names) {}
  using IRMutator::Mutate;

 protected:
  Expr MutateVar(const Var& node, const Expr& self) override {
    auto it = renamed_.find(&node);
    return it != renamed_.end() ? it->second : self;
  }
  Stmt MutateFor(const For& node, const Stmt& self) override {
    Expr min = Mutate(node.min);
    Expr extent = Mutate(node.extent);
    VarRef var = Rename(node.var);
    return For::Make(var, min, extent, node.for_kind, Mutate(node.body), node.loc(), node.pipeline,
                     node.thread_axis);
  }
  Stmt MutateLet(const Let& node, const Stmt& self) override {
    Expr value = Mutate(node.value);
    return Let::Make(Rename(node.var), value, node.loc());
  }

 private:
  VarRef Rename(const VarRef& var) {
    VarRef fresh = Var::Make(names_.Fresh(var->name), var->dtype());
    renamed_[var.get()] = fresh;
    return fresh;
  }
  FreshNames& names_;
  absl::flat_hash_map<const Var*, VarRef> renamed_;
};

}  // namespace

Stmt RenameDeclared(const Stmt& s, FreshNames& names) { return DeclaredRenamer(names).Mutate(s); }

}  // namespace tile_ir::passes
