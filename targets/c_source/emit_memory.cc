// Memory: element offsets, loads and stores (packed i4 through the device
// library), and vector statements, whose contiguous, aligned accesses move
// 4, 8 or 16 bytes at once (unsigned, uint2, uint4) and whose other lanes go
// one element at a time.
#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "targets/c_source/c_types.h"
#include "targets/c_source/kernel_emitter.h"

namespace tile_ir::c_source {
namespace {

// Global buffers are 16-byte aligned (the calling conventions); the shared
// pool is declared aligned to 1024 bytes (global_kernel_dialect.cc), of which
// the proofs here use 128, more than any vector access needs.
constexpr int64_t kGlobalAlign = 16;
constexpr int64_t kSharedPoolAlign = 128;

const char* MoveType(int bytes) {
  switch (bytes) {
    case 16: return "uint4";
    case 8: return "uint2";
    default: return "unsigned";
  }
}

CExpr Times(const CExpr& a, const CExpr& b) {
  return CExpr{
      absl::StrCat(Operand(a, kPrecMultiplicative), " * ", Operand(b, kPrecMultiplicative + 1)),
      kPrecMultiplicative};
}

// Offsets only: integer addition is associative (modulo 2^n), so a sum on the
// right needs no parentheses.
CExpr Plus(const CExpr& a, const CExpr& b) {
  return CExpr{absl::StrCat(Operand(a, kPrecAdditive), " + ", Operand(b, kPrecAdditive)),
               kPrecAdditive};
}

// The indices of the first lane of a contiguous vector access.
std::vector<Expr> FirstLaneIndices(const std::vector<Expr>& indices) {
  std::vector<Expr> first = indices;
  first.back() = As<Ramp>(indices.back())->base;
  return first;
}

}  // namespace

CExpr KernelEmitter::Offset(const BufferNode& buffer, const std::vector<Expr>& indices) {
  std::optional<CExpr> offset;
  if (!buffer.strides.empty()) {
    for (size_t d = 0; d < indices.size(); ++d) {
      if (AsConstInt(indices[d]) == 0) continue;
      CExpr term = EmitExpr(indices[d]);
      if (AsConstInt(buffer.strides[d]) != 1) term = Times(term, EmitExpr(buffer.strides[d]));
      offset = offset ? Plus(*offset, term) : term;
    }
    return offset ? *offset : Primary("0");
  }
  // Row-major, in Horner form: ((i0 * S1 + i1) * S2 + i2) ...
  for (size_t d = 0; d < indices.size(); ++d) {
    if (offset && AsConstInt(buffer.shape[d]) != 1) {
      offset = Times(*offset, EmitExpr(buffer.shape[d]));
    }
    if (AsConstInt(indices[d]) == 0) continue;
    CExpr index = EmitExpr(indices[d]);
    offset = offset ? Plus(*offset, index) : index;
  }
  return offset ? *offset : Primary("0");
}

CExpr KernelEmitter::EmitLoad(const BufferLoad& node) {
  auto preloaded = vector_loads_.find(&node);
  if (preloaded != vector_loads_.end() && !lane_.empty()) {
    return Primary(absl::StrCat(preloaded->second, "[", lane_, "]"));
  }
  const std::string* name = names_.Find(node.buffer.get());
  if (name == nullptr)
    return Fail(absl::StrCat("buffer '", node.buffer->name, "' is not declared"));
  CExpr offset = Offset(*node.buffer, node.indices);
  if (node.buffer->dtype.scalar() == ScalarType::kI4) {
    return Primary(absl::StrCat("tl::load_i4(", *name, ", ", offset.text, ")"));
  }
  return Primary(absl::StrCat(*name, "[", offset.text, "]"));
}

CExpr KernelEmitter::AddressOf(const BufferLoad& node) {
  if (node.buffer->dtype.scalar() == ScalarType::kI4) {
    return Fail(absl::StrCat("the address of an element of i4 buffer '", node.buffer->name,
                             "' (packed two per byte) cannot be taken"));
  }
  const std::string* name = names_.Find(node.buffer.get());
  if (name == nullptr)
    return Fail(absl::StrCat("buffer '", node.buffer->name, "' is not declared"));
  return CExpr{absl::StrCat("&", *name, "[", Offset(*node.buffer, node.indices).text, "]"),
               kPrecUnary};
}

void KernelEmitter::EmitStore(const Store& node) {
  bool vector = node.value->dtype().is_vector();
  for (const Expr& index : node.indices) vector = vector || index->dtype().is_vector();
  if (vector) return EmitVectorStore(node);
  const BufferNode& buffer = *node.buffer;
  const std::string* name = names_.Find(&buffer);
  if (name == nullptr) {
    Fail(absl::StrCat("buffer '", buffer.name, "' is not declared"));
    return;
  }
  CExpr offset = Offset(buffer, node.indices);
  CExpr value = EmitExpr(node.value);
  if (buffer.dtype.scalar() == ScalarType::kI4) {
    const char* store = buffer.scope == MemoryScope::kLocal ? "tl::store_i4_local" : "tl::store_i4";
    Line(absl::StrCat(store, "(", *name, ", ", offset.text, ", ", value.text, ");"));
    return;
  }
  Line(absl::StrCat(*name, "[", offset.text, "] = ", value.text, ";"));
}

void KernelEmitter::EmitVectorStore(const Store& node) {
  const BufferNode& buffer = *node.buffer;
  int lanes = node.value->dtype().lanes();
  for (const Expr& index : node.indices) lanes = std::max(lanes, index->dtype().lanes());
  int bytes = VectorMoveBytes(buffer, node.indices, lanes);
  const std::string* name = names_.Find(&buffer);
  if (name == nullptr) {
    Fail(absl::StrCat("buffer '", buffer.name, "' is not declared"));
    return;
  }
  const BufferLoad* source = As<BufferLoad>(node.value);
  if (bytes > 0 && source != nullptr && VectorMoveBytes(*source->buffer, source->indices, lanes)) {
    // A plain copy moves the bytes directly.
    std::string type = MoveType(bytes);
    Line(absl::StrCat(
        "*reinterpret_cast<", type, "*>(",
        AddressOf(*As<BufferLoad>(BufferLoad::Make(node.buffer, FirstLaneIndices(node.indices))))
            .text,
        ") = *reinterpret_cast<const ", type, "*>(",
        AddressOf(
            *As<BufferLoad>(BufferLoad::Make(source->buffer, FirstLaneIndices(source->indices))))
            .text,
        ");"));
    return;
  }
  // The whole vector is computed before any lane is stored, as the IR's
  // vector store does, then stored by one move or lane by lane.
  Line("{");
  ++indent_;
  PreloadVectors(node.value);
  if (values_name_.empty()) values_name_ = names_.Fresh("values");
  std::string element = dialect_.ValueType(buffer.dtype.scalar());
  Line(absl::StrCat(dialect_.AlignedArrayPrefix(), element, " ", values_name_, "[", lanes, "];"));
  ForEachLane(lanes, [&] {
    CExpr value = EmitExpr(node.value);
    Line(absl::StrCat(values_name_, "[", lane_, "] = ", value.text, ";"));
  });
  if (bytes > 0) {
    std::string type = MoveType(bytes);
    CExpr address =
        AddressOf(*As<BufferLoad>(BufferLoad::Make(node.buffer, FirstLaneIndices(node.indices))));
    Line(absl::StrCat("*reinterpret_cast<", type, "*>(", address.text,
                      ") = *reinterpret_cast<const ", type, "*>(", values_name_, ");"));
  } else {
    ForEachLane(lanes, [&] {
      CExpr offset = Offset(buffer, node.indices);
      std::string value = absl::StrCat(values_name_, "[", lane_, "]");
      if (buffer.dtype.scalar() == ScalarType::kI4) {
        const char* store =
            buffer.scope == MemoryScope::kLocal ? "tl::store_i4_local" : "tl::store_i4";
        Line(absl::StrCat(store, "(", *name, ", ", offset.text, ", ", value, ");"));
      } else {
        Line(absl::StrCat(*name, "[", offset.text, "] = ", value, ";"));
      }
    });
  }
  --indent_;
  Line("}");
  vector_loads_.clear();
}

int KernelEmitter::VectorMoveBytes(const BufferNode& buffer, const std::vector<Expr>& indices,
                                   int lanes) {
  ScalarType type = buffer.dtype.scalar();
  if (type == ScalarType::kI4 || buffer.scope == MemoryScope::kLocal || indices.empty()) return 0;
  const Ramp* ramp = As<Ramp>(indices.back());
  if (ramp == nullptr || ramp->lanes != lanes || AsConstInt(ramp->stride) != 1) return 0;
  for (size_t d = 0; d + 1 < indices.size(); ++d) {
    if (indices[d]->dtype().is_vector()) return 0;
  }
  if (!buffer.strides.empty() && AsConstInt(buffer.strides.back()) != 1) return 0;
  int64_t element_bytes = DataType(type).bits() / 8;
  int64_t bytes = lanes * element_bytes;
  if ((bytes != 4 && bytes != 8 && bytes != 16) || bytes > dialect_.max_vector_move_bytes()) {
    return 0;
  }
  int64_t base_align = kGlobalAlign;
  if (buffer.scope == MemoryScope::kShared) {
    auto it = shared_offsets_.find(&buffer);
    if (it == shared_offsets_.end()) return 0;
    base_align = std::min(kSharedPoolAlign, passes::Divisibility::OfConstant(it->second));
  }
  int64_t divisor = divisibility_.OffsetOf(buffer, FirstLaneIndices(indices));
  int64_t align = std::min(base_align, divisor * element_bytes);
  return align >= bytes ? static_cast<int>(bytes) : 0;
}

void KernelEmitter::PreloadVectors(const Expr& value) {
  if (!value || !error_.ok()) return;
  switch (value->kind()) {
    case ExprKind::kUnary: return PreloadVectors(As<Unary>(value)->a);
    case ExprKind::kBinary: {
      const Binary& node = *As<Binary>(value);
      PreloadVectors(node.a);
      // The right operand of && and || runs only when the left one allows it.
      if (!IsLogical(node.op)) PreloadVectors(node.b);
      return;
    }
    case ExprKind::kCast: return PreloadVectors(As<Cast>(value)->value);
    case ExprKind::kSelect:
      // Only the condition runs unconditionally.
      return PreloadVectors(As<Select>(value)->cond);
    case ExprKind::kCall:
      for (const Expr& arg : As<Call>(value)->args) PreloadVectors(arg);
      return;
    case ExprKind::kBroadcast: return PreloadVectors(As<Broadcast>(value)->value);
    case ExprKind::kBufferLoad: {
      const BufferLoad& load = *As<BufferLoad>(value);
      int lanes = load.dtype().lanes();
      int bytes = lanes > 1 ? VectorMoveBytes(*load.buffer, load.indices, lanes) : 0;
      if (bytes == 0 || vector_loads_.contains(&load)) return;
      std::string name = names_.Fresh(load.buffer->name + "_vec");
      std::string type = MoveType(bytes);
      CExpr address =
          AddressOf(*As<BufferLoad>(BufferLoad::Make(load.buffer, FirstLaneIndices(load.indices))));
      Line(absl::StrCat(dialect_.AlignedArrayPrefix(),
                        dialect_.ValueType(load.buffer->dtype.scalar()), " ", name, "[", lanes,
                        "];"));
      Line(absl::StrCat("*reinterpret_cast<", type, "*>(", name, ") = *reinterpret_cast<const ",
                        type, "*>(", address.text, ");"));
      vector_loads_[&load] = name;
      return;
    }
    default: return;
  }
}

}  // namespace tile_ir::c_source
