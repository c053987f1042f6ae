// The feature versions of version.h and the walk that finds the newest one a module uses.
#include "tile_ir/version.h"

#include <algorithm>

#include "tile_ir/module.h"
#include "tile_ir/visitor.h"

namespace tile_ir {
namespace {

// Every expression of a kernel: shapes, strides and layouts of every buffer declaration,
// grid extents and the body.
class NewestFeature : public IRVisitor {
 public:
  using IRVisitor::Visit;
  // IR under construction may have null parts, and the writers still print and serialize it.
  void Visit(const Expr& e) override {
    if (e) IRVisitor::Visit(e);
  }

  int64_t version = 1;

 protected:
  void VisitBinary(const Binary& node) override {
    version = std::max(version, IntroducedInIrVersion(node.op));
    IRVisitor::VisitBinary(node);
  }
  // The base visitor skips layouts (their inputs are bound only inside them); a swizzled
  // shared layout is exactly where a newer operator may appear.
  void VisitBufferDecl(const Buffer& buffer) override {
    if (!buffer) return;
    IRVisitor::VisitBufferDecl(buffer);
    if (!buffer->layout) return;
    if (buffer->layout->replicated()) version = std::max(version, kReplicatedLayoutIrVersion);
    for (const Expr& output : buffer->layout->outputs) Visit(output);
  }
};

}  // namespace

// No default, so that -Wswitch flags a new operator until it names the version it came in.
int64_t IntroducedInIrVersion(BinaryOp op) {
  switch (op) {
    case BinaryOp::kAdd:
    case BinaryOp::kSub:
    case BinaryOp::kMul:
    case BinaryOp::kDiv:
    case BinaryOp::kMod:
    case BinaryOp::kFloorDiv:
    case BinaryOp::kFloorMod:
    case BinaryOp::kCeilDiv:
    case BinaryOp::kMin:
    case BinaryOp::kMax:
    case BinaryOp::kEq:
    case BinaryOp::kNe:
    case BinaryOp::kLt:
    case BinaryOp::kLe:
    case BinaryOp::kGt:
    case BinaryOp::kGe:
    case BinaryOp::kAnd:
    case BinaryOp::kOr: return 1;
    case BinaryOp::kXor: return 2;
  }
  return kIrVersion;
}

int64_t RequiredIrVersion(const Module& module) {
  NewestFeature walk;
  for (const Kernel& kernel : module.kernels) {
    if (!kernel) continue;
    walk.VisitKernel(*kernel);
    if (!kernel->requirements.empty()) {
      walk.version = std::max(walk.version, kShapeRequirementsIrVersion);
    }
  }
  return walk.version;
}

}  // namespace tile_ir
