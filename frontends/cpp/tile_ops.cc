#include "frontends/cpp/tile_ops.h"

#include "frontends/cpp/builder.h"
#include "frontends/cpp/promotion.h"

namespace tile_ir::dsl {
namespace {

// Completes a start-only tile with extents from the other operand, aligned to
// the right; leading dimensions get extent 1.
Region Resolve(const Tile& tile, const Tile& other) {
  Region region{tile.buffer, {}};
  const size_t rank = tile.mins.size();
  std::vector<E> extents = tile.extents;
  if (extents.empty()) {
    const std::vector<E>& from = other.extents.empty() ? std::vector<E>{} : other.extents;
    for (size_t d = 0; d < rank; ++d) {
      size_t offset = rank - d;
      extents.push_back(offset <= from.size() ? from[from.size() - offset] : E(1));
    }
  }
  for (size_t d = 0; d < rank && d < extents.size(); ++d) {
    DataType dtype = d < tile.buffer->shape.size() ? tile.buffer->shape[d]->dtype() : kI32;
    region.ranges.push_back({typed(tile.mins[d], dtype), typed(extents[d], dtype)});
  }
  return region;
}

Region Full(const Tile& tile) { return Resolve(tile, tile); }

void Reduce(ReduceKind kind, const Tile& src, const Tile& dst, int dim, bool clear,
            source_location loc) {
  KernelBuilder::Active().Append(
      Reduce::Make(kind, Full(src), Full(dst), dim, clear, ToSourceLoc(loc)));
}

}  // namespace

void copy(const Tile& src, const Tile& dst, source_location loc) {
  KernelBuilder::Active().Append(
      Copy::Make(Resolve(src, dst), Resolve(dst, src), ToSourceLoc(loc)));
}

void gemm(const Tile& a, const Tile& b, const Tile& c, GemmOptions options, source_location loc) {
  KernelBuilder::Active().Append(Gemm::Make(Full(a), Full(b), Full(c), options.transpose_a,
                                            options.transpose_b, options.policy,
                                            options.clear_accum, ToSourceLoc(loc)));
}

void fill(const Tile& dst, E value, source_location loc) {
  KernelBuilder::Active().Append(
      Fill::Make(Full(dst), ConvertTo(typed(value, dst.buffer->dtype), dst.buffer->dtype),
                 ToSourceLoc(loc)));
}

void clear(const Tile& dst, source_location loc) { fill(dst, E(0), loc); }

void reduce_sum(const Tile& src, const Tile& dst, int dim, bool clear, source_location loc) {
  Reduce(ReduceKind::kSum, src, dst, dim, clear, loc);
}
void reduce_max(const Tile& src, const Tile& dst, int dim, bool clear, source_location loc) {
  Reduce(ReduceKind::kMax, src, dst, dim, clear, loc);
}
void reduce_min(const Tile& src, const Tile& dst, int dim, bool clear, source_location loc) {
  Reduce(ReduceKind::kMin, src, dst, dim, clear, loc);
}
void reduce_absmax(const Tile& src, const Tile& dst, int dim, bool clear, source_location loc) {
  Reduce(ReduceKind::kAbsMax, src, dst, dim, clear, loc);
}
void reduce_abssum(const Tile& src, const Tile& dst, int dim, bool clear, source_location loc) {
  Reduce(ReduceKind::kAbsSum, src, dst, dim, clear, loc);
}
void reduce_prod(const Tile& src, const Tile& dst, int dim, bool clear, source_location loc) {
  Reduce(ReduceKind::kProd, src, dst, dim, clear, loc);
}
void reduce_bitand(const Tile& src, const Tile& dst, int dim, bool clear, source_location loc) {
  Reduce(ReduceKind::kBitAnd, src, dst, dim, clear, loc);
}
void reduce_bitor(const Tile& src, const Tile& dst, int dim, bool clear, source_location loc) {
  Reduce(ReduceKind::kBitOr, src, dst, dim, clear, loc);
}
void reduce_bitxor(const Tile& src, const Tile& dst, int dim, bool clear, source_location loc) {
  Reduce(ReduceKind::kBitXor, src, dst, dim, clear, loc);
}

void atomic_add(const Tile& src, const Tile& dst, source_location loc) {
  KernelBuilder::Active().Append(
      AtomicAdd::Make(Resolve(src, dst), Resolve(dst, src), ToSourceLoc(loc)));
}

void cumsum(const Tile& src, const Tile& dst, int dim, bool reverse, source_location loc) {
  KernelBuilder::Active().Append(
      Cumsum::Make(Full(src), Full(dst), dim, reverse, ToSourceLoc(loc)));
}

}  // namespace tile_ir::dsl
