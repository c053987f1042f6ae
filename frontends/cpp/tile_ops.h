// Tile operations of the C++ embedded API, named as in TileLang:
//   copy(A.tile({by * 128, k * 32}), A_s);
//   gemm(A_s, B_s, C_l, {.transpose_b = true});
//   reduce_max(S, m, /*dim=*/1);
#ifndef FRONTENDS_CPP_TILE_OPS_H_
#define FRONTENDS_CPP_TILE_OPS_H_

#include <source_location>

#include "frontends/cpp/expr_handle.h"
#include "frontends/cpp/tensor.h"
#include "tile_ir/stmt.h"

namespace tile_ir::dsl {

using std::source_location;

void copy(const Tile& src, const Tile& dst, source_location loc = source_location::current());

struct GemmOptions {
  bool transpose_a = false;
  bool transpose_b = false;
  WarpPolicy policy = WarpPolicy::kSquare;
  bool clear_accum = false;
};
// C (+)= op(A) * op(B); C is a fragment accumulator.
void gemm(const Tile& a, const Tile& b, const Tile& c, GemmOptions options = {},
          source_location loc = source_location::current());

void fill(const Tile& dst, E value, source_location loc = source_location::current());
// fill with zero.
void clear(const Tile& dst, source_location loc = source_location::current());

// Reduce src over `dim` into dst; with clear=false dst's old value joins in.
void reduce_sum(const Tile& src, const Tile& dst, int dim, bool clear = true,
                source_location loc = source_location::current());
void reduce_max(const Tile& src, const Tile& dst, int dim, bool clear = true,
                source_location loc = source_location::current());
void reduce_min(const Tile& src, const Tile& dst, int dim, bool clear = true,
                source_location loc = source_location::current());
void reduce_absmax(const Tile& src, const Tile& dst, int dim, bool clear = true,
                   source_location loc = source_location::current());
// ir_version 6: the sum of magnitudes, the product, and bitwise and, or, xor (integers).
void reduce_abssum(const Tile& src, const Tile& dst, int dim, bool clear = true,
                   source_location loc = source_location::current());
void reduce_prod(const Tile& src, const Tile& dst, int dim, bool clear = true,
                 source_location loc = source_location::current());
void reduce_bitand(const Tile& src, const Tile& dst, int dim, bool clear = true,
                   source_location loc = source_location::current());
void reduce_bitor(const Tile& src, const Tile& dst, int dim, bool clear = true,
                  source_location loc = source_location::current());
void reduce_bitxor(const Tile& src, const Tile& dst, int dim, bool clear = true,
                   source_location loc = source_location::current());

// dst += src element-wise, atomically.
void atomic_add(const Tile& src, const Tile& dst, source_location loc = source_location::current());
// Inclusive prefix sum along dim.
void cumsum(const Tile& src, const Tile& dst, int dim, bool reverse = false,
            source_location loc = source_location::current());

}  // namespace tile_ir::dsl

#endif  // FRONTENDS_CPP_TILE_OPS_H_
