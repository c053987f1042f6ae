// Asynchronous copies: finds the producer statements of software pipelines and asks the
// target for the asynchronous form of each aligned global-to-shared vector store.
#include "passes/transforms/async_copies.h"

#include <cmath>

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "passes/analysis/divisibility.h"
#include "tile_ir/mutator.h"

namespace tile_ir::passes {
namespace {

constexpr int64_t kMaxDivisor = Divisibility::kMaxDivisor;

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
    // A ragged row's copy, `select(guard, src, 0)` with one guard for the whole vector, is an
    // asynchronous copy that writes zeros where the guard is false.
    Expr copy_if;
    const BufferLoad* load = As<BufferLoad>(node.value);
    if (const Select* select = As<Select>(node.value)) {
      copy_if = UniformCondition(select->cond);
      load = copy_if && IsZero(select->false_value) ? As<BufferLoad>(select->true_value) : nullptr;
    }
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
    std::optional<Stmt> async = target_.AsyncCopy(dst, src, bytes, copy_if);
    return async ? *std::move(async) : self;
  }

 private:
  // The scalar condition of a vector select whose lanes all take the same branch (a
  // broadcast or a scalar), else null.
  static Expr UniformCondition(const Expr& cond) {
    if (cond->dtype().lanes() == 1) return cond;
    const Broadcast* broadcast = As<Broadcast>(cond);
    return broadcast != nullptr ? broadcast->value : nullptr;
  }
  static bool IsZero(const Expr& e) {
    const Broadcast* broadcast = As<Broadcast>(e);
    const Expr& scalar = broadcast != nullptr ? broadcast->value : e;
    if (std::optional<int64_t> value = AsConstInt(scalar)) return *value == 0;
    const FloatImm* imm = As<FloatImm>(scalar);
    return imm != nullptr && imm->value == 0.0 && !std::signbit(imm->value);
  }

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
  return *MapKernels(module,
                     [&target](const Kernel& kernel) { return MakeCopiesAsync(kernel, target); });
}

PassInfo AsyncCopiesPass() {
  PassInfo info;
  info.name = "async-copies";
  info.description =
      "turns aligned global-to-shared vector copies that pipelines issue ahead of their use "
      "into the target's asynchronous copies";
  info.needs_target = true;
  info.run_kernel = EachKernel([](const Kernel& kernel, const PassOptions& options) {
    return MakeCopiesAsync(kernel, options.target());
  });
  return info;
}

}  // namespace tile_ir::passes
