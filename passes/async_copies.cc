// Asynchronous copies: finds the producer statements of software pipelines and asks the
// target for the asynchronous form of each aligned global-to-shared vector store.
#include "passes/async_copies.h"

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "passes/target_option.h"
#include "tile_ir/mutator.h"
#include "tile_ir/visitor.h"

namespace tile_ir::passes {
namespace {

// Divisors are tracked up to this power of two; larger ones change no alignment decision.
constexpr int64_t kMaxDivisor = int64_t{1} << 20;

int64_t LowestPowerOfTwo(int64_t value) {
  if (value == 0) return kMaxDivisor;
  uint64_t magnitude = value < 0 ? -static_cast<uint64_t>(value) : static_cast<uint64_t>(value);
  return std::min<int64_t>(static_cast<int64_t>(magnitude & (~magnitude + 1)), kMaxDivisor);
}

// The largest power of two known to divide integer expressions, through the lets that bind
// the variables they use.
class Divisibility : public IRVisitor {
 public:
  using IRVisitor::Visit;

  int64_t Of(const Expr& e) const {
    switch (e->kind()) {
      case ExprKind::kIntImm:
        return LowestPowerOfTwo(As<IntImm>(e)->value);
      case ExprKind::kVar: {
        auto it = lets_.find(As<Var>(e));
        return it == lets_.end() ? 1 : it->second;
      }
      case ExprKind::kRamp:
        return Of(As<Ramp>(e)->base);
      case ExprKind::kCast:
        return e->dtype().is_int() ? Of(As<Cast>(e)->value) : 1;
      case ExprKind::kBinary: {
        const Binary& node = *As<Binary>(e);
        int64_t a = Of(node.a);
        int64_t b = Of(node.b);
        switch (node.op) {
          case BinaryOp::kAdd:
          case BinaryOp::kSub:
          case BinaryOp::kMin:
          case BinaryOp::kMax:
            return std::min(a, b);
          case BinaryOp::kMul:
            return std::min(a * b, kMaxDivisor);
          case BinaryOp::kMod:
          case BinaryOp::kFloorMod: {
            // x % m keeps x's powers of two up to m's when m is a power of two.
            std::optional<int64_t> m = AsConstInt(node.b);
            return m && *m > 0 && LowestPowerOfTwo(*m) == *m ? std::min(a, *m) : 1;
          }
          default:
            return 1;
        }
      }
      default:
        return 1;
    }
  }

  // The power of two dividing the element offset of `indices` in `buffer`.
  int64_t OffsetOf(const BufferNode& buffer, const std::vector<Expr>& indices) const {
    int64_t divisor = kMaxDivisor;
    int64_t row_major_stride = 1;
    for (size_t d = indices.size(); d-- > 0;) {
      int64_t stride = buffer.strides.empty() ? row_major_stride : Of(buffer.strides[d]);
      divisor = std::min(divisor, std::min(Of(indices[d]) * stride, kMaxDivisor));
      if (buffer.strides.empty() && d < buffer.shape.size()) {
        row_major_stride = std::min(row_major_stride * Of(buffer.shape[d]), kMaxDivisor);
      }
    }
    return divisor;
  }

 protected:
  void VisitLet(const Let& node) override {
    IRVisitor::VisitLet(node);
    if (node.var->dtype().is_int()) lets_[node.var.get()] = Of(node.value);
  }

 private:
  absl::flat_hash_map<const Var*, int64_t> lets_;
};

bool IsAsyncCommit(const Stmt& s) {
  const Evaluate* eval = As<Evaluate>(s);
  const Call* call = eval ? As<Call>(eval->value) : nullptr;
  return call != nullptr && call->name == "async_commit";
}

// Base alignment in bytes that the calling convention and shared-memory planning give.
constexpr int64_t kBaseAlignment = 16;

std::vector<Expr> FirstLane(const std::vector<Expr>& indices) {
  std::vector<Expr> first = indices;
  if (const Ramp* ramp = first.empty() ? nullptr : As<Ramp>(first.back())) first.back() = ramp->base;
  return first;
}

bool IsUnitRamp(const Expr& e, int lanes) {
  const Ramp* ramp = As<Ramp>(e);
  return ramp != nullptr && ramp->lanes == lanes && AsConstInt(ramp->stride) == 1;
}

class AsyncCopier : public IRMutator {
 public:
  AsyncCopier(const Kernel& kernel, const TargetInfo& target) : target_(target) {
    divisibility_.Visit(kernel->body);
  }

 protected:
  Stmt MutateSeq(const Seq& node, const Stmt& self) override {
    if (in_producer_) return IRMutator::MutateSeq(node, self);
    size_t last_commit = node.stmts.size();
    for (size_t i = 0; i < node.stmts.size(); ++i) {
      if (IsAsyncCommit(node.stmts[i])) last_commit = i;
    }
    bool changed = false;
    std::vector<Stmt> stmts;
    for (size_t i = 0; i < node.stmts.size(); ++i) {
      in_producer_ = last_commit < node.stmts.size() && i < last_commit;
      Stmt result = Mutate(node.stmts[i]);
      in_producer_ = false;
      changed |= result != node.stmts[i];
      stmts.push_back(std::move(result));
    }
    return changed ? Seq::Make(std::move(stmts), node.loc()) : self;
  }

  Stmt MutateStore(const Store& node, const Stmt& self) override {
    if (!in_producer_) return self;
    const BufferLoad* load = As<BufferLoad>(node.value);
    int lanes = node.value->dtype().lanes();
    if (load == nullptr || lanes < 2 || node.buffer->scope != MemoryScope::kShared ||
        load->buffer->scope != MemoryScope::kGlobal || load->buffer->dtype != node.buffer->dtype ||
        node.indices.empty() || load->indices.empty() || !IsUnitRamp(node.indices.back(), lanes) ||
        !IsUnitRamp(load->indices.back(), lanes)) {
      return self;
    }
    int64_t element_bytes = node.buffer->dtype.bits() / 8;
    int bytes = static_cast<int>(lanes * element_bytes);
    if (bytes != 4 && bytes != 8 && bytes != 16) return self;
    std::vector<Expr> dst_first = FirstLane(node.indices);
    std::vector<Expr> src_first = FirstLane(load->indices);
    auto aligned = [&](const BufferNode& buffer, const std::vector<Expr>& indices) {
      int64_t alignment = std::min(
          kBaseAlignment, std::min(divisibility_.OffsetOf(buffer, indices), kMaxDivisor) *
                              element_bytes);
      return alignment >= bytes;
    };
    if (!aligned(*node.buffer, dst_first) || !aligned(*load->buffer, src_first)) return self;
    Expr dst = BufferLoad::Make(node.buffer, dst_first);
    Expr src = BufferLoad::Make(load->buffer, src_first);
    std::optional<Stmt> async = target_.AsyncCopy(dst, src, bytes);
    return async ? *std::move(async) : self;
  }

 private:
  const TargetInfo& target_;
  Divisibility divisibility_;
  bool in_producer_ = false;
};

}  // namespace

Kernel MakeCopiesAsync(const Kernel& kernel, const TargetInfo& target) {
  if (!target.has_async_copy()) return kernel;
  return AsyncCopier(kernel, target).MutateKernel(kernel);
}

bool MakeCopiesAsync(Module& module, const TargetInfo& target) {
  bool changed = false;
  for (Kernel& kernel : module.kernels) {
    Kernel result = MakeCopiesAsync(kernel, target);
    changed |= result != kernel;
    kernel = std::move(result);
  }
  return changed;
}

PassInfo AsyncCopiesPass() {
  PassInfo info;
  info.name = "async-copies";
  info.description =
      "turns aligned global-to-shared vector copies that pipelines issue ahead of their use "
      "into the target's asynchronous copies";
  info.options = {TargetOptionSpec()};
  info.run = [](Module& module, const PassOptions& options) -> absl::StatusOr<bool> {
    absl::StatusOr<std::shared_ptr<const TargetInfo>> target =
        FindTargetOption("async-copies", options);
    if (!target.ok()) return target.status();
    return MakeCopiesAsync(module, **target);
  };
  return info;
}

}  // namespace tile_ir::passes
