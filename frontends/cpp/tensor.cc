#include "frontends/cpp/tensor.h"

#include "frontends/cpp/builder.h"
#include "frontends/cpp/promotion.h"
#include "tile_ir/stmt.h"

namespace tile_ir::dsl {

Tile::Tile(const Tensor& tensor) : buffer(tensor.buffer()) {
  for (const Expr& extent : buffer->shape) {
    mins.push_back(E(Int(0, extent->dtype())));
    extents.push_back(E(extent));
  }
}

namespace {

// A literal index takes the type of the dimension it indexes.
std::vector<Expr> IndexExprs(const Buffer& buffer, const std::vector<E>& indices) {
  std::vector<Expr> exprs;
  for (size_t d = 0; d < indices.size(); ++d) {
    DataType dtype = d < buffer->shape.size() ? buffer->shape[d]->dtype() : kI32;
    exprs.push_back(typed(indices[d], dtype));
  }
  return exprs;
}

Tensor Allocate(const std::string& name, std::vector<E> shape, DataType dtype, MemoryScope scope,
                std::source_location loc) {
  KernelBuilder& builder = KernelBuilder::Active();
  std::vector<Expr> dims;
  for (const E& e : shape) dims.push_back(e.expr());
  Buffer buffer = BufferNode::Make(builder.FreshName(name), dtype, std::move(dims), scope);
  builder.Append(tile_ir::Allocate::Make(buffer, ToSourceLoc(loc)));
  return Tensor(buffer);
}

}  // namespace

ElementRef::operator E() const { return E(BufferLoad::Make(buffer_, IndexExprs(buffer_, indices_))); }

void ElementRef::operator=(E value) const {
  KernelBuilder::Active().Append(Store::Make(buffer_, IndexExprs(buffer_, indices_),
                                             ConvertTo(typed(value, buffer_->dtype), buffer_->dtype),
                                             ToSourceLoc(loc_)));
}

Tensor alloc_shared(const std::string& name, std::vector<E> shape, DataType dtype,
                    std::source_location loc) {
  return Allocate(name, std::move(shape), dtype, MemoryScope::kShared, loc);
}

Tensor alloc_fragment(const std::string& name, std::vector<E> shape, DataType dtype,
                      std::source_location loc) {
  return Allocate(name, std::move(shape), dtype, MemoryScope::kFragment, loc);
}

Tensor alloc_local(const std::string& name, std::vector<E> shape, DataType dtype,
                   std::source_location loc) {
  return Allocate(name, std::move(shape), dtype, MemoryScope::kLocal, loc);
}

Tensor alloc_var(const std::string& name, DataType dtype, std::source_location loc) {
  return Allocate(name, {E(1)}, dtype, MemoryScope::kLocal, loc);
}

void annotate_layout(const Tensor& tensor,
                     const std::function<std::vector<E>(const std::vector<E>&)>& fn) {
  KernelBuilder& builder = KernelBuilder::Active();
  Layout layout;
  std::vector<E> inputs;
  for (int d = 0; d < tensor.rank(); ++d) {
    VarRef v = Var::Make(builder.FreshName(tensor.buffer()->name + "_l" + std::to_string(d)));
    layout.inputs.push_back(v);
    inputs.push_back(E(v));
  }
  for (const E& out : fn(inputs)) layout.outputs.push_back(out.expr());
  builder.AnnotateLayout(tensor.buffer(), std::move(layout));
}

}  // namespace tile_ir::dsl
