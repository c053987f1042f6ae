// Side-effect queries over expressions.
#include "passes/analysis/arith/effects.h"

#include "tile_ir/intrinsics.h"
#include "tile_ir/visitor.h"

namespace tile_ir::arith {
namespace {

class EffectFinder : public IRVisitor {
 public:
  explicit EffectFinder(bool loads_count) : loads_count_(loads_count) {}
  bool found() const { return found_; }

  using IRVisitor::Visit;
  void Visit(const Expr& e) override {
    if (!found_) IRVisitor::Visit(e);
  }

 protected:
  void VisitCall(const Call& node) override {
    const IntrinsicInfo* info = FindIntrinsic(node.name);
    if (info == nullptr || !info->pure) {
      found_ = true;
      return;
    }
    IRVisitor::VisitCall(node);
  }

  void VisitBufferLoad(const BufferLoad& node) override {
    if (loads_count_) {
      found_ = true;
      return;
    }
    IRVisitor::VisitBufferLoad(node);
  }

 private:
  const bool loads_count_;
  bool found_ = false;
};

}  // namespace

bool IsPure(const Expr& e) {
  EffectFinder finder(/*loads_count=*/false);
  finder.Visit(e);
  return !finder.found();
}

bool IsMemoryFree(const Expr& e) {
  EffectFinder finder(/*loads_count=*/true);
  finder.Visit(e);
  return !finder.found();
}

}  // namespace tile_ir::arith
