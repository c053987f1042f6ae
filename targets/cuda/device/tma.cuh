// The Tensor Memory Accelerator (sm_90a): tile loads from global into shared memory through a
// tensor map, completing on an mbarrier by transaction bytes. The calls of
// targets/cuda/passes/warp_specialize.h (TMA producers); the tensor maps are kernel
// parameters the runtime encodes at launch (targets/cuda/tensor_maps.h says which).
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

// Loads the ROWS x COLS tile whose first element is (row, col) of the 2-D tensor `map`
// describes into `dst`, as core-matrix-tiles lays out an operand tile of rows of whole 128
// bytes: [COLS / W][ROWS][W] with W = 128 / sizeof(T) elements, each 16-byte chunk c of a row
// r at chunk c ^ (r % 8). That is the TMA's 128-byte swizzle when every box is W x ROWS and
// lands 1024-byte aligned, so the tile takes one copy per atom column. Elements outside the
// tensor arrive as zeros; each copy counts its whole box on `barrier`.
template <int ROWS, int COLS, typename T>
__device__ __forceinline__ void tma_load_2d(const TensorMap* map, T* dst, long long* barrier,
                                            int row, int col) {
#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
  static_assert(ROWS < 0, "tl::tma_load_2d needs sm_90a");
#endif
  constexpr int kAtom = 128 / static_cast<int>(sizeof(T));
  static_assert(COLS % kAtom == 0 && ROWS % 8 == 0 && ROWS <= 256,
                "a TMA tile is whole 128-byte swizzle atoms of at most 256 rows");
  const unsigned bar = static_cast<unsigned>(__cvta_generic_to_shared(barrier));
  const unsigned long long tensor = reinterpret_cast<unsigned long long>(map);
#pragma unroll
  for (int atom = 0; atom < COLS / kAtom; ++atom) {
    const unsigned target = static_cast<unsigned>(__cvta_generic_to_shared(dst + atom * ROWS * kAtom));
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
        " [%0], [%1, {%2, %3}], [%4];\n" ::"r"(target),
        "l"(tensor), "r"(col + atom * kAtom), "r"(row), "r"(bar)
        : "memory");
  }
}

}  // namespace tl
