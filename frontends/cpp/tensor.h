// Tensors (buffers) and tiles (regions of them) in the C++ embedded API.
//   Tensor A_s = alloc_shared("A_s", {128, 32}, kF16);
//   copy(A.tile({by * 128, k * 32}), A_s);   // extents taken from A_s
//   C_l(i, j) = C_l(i, j) * scale;           // element load and store
#ifndef FRONTENDS_CPP_TENSOR_H_
#define FRONTENDS_CPP_TENSOR_H_

#include <functional>
#include <optional>
#include <source_location>
#include <string>
#include <vector>

#include "frontends/cpp/expr_handle.h"
#include "tile_ir/buffer.h"

namespace tile_ir::dsl {

class Tensor;

// A rectangular tile of a tensor. When `extents` is empty the tile only
// gives its start; a tile operation then takes the extents from its other
// operand (aligned to the right, leading dimensions of extent 1), as in
// TileLang's T.copy(A[by * 128, k * 32], A_shared).
struct Tile {
  Buffer buffer;
  std::vector<E> mins;
  std::vector<E> extents;

  Tile(const Tensor& tensor);  // the whole tensor
  Tile(Buffer buffer, std::vector<E> mins, std::vector<E> extents)
      : buffer(std::move(buffer)), mins(std::move(mins)), extents(std::move(extents)) {}
};

// The first index of an element access; it records where the access was
// written, because an assignment operator cannot take a location argument.
struct FirstIndex {
  template <typename T>
  FirstIndex(T index, std::source_location loc = std::source_location::current())
      : index(E(index)), loc(loc) {}
  E index;
  std::source_location loc;
};

// An element reference: reads as a load, assignment stores.
class ElementRef {
 public:
  ElementRef(Buffer buffer, std::vector<E> indices, std::source_location loc)
      : buffer_(std::move(buffer)), indices_(std::move(indices)), loc_(loc) {}
  operator E() const;
  E load() const { return E(*this); }
  // Stores into the active kernel at the location of the element access.
  void operator=(E value) const;
  void operator=(const ElementRef& other) const { *this = other.load(); }

 private:
  Buffer buffer_;
  std::vector<E> indices_;
  std::source_location loc_;
};

class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(Buffer buffer) : buffer_(std::move(buffer)) {}

  const Buffer& buffer() const { return buffer_; }
  int rank() const { return buffer_->rank(); }
  E shape(int dim) const { return E(buffer_->shape.at(dim)); }
  DataType dtype() const { return buffer_->dtype; }

  template <typename... Index>
  ElementRef operator()(FirstIndex first, Index... rest) const {
    return ElementRef(buffer_, std::vector<E>{first.index, E(rest)...}, first.loc);
  }
  ElementRef at(std::vector<E> indices,
                std::source_location loc = std::source_location::current()) const {
    return ElementRef(buffer_, std::move(indices), loc);
  }
  // A tile starting at `mins`; with `extents` empty its size comes from the
  // other operand of the tile operation it is used in.
  Tile tile(std::vector<E> mins, std::vector<E> extents = {}) const {
    return Tile(buffer_, std::move(mins), std::move(extents));
  }

 private:
  Buffer buffer_;
};

// Allocations in the active kernel (shared: per block; fragment: a register
// tile spread over the block's threads; local: per thread).
Tensor alloc_shared(const std::string& name, std::vector<E> shape, DataType dtype,
                    std::source_location loc = std::source_location::current());
Tensor alloc_fragment(const std::string& name, std::vector<E> shape, DataType dtype,
                      std::source_location loc = std::source_location::current());
Tensor alloc_local(const std::string& name, std::vector<E> shape, DataType dtype,
                   std::source_location loc = std::source_location::current());
// A scalar variable: a local buffer of one element; read and write it with v(0).
Tensor alloc_var(const std::string& name, DataType dtype,
                 std::source_location loc = std::source_location::current());
// A user layout for a shared or fragment tensor (TileLang's T.annotate_layout):
// `fn` maps the index variables to the physical position.
void annotate_layout(const Tensor& tensor,
                     const std::function<std::vector<E>(const std::vector<E>&)>& fn);

}  // namespace tile_ir::dsl

#endif  // FRONTENDS_CPP_TENSOR_H_
