// Tile GEMM on Hopper's warpgroup tensor cores with A in registers (sm_90a): C (+)= A * op(B)
// through wgmma.mma_async.m64nNk16 whose A operand is four 32-bit registers per thread and
// whose B is a shared-memory tile read through a descriptor (device/gemm_wgmma.cuh explains
// the operand layouts and descriptors). This is how attention's P * V runs: P is the f32
// accumulator of Q * K^T converted to 16 bits in place, each thread keeping the elements it
// already holds.
//
// A's registers. The A fragment of m64nNk16 for 16-bit inputs is, element for element, the
// m64n16 accumulator fragment: with warp w = (thread % 128) / 32 and lane l, element e (0..7)
// of a k16 slice is row 16 w + l / 4 + 8 ((e / 2) % 2), column 8 (e / 4) + 2 (l % 4) + e % 2.
// So an M x K fragment laid out as the M x K accumulator of gemm_wgmma (warpgroups split along
// M only; targets/cuda/gemm_wgmma.h, WgmmaAccumulatorLayout with N = K) holds slice k0 / 16 of
// its m64 tile mi at elements mi * (K / 2) + (k0 / 16) * 8 .. + 7, in that order; pairs of
// elements pack into one 32-bit register, the lower index in the lower half.
#pragma once

#include "tl/gemm_wgmma.cuh"

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)

namespace tl {
namespace wgmma {

// The register lists of m64nNk16 with A in registers: N / 2 accumulators %0.., the four A
// registers, the descriptor of B, then imm-trans-b; scale-d is the predicate p, the input
// scales 1. Generated; each width is the same pattern.
#define TL_WGMMA_RS_REGS_8 \
  "{" \
  "%0, %1, %2, %3" \
  "}, {%4, %5, %6, %7}, %8, p, 1, 1, %9;"
#define TL_WGMMA_RS_REGS_16 \
  "{" \
  "%0, %1, %2, %3, %4, %5, %6, %7" \
  "}, {%8, %9, %10, %11}, %12, p, 1, 1, %13;"
#define TL_WGMMA_RS_REGS_32 \
  "{" \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15" \
  "}, {%16, %17, %18, %19}, %20, p, 1, 1, %21;"
#define TL_WGMMA_RS_REGS_64 \
  "{" \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31" \
  "}, {%32, %33, %34, %35}, %36, p, 1, 1, %37;"
#define TL_WGMMA_RS_REGS_96 \
  "{" \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
  "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47" \
  "}, {%48, %49, %50, %51}, %52, p, 1, 1, %53;"
#define TL_WGMMA_RS_REGS_128 \
  "{" \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
  "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
  "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63" \
  "}, {%64, %65, %66, %67}, %68, p, 1, 1, %69;"
#define TL_WGMMA_RS_REGS_192 \
  "{" \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
  "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
  "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, " \
  "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, " \
  "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95" \
  "}, {%96, %97, %98, %99}, %100, p, 1, 1, %101;"
#define TL_WGMMA_RS_REGS_256 \
  "{" \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
  "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
  "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, " \
  "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, " \
  "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, " \
  "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, " \
  "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127" \
  "}, {%128, %129, %130, %131}, %132, p, 1, 1, %133;"

#define TL_WGMMA_RS_INSTRUCTION(N, TYPE)                                                  \
  "{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\nwgmma.mma_async.sync.aligned.m64n" #N "k16.f32." \
  TYPE "." TYPE " " TL_WGMMA_RS_REGS_##N "\n}\n"

#define TL_WGMMA_RS_WIDTH(N)                                                                \
  if constexpr (WIDTH == N) {                                                               \
    if constexpr (BF16) {                                                                   \
      asm volatile(TL_WGMMA_RS_INSTRUCTION(N, "bf16")                                       \
                   : TL_WGMMA_OUTS_##N                                                      \
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "n"(TRANS_B)); \
    } else {                                                                                \
      asm volatile(TL_WGMMA_RS_INSTRUCTION(N, "f16")                                        \
                   : TL_WGMMA_OUTS_##N                                                      \
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "n"(TRANS_B)); \
    }                                                                                       \
    return;                                                                                 \
  }

// d (WIDTH / 2 accumulators) += A * B on one m64nWIDTHk16 tile with A's slice in four
// registers, issued asynchronously. TRANS_B is imm-trans-b (1: B is N-major).
template <int WIDTH, bool BF16, int TRANS_B>
__device__ __forceinline__ void MmaAsyncRegisterA(float* d, const unsigned* a,
                                                  unsigned long long desc_b) {
  TL_WGMMA_RS_WIDTH(8)
  TL_WGMMA_RS_WIDTH(16)
  TL_WGMMA_RS_WIDTH(32)
  TL_WGMMA_RS_WIDTH(64)
  TL_WGMMA_RS_WIDTH(96)
  TL_WGMMA_RS_WIDTH(128)
  TL_WGMMA_RS_WIDTH(192)
  TL_WGMMA_RS_WIDTH(256)
  static_assert(WIDTH == 8 || WIDTH == 16 || WIDTH == 32 || WIDTH == 64 || WIDTH == 96 ||
                    WIDTH == 128 || WIDTH == 192 || WIDTH == 256,
                "no wgmma wrapper for this width");
}

#undef TL_WGMMA_RS_WIDTH
#undef TL_WGMMA_RS_INSTRUCTION

// Two 16-bit elements as one 32-bit register, `low` in the lower half.
__device__ __forceinline__ unsigned PackPair(__half low, __half high) {
  return static_cast<unsigned>(__half_as_ushort(low)) |
         (static_cast<unsigned>(__half_as_ushort(high)) << 16);
}
__device__ __forceinline__ unsigned PackPair(__nv_bfloat16 low, __nv_bfloat16 high) {
  return static_cast<unsigned>(__bfloat16_as_ushort(low)) |
         (static_cast<unsigned>(__bfloat16_as_ushort(high)) << 16);
}

template <typename T>
__device__ __forceinline__ T UnpackLow(unsigned pair);
template <typename T>
__device__ __forceinline__ T UnpackHigh(unsigned pair);
template <>
__device__ __forceinline__ __half UnpackLow<__half>(unsigned pair) {
  return __ushort_as_half(static_cast<unsigned short>(pair & 0xffffu));
}
template <>
__device__ __forceinline__ __half UnpackHigh<__half>(unsigned pair) {
  return __ushort_as_half(static_cast<unsigned short>(pair >> 16));
}
template <>
__device__ __forceinline__ __nv_bfloat16 UnpackLow<__nv_bfloat16>(unsigned pair) {
  return __ushort_as_bfloat16(static_cast<unsigned short>(pair & 0xffffu));
}
template <>
__device__ __forceinline__ __nv_bfloat16 UnpackHigh<__nv_bfloat16>(unsigned pair) {
  return __ushort_as_bfloat16(static_cast<unsigned short>(pair >> 16));
}

// A's registers pair by pair, as the instructions read them: element 2r in the lower half.
template <typename TA>
__device__ __forceinline__ unsigned PackedA(const TA* A_regs, int r) {
  return PackPair(A_regs[2 * r], A_regs[2 * r + 1]);
}

// gemm_wgmma_rs's body; WAIT false returns with the group in flight (gemm_wgmma_rs_async).
template <bool WAIT, int M, int N, int K, int WG_M, int WG_N, bool TRANS_A, bool TRANS_B,
          bool CLEAR, typename TA, typename TB>
__device__ __forceinline__ void GemmRegisterA(const TA* A_regs, const TB* B_smem, float* C_regs) {
#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
  static_assert(M < 0, "tl::gemm_wgmma_rs needs sm_90a");
#endif
  static_assert(InputKind<TA>::kBf16 == InputKind<TB>::kBf16,
                "A and B must have one element type");
  static_assert(WG_N == 1 && !TRANS_A, "A in registers is split along M only and K-major");
  constexpr int kGroupM = M / WG_M;
  constexpr int kTilesM = kGroupM / 64;
  constexpr int kTileRegisters = N / 2;
  constexpr int kRegisters = kTilesM * kTileRegisters;
  static_assert(M % WG_M == 0 && kGroupM % 64 == 0, "each warpgroup's tile must be whole m64 tiles");
  static_assert(K % 16 == 0, "K must be a multiple of 16");
  using B = typename Operands<M, N, K, false, TRANS_B>::B;
  const unsigned b_base = static_cast<unsigned>(__cvta_generic_to_shared(B_smem));
  if ((B::kSwizzled ? b_base : 0u) & 1023u) __trap();

  // A's registers packed in pairs before the fence, so that wgmma reads finished values.
  // Each thread holds K / 2 elements of A per m64 tile, K / 4 registers once packed.
  constexpr int kPacked = kTilesM * K / 4;
  unsigned a_packed[kPacked];
  TL_WGMMA_UNROLL
  for (int r = 0; r < kPacked; ++r) a_packed[r] = PackedA(A_regs, r);
  if constexpr (CLEAR) {
    TL_WGMMA_UNROLL
    for (int r = 0; r < kRegisters; ++r) C_regs[r] = 0.0f;
  }
  FenceAccumulators<kRegisters>(C_regs);
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
  TL_WGMMA_UNROLL
  for (int mi = 0; mi < kTilesM; ++mi) {
    TL_WGMMA_UNROLL
    for (int k0 = 0; k0 < K; k0 += 16) {
      const unsigned long long desc_b =
          Descriptor(b_base + 2 * B::Start(0, k0), B::kLeadingBytes, B::kStrideBytes,
                            B::kLayoutType);
      MmaAsyncRegisterA<N, InputKind<TA>::kBf16, TRANS_B ? 0 : 1>(
          C_regs + mi * kTileRegisters, a_packed + mi * (K / 4) + (k0 / 16) * 4, desc_b);
    }
  }
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
  if constexpr (WAIT) asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
  FenceAccumulators<kRegisters>(C_regs);
}

}  // namespace wgmma

// C (+)= A * op(B) for an M x N x K tile, executed by all WG_M warpgroups of the block (WG_N
// must be 1: each warpgroup holds whole rows of A), each thread passing its own registers of A
// (the layout above) and of C (gemm_wgmma's accumulator layout); CLEAR zeroes C first. B_smem
// is the operand tile in core-matrix order. TRANS_A must be false: A in registers is K-major.
template <int M, int N, int K, int WG_M, int WG_N, bool TRANS_A, bool TRANS_B, bool CLEAR,
          typename TA, typename TB>
__device__ __forceinline__ void gemm_wgmma_rs(const TA* A_regs, const TB* B_smem, float* C_regs) {
  wgmma::GemmRegisterA<true, M, N, K, WG_M, WG_N, TRANS_A, TRANS_B, CLEAR>(A_regs, B_smem,
                                                                           C_regs);
}

// gemm_wgmma_rs returning with its group in flight, waiting for nothing: the instructions read
// A's registers and write C's until a wgmma_wait retires the group. Until then nothing may
// touch C, and A's registers must keep their values: wgmma_fence_operand after that wait keeps
// the packed pairs live so far (targets/cuda/passes/overlap_gemm_chains.h).
template <int M, int N, int K, int WG_M, int WG_N, bool TRANS_A, bool TRANS_B, bool CLEAR,
          typename TA, typename TB>
__device__ __forceinline__ void gemm_wgmma_rs_async(const TA* A_regs, const TB* B_smem,
                                                    float* C_regs) {
  wgmma::GemmRegisterA<false, M, N, K, WG_M, WG_N, TRANS_A, TRANS_B, CLEAR>(A_regs, B_smem,
                                                                            C_regs);
}

// Hands COUNT 16-bit A registers of a retired gemm_wgmma_rs_async back to the compiler: an
// empty asm that reads and writes each packed pair, so the pairs the instructions read stay
// in their registers until here instead of being reused while the tensor cores still read them.
template <int COUNT, typename TA>
__device__ __forceinline__ void wgmma_fence_operand(TA* A_regs) {
  static_assert(COUNT % 2 == 0, "A's registers come in pairs");
  TL_WGMMA_UNROLL
  for (int r = 0; r < COUNT / 2; ++r) {
    unsigned pair = wgmma::PackedA(A_regs, r);
    asm volatile("" : "+r"(pair)::"memory");
    A_regs[2 * r] = wgmma::UnpackLow<TA>(pair);
    A_regs[2 * r + 1] = wgmma::UnpackHigh<TA>(pair);
  }
}

}  // namespace tl

#endif  // __CUDACC__ || __CUDACC_RTC__
