// One visitor for MentionedVars and MentionsAny (see var_mentions.h).
#include "passes/analysis/var_mentions.h"

#include "tile_ir/visitor.h"

namespace tile_ir::passes {
namespace {

class Mentions : public IRVisitor {
 public:
  using IRVisitor::Visit;
  VarSet vars;

 protected:
  void VisitVar(const Var& node) override { vars.insert(&node); }
};

}  // namespace

VarSet MentionedVars(const Expr& e) {
  Mentions mentions;
  mentions.Visit(e);
  return std::move(mentions.vars);
}

VarSet MentionedVars(const Stmt& s) {
  Mentions mentions;
  mentions.Visit(s);
  return std::move(mentions.vars);
}

bool MentionsAny(const Expr& e, const VarSet& vars) {
  for (const Var* var : MentionedVars(e)) {
    if (vars.contains(var)) return true;
  }
  return false;
}

}  // namespace tile_ir::passes
