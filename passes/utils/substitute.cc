// A mutator that replaces variables, rebuilding buffers whose declarations
// mention them.
#include "passes/utils/substitute.h"

#include <utility>
#include <vector>

#include "tile_ir/mutator.h"

namespace tile_ir::passes {
namespace {

class Substituter : public IRMutator {
 public:
  explicit Substituter(const VarMap& map) : map_(map) {}

  Buffer MutateBufferOf(const Buffer& buffer) { return MutateBuffer(buffer); }

 protected:
  Expr MutateVar(const Var& node, const Expr& self) override {
    auto it = map_.find(&node);
    return it == map_.end() ? self : it->second;
  }

  Buffer MutateBuffer(const Buffer& buffer) override {
    auto done = buffers_.find(buffer.get());
    if (done != buffers_.end()) return done->second;
    bool changed = false;
    std::vector<Expr> shape = MutateExprs(buffer->shape, &changed);
    std::vector<Expr> strides = MutateExprs(buffer->strides, &changed);
    Buffer result = changed ? BufferNode::Make(buffer->name, buffer->dtype, std::move(shape),
                                               buffer->scope, std::move(strides), buffer->layout)
                            : buffer;
    buffers_.emplace(buffer.get(), result);
    return result;
  }

 private:
  const VarMap& map_;
  absl::flat_hash_map<const BufferNode*, Buffer> buffers_;
};

}  // namespace

Expr Substitute(const Expr& e, const VarMap& map) {
  if (map.empty()) return e;
  Substituter substituter(map);
  return substituter.Mutate(e);
}

Stmt Substitute(const Stmt& s, const VarMap& map) {
  if (map.empty()) return s;
  Substituter substituter(map);
  return substituter.Mutate(s);
}

Kernel Substitute(const Kernel& kernel, const VarMap& map) {
  if (map.empty()) return kernel;
  Substituter substituter(map);
  std::vector<Param> params = kernel->params;
  for (Param& param : params) {
    if (param.is_buffer()) param.buffer = substituter.MutateBufferOf(param.buffer);
  }
  Kernel body = substituter.MutateKernel(kernel);
  return KernelNode::Make(kernel->name, kernel->dims, std::move(params), body->launch, body->body,
                          kernel->loc, body->requirements);
}

Kernel RemapBlockIndices(const Kernel& kernel, Launch launch, std::vector<Stmt> lets,
                         const VarMap& map) {
  Stmt body = Substitute(kernel->body, map);
  if (const Seq* seq = As<Seq>(body)) {
    lets.insert(lets.end(), seq->stmts.begin(), seq->stmts.end());
  } else {
    lets.push_back(std::move(body));
  }
  return KernelNode::Make(kernel->name, kernel->dims, kernel->params, std::move(launch),
                          Seq::Make(std::move(lets), kernel->body->loc()), kernel->loc,
                          kernel->requirements);
}

}  // namespace tile_ir::passes
