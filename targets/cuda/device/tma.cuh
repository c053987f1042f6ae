// The Tensor Memory Accelerator (sm_90a): tile loads from global into shared memory through a
// tensor map, completing on an mbarrier by transaction bytes, and tile stores back, completing
// as bulk groups. The calls of targets/cuda/passes/warp_specialize.h (TMA producers) and
// targets/cuda/passes/tma_stores.h (an epilogue through shared memory); the tensor maps are
// kernel parameters the runtime encodes at launch (targets/cuda/tensor_maps.h says which).
#pragma once

namespace tl {

// CUtensorMap: 128 opaque bytes, 64-byte aligned, passed as a __grid_constant__ parameter so
// that its address is the parameter's own (the TMA unit reads it from there).
struct alignas(64) TensorMap {
  unsigned long long opaque[16];
};

// One arrival on the mbarrier that also raises the bytes its phase waits for by `bytes`: the
// phase completes when every expected arrival has come and the TMA copies have delivered
// those bytes (complete_tx).
__device__ __forceinline__ void mbarrier_arrive_expect_tx(long long* barrier, int bytes) {
  asm volatile(
      "{\n"
      ".reg .b64 state;\n"
      "mbarrier.arrive.expect_tx.shared::cta.b64 state, [%0], %1;\n"
      "}\n" ::"r"(static_cast<unsigned>(__cvta_generic_to_shared(barrier))),
      "r"(bytes)
      : "memory");
}

// One box copy: `coords` are the box's first element, innermost dimension first (the
// tensor's rank is N).
template <int N>
__device__ __forceinline__ void tma_copy_box(unsigned target, unsigned long long tensor,
                                             unsigned bar, const int (&coords)[N]) {
  static_assert(N >= 2 && N <= 5, "a tensor map has rank 2 to 5");
  if constexpr (N == 2) {
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
        " [%0], [%1, {%2, %3}], [%4];\n" ::"r"(target),
        "l"(tensor), "r"(coords[0]), "r"(coords[1]), "r"(bar)
        : "memory");
  } else if constexpr (N == 3) {
    asm volatile(
        "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes"
        " [%0], [%1, {%2, %3, %4}], [%5];\n" ::"r"(target),
        "l"(tensor), "r"(coords[0]), "r"(coords[1]), "r"(coords[2]), "r"(bar)
        : "memory");
  } else if constexpr (N == 4) {
    asm volatile(
        "cp.async.bulk.tensor.4d.shared::cluster.global.mbarrier::complete_tx::bytes"
        " [%0], [%1, {%2, %3, %4, %5}], [%6];\n" ::"r"(target),
        "l"(tensor), "r"(coords[0]), "r"(coords[1]), "r"(coords[2]), "r"(coords[3]), "r"(bar)
        : "memory");
  } else {
    asm volatile(
        "cp.async.bulk.tensor.5d.shared::cluster.global.mbarrier::complete_tx::bytes"
        " [%0], [%1, {%2, %3, %4, %5, %6}], [%7];\n" ::"r"(target),
        "l"(tensor), "r"(coords[0]), "r"(coords[1]), "r"(coords[2]), "r"(coords[3]),
        "r"(coords[4]), "r"(bar)
        : "memory");
  }
}

// Thread-block clusters of two along x (cuda:sm_90a{cluster=2}; warp_specialize.h): the two
// blocks of a cluster read the same tile of one operand, and each loads half of its atom
// columns for both, landing at the same offset of both blocks' shared memory and counting its
// bytes on both blocks' mbarrier at the barrier's offset.

// This block's rank in its cluster.
__device__ __forceinline__ unsigned cluster_ctarank() {
  unsigned rank;
  asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(rank));
  return rank;
}

// Every thread of every block of the cluster arrives, then waits for all the others: orders
// the mbarrier initializations before any remote arrival, and keeps a block's shared memory
// alive until its peer is done arriving on it (the last slot of a non-persistent kernel is never
// released: nothing but this barrier keeps a block from leaving while its peer still arrives).
// Not .aligned: the kernel's last one is reached from divergent branches (the producer's one
// loading thread, the consumers' storing thread), where an aligned barrier's behaviour is
// undefined unless the warp has re-joined.
__device__ __forceinline__ void cluster_sync() {
  asm volatile(
      "barrier.cluster.arrive.release;\n"
      "barrier.cluster.wait.acquire;\n" ::
          : "memory");
}

// mbarrier_arrive_warpgroup on this block's mbarrier and on the same mbarrier of the other block
// of a cluster of two: a stage slot that both blocks' loads fill is free once both blocks'
// consumer warpgroups are done with it.
__device__ __forceinline__ void mbarrier_arrive_pair(long long* barrier) {
  if ((threadIdx.x & 127u) != 0) return;
  const unsigned local = static_cast<unsigned>(__cvta_generic_to_shared(barrier));
  asm volatile(
      "{\n"
      ".reg .b64 state;\n"
      ".reg .b32 remote;\n"
      "mbarrier.arrive.shared::cta.b64 state, [%0];\n"
      "mapa.shared::cluster.u32 remote, %0, %1;\n"
      "mbarrier.arrive.release.cluster.shared::cluster.b64 _, [remote];\n"
      "}\n" ::"r"(local),
      "r"(cluster_ctarank() ^ 1u)
      : "memory");
}

// tma_copy_box to the same offset of every block of the cluster in `mask`.
template <int N>
__device__ __forceinline__ void tma_copy_box_multicast(unsigned target, unsigned long long tensor,
                                                       unsigned bar, const int (&coords)[N],
                                                       unsigned short mask) {
  static_assert(N >= 2 && N <= 5, "a tensor map has rank 2 to 5");
  if constexpr (N == 2) {
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
        ".multicast::cluster [%0], [%1, {%2, %3}], [%4], %5;\n" ::"r"(target),
        "l"(tensor), "r"(coords[0]), "r"(coords[1]), "r"(bar), "h"(mask)
        : "memory");
  } else if constexpr (N == 3) {
    asm volatile(
        "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes"
        ".multicast::cluster [%0], [%1, {%2, %3, %4}], [%5], %6;\n" ::"r"(target),
        "l"(tensor), "r"(coords[0]), "r"(coords[1]), "r"(coords[2]), "r"(bar), "h"(mask)
        : "memory");
  } else if constexpr (N == 4) {
    asm volatile(
        "cp.async.bulk.tensor.4d.shared::cluster.global.mbarrier::complete_tx::bytes"
        ".multicast::cluster [%0], [%1, {%2, %3, %4, %5}], [%6], %7;\n" ::"r"(target),
        "l"(tensor), "r"(coords[0]), "r"(coords[1]), "r"(coords[2]), "r"(coords[3]), "r"(bar),
        "h"(mask)
        : "memory");
  } else {
    asm volatile(
        "cp.async.bulk.tensor.5d.shared::cluster.global.mbarrier::complete_tx::bytes"
        ".multicast::cluster [%0], [%1, {%2, %3, %4, %5, %6}], [%7], %8;\n" ::"r"(target),
        "l"(tensor), "r"(coords[0]), "r"(coords[1]), "r"(coords[2]), "r"(coords[3]), "r"(coords[4]),
        "r"(bar), "h"(mask)
        : "memory");
  }
}

// Loads the ROWS x COLS tile whose first element is (row, col) of the last two dimensions of
// the tensor `map` describes, at `outer` in its leading dimensions (outermost first), into
// `dst`, as core-matrix-tiles lays out an operand tile of rows of whole 128 bytes:
// [COLS / W][ROWS][W] with W = 128 / sizeof(T) elements, each 16-byte chunk c of a row r at
// chunk c ^ (r % 8). That is the TMA's 128-byte swizzle when every box is W x ROWS (x 1 in
// each leading dimension) and lands 1024-byte aligned, so the tile takes one copy per atom
// column. Elements outside the tensor arrive as zeros; each copy counts its whole box on
// `barrier`. PAIR (a cluster of two that both read the tile): this block loads the atom
// columns of its half (rank 0 the first) into both blocks (tma_copy_box_multicast, above).
template <int ROWS, int COLS, int OUTER, bool PAIR = false, typename T>
__device__ __forceinline__ void tma_load_tile(const TensorMap* map, T* dst, long long* barrier,
                                              const int (&outer)[OUTER > 0 ? OUTER : 1],
                                              int row, int col) {
#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
  static_assert(ROWS < 0, "tl::tma_load needs sm_90a");
#endif
  constexpr int kAtom = 128 / static_cast<int>(sizeof(T));
  static_assert(COLS % kAtom == 0 && ROWS % 8 == 0 && ROWS <= 256,
                "a TMA tile is whole 128-byte swizzle atoms of at most 256 rows");
  static_assert(!PAIR || COLS % (2 * kAtom) == 0,
                "a tile shared by two blocks is an even number of atom columns");
  constexpr int kAtoms = PAIR ? COLS / kAtom / 2 : COLS / kAtom;
  const int first = PAIR ? static_cast<int>(cluster_ctarank()) * kAtoms : 0;
  const unsigned bar = static_cast<unsigned>(__cvta_generic_to_shared(barrier));
  const unsigned long long tensor = reinterpret_cast<unsigned long long>(map);
#pragma unroll
  for (int a = 0; a < kAtoms; ++a) {
    const int atom = first + a;
    const unsigned target =
        static_cast<unsigned>(__cvta_generic_to_shared(dst + atom * ROWS * kAtom));
    int coords[OUTER + 2];
    coords[0] = col + atom * kAtom;
    coords[1] = row;
#pragma unroll
    for (int d = 0; d < OUTER; ++d) coords[2 + d] = outer[OUTER - 1 - d];
    if constexpr (PAIR) {
      tma_copy_box_multicast<OUTER + 2>(target, tensor, bar, coords, 0x3);
    } else {
      tma_copy_box<OUTER + 2>(target, tensor, bar, coords);
    }
  }
}

template <int ROWS, int COLS, typename T>
__device__ __forceinline__ void tma_load_2d(const TensorMap* map, T* dst, long long* barrier,
                                            int row, int col) {
  const int none[1] = {0};
  tma_load_tile<ROWS, COLS, 0>(map, dst, barrier, none, row, col);
}
template <int ROWS, int COLS, typename T>
__device__ __forceinline__ void tma_load_3d(const TensorMap* map, T* dst, long long* barrier,
                                            int c0, int row, int col) {
  const int outer[1] = {c0};
  tma_load_tile<ROWS, COLS, 1>(map, dst, barrier, outer, row, col);
}
template <int ROWS, int COLS, typename T>
__device__ __forceinline__ void tma_load_4d(const TensorMap* map, T* dst, long long* barrier,
                                            int c0, int c1, int row, int col) {
  const int outer[2] = {c0, c1};
  tma_load_tile<ROWS, COLS, 2>(map, dst, barrier, outer, row, col);
}
template <int ROWS, int COLS, typename T>
__device__ __forceinline__ void tma_load_5d(const TensorMap* map, T* dst, long long* barrier,
                                            int c0, int c1, int c2, int row, int col) {
  const int outer[3] = {c0, c1, c2};
  tma_load_tile<ROWS, COLS, 3>(map, dst, barrier, outer, row, col);
}

// The tile loads of a pair of blocks (cuda.tma_load_pair_<rank>d).
template <int ROWS, int COLS, typename T>
__device__ __forceinline__ void tma_load_pair_2d(const TensorMap* map, T* dst, long long* barrier,
                                                 int row, int col) {
  const int none[1] = {0};
  tma_load_tile<ROWS, COLS, 0, true>(map, dst, barrier, none, row, col);
}
template <int ROWS, int COLS, typename T>
__device__ __forceinline__ void tma_load_pair_3d(const TensorMap* map, T* dst, long long* barrier,
                                                 int c0, int row, int col) {
  const int outer[1] = {c0};
  tma_load_tile<ROWS, COLS, 1, true>(map, dst, barrier, outer, row, col);
}
template <int ROWS, int COLS, typename T>
__device__ __forceinline__ void tma_load_pair_4d(const TensorMap* map, T* dst, long long* barrier,
                                                 int c0, int c1, int row, int col) {
  const int outer[2] = {c0, c1};
  tma_load_tile<ROWS, COLS, 2, true>(map, dst, barrier, outer, row, col);
}
template <int ROWS, int COLS, typename T>
__device__ __forceinline__ void tma_load_pair_5d(const TensorMap* map, T* dst, long long* barrier,
                                                 int c0, int c1, int c2, int row, int col) {
  const int outer[3] = {c0, c1, c2};
  tma_load_tile<ROWS, COLS, 3, true>(map, dst, barrier, outer, row, col);
}

// One box store from shared memory: `coords` are the box's first element in the tensor,
// innermost dimension first. The TMA writes only the elements inside the tensor.
template <int N>
__device__ __forceinline__ void tma_store_box(unsigned long long tensor, unsigned source,
                                              const int (&coords)[N]) {
  static_assert(N >= 2 && N <= 5, "a tensor map has rank 2 to 5");
  if constexpr (N == 2) {
    asm volatile(
        "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];\n" ::"l"(
            tensor),
        "r"(coords[0]), "r"(coords[1]), "r"(source)
        : "memory");
  } else if constexpr (N == 3) {
    asm volatile(
        "cp.async.bulk.tensor.3d.global.shared::cta.bulk_group [%0, {%1, %2, %3}], [%4];\n" ::"l"(
            tensor),
        "r"(coords[0]), "r"(coords[1]), "r"(coords[2]), "r"(source)
        : "memory");
  } else if constexpr (N == 4) {
    asm volatile(
        "cp.async.bulk.tensor.4d.global.shared::cta.bulk_group [%0, {%1, %2, %3, %4}], [%5];\n" ::"l"(
            tensor),
        "r"(coords[0]), "r"(coords[1]), "r"(coords[2]), "r"(coords[3]), "r"(source)
        : "memory");
  } else {
    asm volatile(
        "cp.async.bulk.tensor.5d.global.shared::cta.bulk_group [%0, {%1, %2, %3, %4, %5}], [%6];\n" ::"l"(
            tensor),
        "r"(coords[0]), "r"(coords[1]), "r"(coords[2]), "r"(coords[3]), "r"(coords[4]),
        "r"(source)
        : "memory");
  }
}

// Stores the ROWS x COLS shared tile `src`, laid out as tma_load_tile writes one (128-byte
// swizzle atoms, one box per atom column), to the tile whose first element is (row, col) of
// the last two dimensions of the tensor `map` describes, at `outer` in its leading dimensions
// (outermost first): one bulk group, committed. The caller has made its threads' stores to
// `src` visible to the async proxy (fence.proxy.async, then a barrier); before `src` is
// written again, tma_store_wait_read.
template <int ROWS, int COLS, int OUTER, typename T>
__device__ __forceinline__ void tma_store_tile(const TensorMap* map, const T* src,
                                               const int (&outer)[OUTER > 0 ? OUTER : 1],
                                               int row, int col) {
#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
  static_assert(ROWS < 0, "tl::tma_store needs sm_90a");
#endif
  constexpr int kAtom = 128 / static_cast<int>(sizeof(T));
  static_assert(COLS % kAtom == 0 && ROWS % 8 == 0 && ROWS <= 256,
                "a TMA tile is whole 128-byte swizzle atoms of at most 256 rows");
  const unsigned long long tensor = reinterpret_cast<unsigned long long>(map);
#pragma unroll
  for (int atom = 0; atom < COLS / kAtom; ++atom) {
    const unsigned source =
        static_cast<unsigned>(__cvta_generic_to_shared(src + atom * ROWS * kAtom));
    int coords[OUTER + 2];
    coords[0] = col + atom * kAtom;
    coords[1] = row;
#pragma unroll
    for (int d = 0; d < OUTER; ++d) coords[2 + d] = outer[OUTER - 1 - d];
    tma_store_box<OUTER + 2>(tensor, source, coords);
  }
  asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
}

template <int ROWS, int COLS, typename T>
__device__ __forceinline__ void tma_store_2d(const TensorMap* map, const T* src, int row,
                                             int col) {
  const int none[1] = {0};
  tma_store_tile<ROWS, COLS, 0>(map, src, none, row, col);
}
template <int ROWS, int COLS, typename T>
__device__ __forceinline__ void tma_store_3d(const TensorMap* map, const T* src, int c0, int row,
                                             int col) {
  const int outer[1] = {c0};
  tma_store_tile<ROWS, COLS, 1>(map, src, outer, row, col);
}
template <int ROWS, int COLS, typename T>
__device__ __forceinline__ void tma_store_4d(const TensorMap* map, const T* src, int c0, int c1,
                                             int row, int col) {
  const int outer[2] = {c0, c1};
  tma_store_tile<ROWS, COLS, 2>(map, src, outer, row, col);
}
template <int ROWS, int COLS, typename T>
__device__ __forceinline__ void tma_store_5d(const TensorMap* map, const T* src, int c0, int c1,
                                             int c2, int row, int col) {
  const int outer[3] = {c0, c1, c2};
  tma_store_tile<ROWS, COLS, 3>(map, src, outer, row, col);
}

// Waits until every bulk group this thread committed has read its shared tiles (their global
// writes may still be in flight; the kernel's end completes them). `tile` names the tile the
// caller writes next, so that the IR orders the wait before those writes.
template <typename T>
__device__ __forceinline__ void tma_store_wait_read(const T* tile) {
  (void)tile;
  asm volatile("cp.async.bulk.wait_group.read 0;\n" ::: "memory");
}

}  // namespace tl
