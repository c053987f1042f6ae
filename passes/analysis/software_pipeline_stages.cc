// Staged tiles and the rewriting of one pipeline iteration onto them.
#include "passes/analysis/software_pipeline_stages.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "passes/analysis/arith/expr_simplifier.h"

namespace tile_ir::passes {

Buffer StagedBuffer(const Buffer& buffer, int stages) {
  std::vector<Expr> shape = {Int(stages)};
  shape.insert(shape.end(), buffer->shape.begin(), buffer->shape.end());
  std::vector<Expr> strides;
  if (!buffer->strides.empty()) {
    // One slot spans every element the old strides reach, counted in i64: shapes and strides
    // may each have their own integer type (a u8 stride of 17 over 64 rows of 16 spans 1,087).
    auto wide = [](const Expr& e) { return e->dtype() == kI64 ? e : Cast::Make(kI64, e); };
    Expr span = Int(1, kI64);
    for (size_t d = 0; d < buffer->strides.size(); ++d) {
      Expr last = Binary::Make(BinaryOp::kSub, wide(buffer->shape[d]), Int(1, kI64));
      span = Binary::Make(BinaryOp::kAdd, span,
                          Binary::Make(BinaryOp::kMul, last, wide(buffer->strides[d])));
    }
    span = arith::ExprSimplifier().Simplify(span);
    // The strides' own type where they share one that holds the span (i32 in every program
    // we know), so the staged strides print as the program wrote them.
    const DataType type = buffer->strides[0]->dtype();
    bool one_type = type == kI32;
    for (const Expr& stride : buffer->strides) one_type &= stride->dtype() == type;
    std::optional<int64_t> value = AsConstInt(span);
    if (one_type && value && *value <= INT32_MAX) span = Int(*value, type);
    strides.push_back(span);
    strides.insert(strides.end(), buffer->strides.begin(), buffer->strides.end());
  }
  std::optional<Layout> layout;
  if (buffer->layout) {
    absl::flat_hash_set<std::string> names;
    for (const VarRef& input : buffer->layout->inputs) names.insert(input->name);
    std::string name = "stage";
    for (int i = 1; names.contains(name); ++i) name = "stage_" + std::to_string(i);
    VarRef stage = Var::Make(name);
    layout = Layout{{stage}, {stage}};
    layout->inputs.insert(layout->inputs.end(), buffer->layout->inputs.begin(),
                          buffer->layout->inputs.end());
    layout->outputs.insert(layout->outputs.end(), buffer->layout->outputs.begin(),
                           buffer->layout->outputs.end());
  }
  return BufferNode::Make(buffer->name, buffer->dtype, std::move(shape), buffer->scope,
                          std::move(strides), std::move(layout));
}

Expr IterationRewriter::MutateVar(const Var& node, const Expr& self) {
  auto it = vars_.find(&node);
  return it == vars_.end() ? self : it->second;
}

Buffer IterationRewriter::MutateBuffer(const Buffer& buffer) {
  auto staged = staged_.find(buffer.get());
  if (staged != staged_.end()) return staged->second;
  auto renamed = renamed_.find(buffer.get());
  return renamed == renamed_.end() ? buffer : renamed->second;
}

Expr IterationRewriter::MutateBufferLoad(const BufferLoad& node, const Expr& self) {
  bool changed = false;
  std::vector<Expr> indices = MutateExprs(node.indices, &changed);
  Buffer buffer = MutateBuffer(node.buffer);
  if (staged_.contains(node.buffer.get())) {
    indices.insert(indices.begin(), slot_);
  } else if (!changed && buffer == node.buffer) {
    return self;
  }
  return BufferLoad::Make(std::move(buffer), std::move(indices));
}

Stmt IterationRewriter::MutateStore(const Store& node, const Stmt& self) {
  bool changed = false;
  std::vector<Expr> indices = MutateExprs(node.indices, &changed);
  Expr value = Mutate(node.value);
  Buffer buffer = MutateBuffer(node.buffer);
  if (staged_.contains(node.buffer.get())) {
    indices.insert(indices.begin(), slot_);
  } else if (!changed && buffer == node.buffer && value == node.value) {
    return self;
  }
  return Store::Make(std::move(buffer), std::move(indices), std::move(value), node.loc());
}

Stmt IterationRewriter::MutateCopy(const Copy& node, const Stmt&) {
  return Copy::Make(Restage(node.src), Restage(node.dst), node.loc());
}

Stmt IterationRewriter::MutateGemm(const Gemm& node, const Stmt&) {
  return Gemm::Make(Restage(node.a), Restage(node.b), Restage(node.c), node.transpose_a,
                    node.transpose_b, node.policy, node.clear_accum, node.loc());
}

Stmt IterationRewriter::MutateFill(const Fill& node, const Stmt&) {
  return Fill::Make(Restage(node.dst), Mutate(node.value), node.loc());
}

Stmt IterationRewriter::MutateFor(const For& node, const Stmt& self) {
  if (rename_ == nullptr) return IRMutator::MutateFor(node, self);
  Expr min = Mutate(node.min);
  Expr extent = Mutate(node.extent);
  VarRef var = Rename(node.var);
  return For::Make(std::move(var), std::move(min), std::move(extent), node.for_kind,
                   MutateBody(node.body), node.loc(), node.pipeline, node.thread_axis);
}

Stmt IterationRewriter::MutateLet(const Let& node, const Stmt& self) {
  if (rename_ == nullptr) return IRMutator::MutateLet(node, self);
  Expr value = Mutate(node.value);
  return Let::Make(Rename(node.var), std::move(value), node.loc());
}

Stmt IterationRewriter::MutateAllocate(const Allocate& node, const Stmt& self) {
  if (rename_ == nullptr) return IRMutator::MutateAllocate(node, self);
  const Buffer& old = node.buffer;
  bool changed = false;
  std::vector<Expr> shape = MutateExprs(old->shape, &changed);
  std::vector<Expr> strides = MutateExprs(old->strides, &changed);
  Buffer buffer = BufferNode::Make(rename_->Fresh(old->name), old->dtype, std::move(shape),
                                   old->scope, std::move(strides), old->layout);
  renamed_[old.get()] = buffer;
  return Allocate::Make(std::move(buffer), node.loc(), node.shared_offset);
}

Region IterationRewriter::Restage(const Region& region) {
  Region result = MutateRegion(region);
  if (staged_.contains(region.buffer.get())) {
    result.ranges.insert(result.ranges.begin(), Range{slot_, Int(1, slot_->dtype())});
  }
  return result;
}

VarRef IterationRewriter::Rename(const VarRef& var) {
  VarRef fresh = Var::Make(rename_->Fresh(var->name), var->dtype());
  vars_[var.get()] = fresh;
  return fresh;
}

bool IsFullRegion(const Region& region) {
  for (size_t d = 0; d < region.ranges.size(); ++d) {
    std::optional<int64_t> size = AsConstInt(region.buffer->shape[d]);
    if (AsConstInt(region.ranges[d].min) != 0) return false;
    if (region.ranges[d].extent != region.buffer->shape[d] &&
        (!size || AsConstInt(region.ranges[d].extent) != *size)) {
      return false;
    }
  }
  return true;
}

Stmt AllocationRestager::MutateAllocate(const Allocate& node, const Stmt& self) {
  auto it = staged_.find(node.buffer.get());
  // The old offset no longer fits the bigger buffer: plan-shared-memory places it again.
  return it == staged_.end() ? self : Allocate::Make(it->second, node.loc());
}

}  // namespace tile_ir::passes
