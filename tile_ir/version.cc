// The feature versions of version.h and the walk that finds the newest one a module uses.
#include "tile_ir/version.h"

#include <algorithm>
#include <limits>

#include "tile_ir/intrinsics.h"
#include "tile_ir/module.h"
#include "tile_ir/visitor.h"

namespace tile_ir {
namespace {

// No Abseil here: the IR library links nothing but the standard library.
std::string At(const SourceLoc& loc) { return loc.known() ? " at " + loc.ToString() : ""; }

// Every expression of a kernel: shapes, strides and layouts of every buffer declaration,
// grid extents and the body. Keeps the newest version used and the first feature newer
// than `limit`; only that one is described, so that RequiredIrVersion builds no strings.
class FeatureWalk : public IRVisitor {
 public:
  FeatureWalk(const KernelNode& kernel, int64_t limit) : kernel_(kernel), limit_(limit) {}

  // Requirements first: the text form writes them before the body; then the parameters' types
  // in their order (a scalar's need appear in no expression).
  void Run() {
    if (!kernel_.requirements.empty()) {
      Use(kShapeRequirementsIrVersion, [&] {
        const SourceLoc& loc = kernel_.requirements.front().loc;
        return "the shape requirements ('require ...;') of kernel '" + kernel_.name + "'" +
               At(loc.known() ? loc : kernel_.loc);
      });
    }
    for (const Param& param : kernel_.params) {
      if (param.scalar) {
        UseType(param.scalar->dtype(),
                [&] { return " of the parameter '" + param.scalar->name + "'"; });
      } else if (param.buffer) {
        UseType(param.buffer->dtype, [&] { return " of the buffer '" + param.buffer->name + "'"; });
      }
    }
    VisitKernel(kernel_);
  }

  int64_t newest() const { return newest_; }
  std::optional<IrFeature>& first_newer() { return first_newer_; }

  using IRVisitor::Visit;
  // IR under construction may have null parts, and the writers still print and serialize it.
  void Visit(const Expr& e) override {
    if (!e) return;
    UseType(e->dtype(), [] { return std::string(); });
    IRVisitor::Visit(e);
  }
  // Remembers the innermost statement with a location: expressions have none of their own.
  void Visit(const Stmt& s) override {
    if (!s || !s->loc().known()) return IRVisitor::Visit(s);
    const SourceLoc* outer = where_;
    where_ = &s->loc();
    IRVisitor::Visit(s);
    where_ = outer;
  }

 protected:
  void VisitBinary(const Binary& node) override {
    Use(IntroducedInIrVersion(node.op), [&] {
      return "the " + std::string(BinaryOpName(node.op)) + " operator in kernel '" + kernel_.name +
             "'" + At(where_ ? *where_ : kernel_.loc);
    });
    IRVisitor::VisitBinary(node);
  }
  void VisitCall(const Call& node) override {
    Use(IntroducedInIrVersion(node.name), [&] {
      return "the intrinsic '" + node.name + "' in kernel '" + kernel_.name + "'" +
             At(where_ ? *where_ : kernel_.loc);
    });
    IRVisitor::VisitCall(node);
  }
  void VisitReduce(const Reduce& node) override {
    Use(IntroducedInIrVersion(node.reduce_kind), [&] {
      return "the reduction '" + std::string(ReduceKindName(node.reduce_kind)) + "' in kernel '" +
             kernel_.name + "'" + At(node.loc().known() ? node.loc() : kernel_.loc);
    });
    IRVisitor::VisitReduce(node);
  }
  // The base visitor skips layouts (their inputs are bound only inside them); a swizzled
  // shared layout is exactly where a newer operator may appear.
  void VisitBufferDecl(const Buffer& buffer) override {
    if (!buffer) return;
    UseType(buffer->dtype, [&] { return " of the buffer '" + buffer->name + "'"; });
    IRVisitor::VisitBufferDecl(buffer);
    if (!buffer->layout) return;
    if (buffer->layout->replicated()) {
      Use(kReplicatedLayoutIrVersion, [&] {
        return "the replicated layout of '" + buffer->name + "' in kernel '" + kernel_.name + "'" +
               At(where_ ? *where_ : kernel_.loc);
      });
    }
    for (const Expr& output : buffer->layout->outputs) Visit(output);
  }

 private:
  // `of_what` names the declaration that has the type (" of the buffer 'B'"), empty for an
  // expression's.
  template <typename OfWhat>
  void UseType(DataType dtype, OfWhat of_what) {
    Use(IntroducedInIrVersion(dtype.scalar()), [&] {
      return "the type " + dtype.element().ToString() + of_what() + " in kernel '" + kernel_.name +
             "'" + At(where_ ? *where_ : kernel_.loc);
    });
  }

  template <typename Describe>
  void Use(int64_t version, Describe describe) {
    newest_ = std::max(newest_, version);
    if (version > limit_ && !first_newer_) first_newer_ = IrFeature{version, describe()};
  }

  const KernelNode& kernel_;
  const int64_t limit_;
  const SourceLoc* where_ = nullptr;
  int64_t newest_ = 1;
  std::optional<IrFeature> first_newer_;
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
    case BinaryOp::kBitAnd:
    case BinaryOp::kBitOr:
    case BinaryOp::kShl:
    case BinaryOp::kShr: return kBitOperationsIrVersion;
  }
  return kIrVersion;
}

int64_t IntroducedInIrVersion(std::string_view intrinsic) {
  if (intrinsic == kReinterpret || intrinsic == kAtomicMaxAt || intrinsic == kAtomicMinAt) {
    return kBitOperationsIrVersion;
  }
  return 1;
}

// No default, as for the operators.
int64_t IntroducedInIrVersion(ReduceKind kind) {
  switch (kind) {
    case ReduceKind::kSum:
    case ReduceKind::kMax:
    case ReduceKind::kMin:
    case ReduceKind::kAbsMax: return 1;
    case ReduceKind::kAbsSum:
    case ReduceKind::kProd:
    case ReduceKind::kBitAnd:
    case ReduceKind::kBitOr:
    case ReduceKind::kBitXor: return kMoreReductionsIrVersion;
  }
  return kIrVersion;
}

// No default, as for the operators.
int64_t IntroducedInIrVersion(ScalarType type) {
  switch (type) {
    case ScalarType::kVoid:
    case ScalarType::kBool:
    case ScalarType::kI4:
    case ScalarType::kI8:
    case ScalarType::kI16:
    case ScalarType::kI32:
    case ScalarType::kI64:
    case ScalarType::kU8:
    case ScalarType::kF8E4M3:
    case ScalarType::kF8E5M2:
    case ScalarType::kF16:
    case ScalarType::kBF16:
    case ScalarType::kF32:
    case ScalarType::kF64: return 1;
    case ScalarType::kU16:
    case ScalarType::kU32:
    case ScalarType::kU64: return kWideUnsignedIrVersion;
  }
  return kIrVersion;
}

int64_t RequiredIrVersion(const Module& module) {
  int64_t newest = 1;
  for (const Kernel& kernel : module.kernels) {
    if (!kernel) continue;
    FeatureWalk walk(*kernel, std::numeric_limits<int64_t>::max());
    walk.Run();
    newest = std::max(newest, walk.newest());
  }
  return newest;
}

std::optional<IrFeature> FirstFeatureNewerThan(const Module& module, int64_t version) {
  for (const Kernel& kernel : module.kernels) {
    if (!kernel) continue;
    FeatureWalk walk(*kernel, version);
    walk.Run();
    if (walk.first_newer()) return std::move(walk.first_newer());
  }
  return std::nullopt;
}

}  // namespace tile_ir
