// Tile GEMM on Hopper's warpgroup tensor cores (sm_90a): C (+)= op(A) * op(B) with A and B in
// shared memory in core-matrix order and C in registers, through wgmma.mma_async.m64nNk16 with
// fp16 or bf16 inputs and fp32 accumulation. The compiler's fragment layout for C
// (targets/cuda/gemm_wgmma.h, WgmmaAccumulatorLayout) must place every element exactly where
// this code keeps it, and its core-matrix-tiles pass (passes/core_matrix_tiles.h) must store
// the operands exactly where these descriptors read them.
//
// Operand tiles. A stored tile of R x C elements (row-major as the kernel indexes it: A is
// [M][K], or [K][M] when transposed; B is [K][N], or [N][K] when transposed) lies in shared
// memory in one of two layouts, chosen by its shape alone (here and in the pass alike).
//
// 128-byte swizzled, when a row is a whole number of 128 bytes (C % 64 == 0): [C / 64][R][64],
// atom columns of 64 elements one after another, and inside a row the 16-byte chunk c at
// chunk c ^ (row % 8). Every 8 rows x 128 bytes is one swizzle atom of the PTX ISA (1024
// bytes, starting 1024-byte aligned); descriptors carry layout type 1, SBO = 1024 (8-row groups)
// and, MN-major, LBO = R * 128 (atom columns along M or N). Copies of whole rows and the
// instruction's reads both spread over all 32 banks; this is the layout wgmma reads fastest.
//
// Interleaved otherwise: [C / 8][R][8]: 16-byte chunks (8 elements), a column of chunks after another, each
// column R rows of one chunk, columns S = R * 16 + pad bytes apart (the pad, 128 / min(C / 8,
// 8) bytes when C / 8 > 1, keeps the copies' writes off each other's banks:
// passes/core_matrix_tiles.h, ChunkColumnStrideBytes). Every 8 rows of a chunk column are one
// core matrix, 128 contiguous bytes, which is the "interleaved" (unswizzled) canonical layout
// of the PTX ISA:
// - K along the chunks (A [M][K], B [N][K]): K-major; core matrices adjacent in K are a chunk
//   column apart (LBO = S), adjacent in M or N 128 bytes apart (SBO).
// - M or N along the chunks (A [K][M], B [K][N]): MN-major; core matrices adjacent in K are
//   128 bytes apart (LBO), adjacent in M or N a chunk column apart (SBO = S).
//
// Accumulators. Warpgroup g = thread / 128 (of WG_M x WG_N, row-major) owns the
// (M / WG_M) x (N / WG_N) tile at (g / WG_N, g % WG_N); it is (M / WG_M) / 64 tiles of
// m64nWN, WN = N / WG_N, kept one after the other, each the ISA's m64nNk16 D fragment: with
// warp w = (thread % 128) / 32 and lane l, register r of the tile is row
// 16 w + l / 4 + 8 ((r / 2) % 2), column 8 (r / 4) + 2 (l % 4) + r % 2.
//
// Everything but the instructions also compiles as host C++, so that a host test checks the
// descriptors' addressing against the pass's layout.
#pragma once

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define TL_WGMMA_HOST_DEVICE __host__ __device__ __forceinline__
#define TL_WGMMA_UNROLL _Pragma("unroll")
#else
#define TL_WGMMA_HOST_DEVICE constexpr inline
#define TL_WGMMA_UNROLL
#endif

namespace tl {
namespace wgmma {

// Elements of 16 bytes: one core-matrix row, one chunk.
constexpr int kChunkElements = 8;
// Elements of 128 bytes: one row of a 128-byte swizzle atom (8 rows x 128 bytes, 1024 bytes).
constexpr int kAtomElements = 64;

// An operand stored as R x C elements. K_ALONG_CHUNKS says which of the two is K (true: C is K,
// the K-major case); the other is M or N. Rows of a whole number of 128 bytes (C % 64 == 0) are
// stored 128-byte swizzled, others as interleaved core matrices (passes/core_matrix_tiles.h,
// SwizzledCoreMatrixTile, decides the same way from the same shape).
template <int R, int C, bool K_ALONG_CHUNKS>
struct Operand {
  static_assert(R % 8 == 0 && C % kChunkElements == 0, "operands are whole core matrices");
  static constexpr bool kSwizzled = C % kAtomElements == 0;
  static constexpr int kChunks = C / kChunkElements;
  // Bytes between chunk columns of the interleaved layout (ChunkColumnStrideBytes).
  static constexpr int kChunkColumnBytes =
      R * 16 + (kChunks <= 1 ? 0 : 128 / (kChunks < 8 ? kChunks : 8));
  // Elements between the atom columns of the swizzled layout: [C / 64][R][64].
  static constexpr int kAtomColumnElements = R * kAtomElements;
  // The elements the stored tile spans.
  static constexpr int kStoredElements =
      kSwizzled ? R * C : kChunks * kChunkColumnBytes / 2;
  // The element offset where core-matrix-tiles stores element (row, col) (elements are 2
  // bytes: f16, bf16); gemm_wgmma_test checks it against the pass, and the device test stores
  // its operands through it. Swizzled: chunk c of row r at chunk c ^ (r % 8) of its row.
  TL_WGMMA_HOST_DEVICE static int Offset(int row, int col) {
    if (kSwizzled) {
      return (col / kAtomElements) * kAtomColumnElements + row * kAtomElements +
             (((col % kAtomElements) / kChunkElements) ^ (row % 8)) * kChunkElements +
             col % kChunkElements;
    }
    return (col / kChunkElements) * (kChunkColumnBytes / 2) + row * kChunkElements +
           col % kChunkElements;
  }
  // The element offset of the instruction's sub-tile starting at (mn, k) of the operand. For
  // the swizzled layout this is the unswizzled offset: the hardware applies the XOR to the
  // address bits (4-6 by 7-9), so the tile must start 1024-byte aligned.
  TL_WGMMA_HOST_DEVICE static int Start(int mn, int k) {
    const int row = K_ALONG_CHUNKS ? mn : k;
    const int col = K_ALONG_CHUNKS ? k : mn;
    if (kSwizzled) {
      return (col / kAtomElements) * kAtomColumnElements + row * kAtomElements +
             col % kAtomElements;
    }
    return Offset(row, col);
  }
  // Byte distances between core matrices adjacent in K (LBO) and in M or N (SBO); swizzled:
  // SBO is the distance between 8-row groups, LBO (MN-major) between atom columns along M or
  // N, unused (K-major, one instruction's 16 of K stay inside one 128-byte row).
  static constexpr int kLeadingBytes =
      kSwizzled ? (K_ALONG_CHUNKS ? 16 : kAtomColumnElements * 2)
                : (K_ALONG_CHUNKS ? kChunkColumnBytes : 128);
  static constexpr int kStrideBytes =
      kSwizzled ? 1024 : (K_ALONG_CHUNKS ? 128 : kChunkColumnBytes);
  // The descriptor's layout type: 1 = 128-byte swizzle, 0 = interleaved.
  static constexpr int kLayoutType = kSwizzled ? 1 : 0;
};

// The operands of gemm_wgmma: A is [M][K] (K-major) or, transposed, [K][M] (M-major); B is
// [K][N] (N-major) or, transposed, [N][K] (K-major).
template <int M, int N, int K, bool TRANS_A, bool TRANS_B>
struct Operands {
  using A = Operand<TRANS_A ? K : M, TRANS_A ? M : K, !TRANS_A>;
  using B = Operand<TRANS_B ? N : K, TRANS_B ? K : N, TRANS_B>;
};

// The 64-bit shared-memory matrix descriptor: start address, LBO and SBO in 16-byte units
// (bits 0-13, 16-29, 32-45), base offset 0 (swizzled tiles start 1024-byte aligned), the
// layout type in bits 62-63 (0 interleaved, 1 128-byte swizzle).
TL_WGMMA_HOST_DEVICE unsigned long long Descriptor(unsigned shared_address, int leading_bytes,
                                                   int stride_bytes, int layout_type = 0) {
  return static_cast<unsigned long long>((shared_address & 0x3FFFF) >> 4) |
         static_cast<unsigned long long>((leading_bytes >> 4) & 0x3FFF) << 16 |
         static_cast<unsigned long long>((stride_bytes >> 4) & 0x3FFF) << 32 |
         static_cast<unsigned long long>(layout_type) << 62;
}

}  // namespace wgmma
}  // namespace tl

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)

#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace tl {
namespace wgmma {

// The register list and operand numbers of m64nNk16 for each width N the compiler plans
// (targets/cuda/gemm_wgmma.h, IsWgmmaWidth): N / 2 accumulators %0.., then the descriptors of A
// and B, then the immediates imm-trans-a and imm-trans-b; scale-d is the predicate p (true:
// D += A * B), the input scales 1. Generated; each width is the same pattern.
#define TL_WGMMA_REGS_8 \
  "{" \
  "%0, %1, %2, %3" \
  "}, %4, %5, p, 1, 1, %6, %7;"
#define TL_WGMMA_OUTS_8 \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
#define TL_WGMMA_REGS_16 \
  "{" \
  "%0, %1, %2, %3, %4, %5, %6, %7" \
  "}, %8, %9, p, 1, 1, %10, %11;"
#define TL_WGMMA_OUTS_16 \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7])
#define TL_WGMMA_REGS_32 \
  "{" \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15" \
  "}, %16, %17, p, 1, 1, %18, %19;"
#define TL_WGMMA_OUTS_32 \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15])
#define TL_WGMMA_REGS_64 \
  "{" \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31" \
  "}, %32, %33, p, 1, 1, %34, %35;"
#define TL_WGMMA_OUTS_64 \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
#define TL_WGMMA_REGS_96 \
  "{" \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
  "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47" \
  "}, %48, %49, p, 1, 1, %50, %51;"
#define TL_WGMMA_OUTS_96 \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), \
  "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), \
  "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47])
#define TL_WGMMA_REGS_128 \
  "{" \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
  "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
  "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63" \
  "}, %64, %65, p, 1, 1, %66, %67;"
#define TL_WGMMA_OUTS_128 \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), \
  "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), \
  "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), \
  "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
  "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
#define TL_WGMMA_REGS_192 \
  "{" \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
  "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
  "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, " \
  "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, " \
  "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95" \
  "}, %96, %97, p, 1, 1, %98, %99;"
#define TL_WGMMA_OUTS_192 \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), \
  "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), \
  "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), \
  "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
  "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), \
  "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), \
  "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), \
  "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), \
  "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95])
#define TL_WGMMA_REGS_256 \
  "{" \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
  "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
  "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, " \
  "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, " \
  "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, " \
  "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, " \
  "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127" \
  "}, %128, %129, p, 1, 1, %130, %131;"
#define TL_WGMMA_OUTS_256 \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), \
  "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), \
  "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), \
  "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
  "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), \
  "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), \
  "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), \
  "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), \
  "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), \
  "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), \
  "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), \
  "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), \
  "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])

#define TL_WGMMA_INSTRUCTION(N, TYPE)                                                   \
  "{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\nwgmma.mma_async.sync.aligned.m64n" #N "k16.f32." \
  TYPE "." TYPE " " TL_WGMMA_REGS_##N "\n}\n"

#define TL_WGMMA_WIDTH(N)                                                                   \
  if constexpr (WIDTH == N) {                                                               \
    if constexpr (BF16) {                                                                   \
      asm volatile(TL_WGMMA_INSTRUCTION(N, "bf16")                                          \
                   : TL_WGMMA_OUTS_##N                                                      \
                   : "l"(desc_a), "l"(desc_b), "n"(TRANS_A), "n"(TRANS_B));                 \
    } else {                                                                                \
      asm volatile(TL_WGMMA_INSTRUCTION(N, "f16")                                           \
                   : TL_WGMMA_OUTS_##N                                                      \
                   : "l"(desc_a), "l"(desc_b), "n"(TRANS_A), "n"(TRANS_B));                 \
    }                                                                                       \
    return;                                                                                 \
  }

// d (WIDTH / 2 accumulators) += A * B on one m64nWIDTHk16 tile, issued asynchronously.
// TRANS_A and TRANS_B are the instruction's imm-trans-a (1: A is M-major) and imm-trans-b (1: B
// is N-major).
template <int WIDTH, bool BF16, int TRANS_A, int TRANS_B>
__device__ __forceinline__ void MmaAsync(float* d, unsigned long long desc_a,
                                         unsigned long long desc_b) {
  TL_WGMMA_WIDTH(8)
  TL_WGMMA_WIDTH(16)
  TL_WGMMA_WIDTH(32)
  TL_WGMMA_WIDTH(64)
  TL_WGMMA_WIDTH(96)
  TL_WGMMA_WIDTH(128)
  TL_WGMMA_WIDTH(192)
  TL_WGMMA_WIDTH(256)
  static_assert(WIDTH == 8 || WIDTH == 16 || WIDTH == 32 || WIDTH == 64 || WIDTH == 96 ||
                    WIDTH == 128 || WIDTH == 192 || WIDTH == 256,
                "no wgmma wrapper for this width");
}

#undef TL_WGMMA_WIDTH
#undef TL_WGMMA_INSTRUCTION

// Tells the compiler that the accumulators change here (an empty asm that reads and writes
// them), so that it neither reads them while wgmma still writes them nor moves their writes
// across the instructions that order them.
template <int COUNT>
__device__ __forceinline__ void FenceAccumulators(float* d) {
  TL_WGMMA_UNROLL
  for (int r = 0; r < COUNT; ++r) asm volatile("" : "+f"(d[r])::"memory");
}

template <typename T>
struct InputKind;
template <>
struct InputKind<__half> {
  static constexpr bool kBf16 = false;
};
template <>
struct InputKind<__nv_bfloat16> {
  static constexpr bool kBf16 = true;
};

}  // namespace wgmma

// C (+)= op(A) * op(B) for an M x N x K tile, executed by all WG_M * WG_N warpgroups of the
// block together, each thread passing its own registers (the accumulator layout above); CLEAR
// zeroes them first. A_smem and B_smem are the operand tiles in core-matrix order. The caller
// publishes the tiles' writes with a barrier before the call; the call returns when the
// instructions are done with the tiles and the accumulators.
namespace wgmma {

// gemm_wgmma's body, returning with at most PENDING groups of this thread's wgmma in flight.
template <int PENDING, int M, int N, int K, int WG_M, int WG_N, bool TRANS_A, bool TRANS_B,
          bool CLEAR, typename TA, typename TB>
__device__ __forceinline__ void Gemm(const TA* A_smem, const TB* B_smem, float* C_regs) {
#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
  static_assert(M < 0, "tl::gemm_wgmma needs sm_90a");
#endif
  static_assert(wgmma::InputKind<TA>::kBf16 == wgmma::InputKind<TB>::kBf16,
                "A and B must have one element type");
  constexpr int kGroupM = M / WG_M;
  constexpr int kGroupN = N / WG_N;
  constexpr int kTilesM = kGroupM / 64;
  constexpr int kTileRegisters = kGroupN / 2;
  constexpr int kRegisters = kTilesM * kTileRegisters;
  static_assert(M % WG_M == 0 && N % WG_N == 0 && kGroupM % 64 == 0,
                "each warpgroup's tile must be whole m64 tiles");
  static_assert(K % 16 == 0, "K must be a multiple of 16");
  using Ops = wgmma::Operands<M, N, K, TRANS_A, TRANS_B>;
  // The flat index that fragment layouts use; hardware forms warps (and warpgroups) in it.
  const int thread =
      static_cast<int>(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z));
  const int group = thread / 128;
  const int m_base = group / WG_N * kGroupM;
  const int n_base = group % WG_N * kGroupN;
  static_assert(!Ops::B::kSwizzled || TRANS_B || kGroupN % wgmma::kAtomElements == 0,
                "an N-major swizzled B splits over warpgroups in whole 64-column atoms");
  const unsigned a_base = static_cast<unsigned>(__cvta_generic_to_shared(A_smem));
  const unsigned b_base = static_cast<unsigned>(__cvta_generic_to_shared(B_smem));
  // The swizzle is a function of address bits: a swizzled tile off a 1024-byte boundary would
  // be read permuted. plan-shared-memory aligns operand tiles so; trap rather than compute
  // with a misplaced one.
  if (((Ops::A::kSwizzled ? a_base : 0u) | (Ops::B::kSwizzled ? b_base : 0u)) & 1023u) __trap();

  if constexpr (CLEAR) {
    TL_WGMMA_UNROLL
    for (int r = 0; r < kRegisters; ++r) C_regs[r] = 0.0f;
  }
  // The tiles' ordinary stores were fenced (tl::fence_proxy_async, placed by core-matrix-tiles)
  // and their cp.async copies waited for before the caller's barrier.
  wgmma::FenceAccumulators<kRegisters>(C_regs);
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
  TL_WGMMA_UNROLL
  for (int mi = 0; mi < kTilesM; ++mi) {
    TL_WGMMA_UNROLL
    for (int k0 = 0; k0 < K; k0 += 16) {
      const unsigned long long desc_a = wgmma::Descriptor(
          a_base + 2 * Ops::A::Start(m_base + 64 * mi, k0), Ops::A::kLeadingBytes,
          Ops::A::kStrideBytes, Ops::A::kLayoutType);
      const unsigned long long desc_b =
          wgmma::Descriptor(b_base + 2 * Ops::B::Start(n_base, k0), Ops::B::kLeadingBytes,
                            Ops::B::kStrideBytes, Ops::B::kLayoutType);
      wgmma::MmaAsync<kGroupN, wgmma::InputKind<TA>::kBf16, TRANS_A ? 1 : 0, TRANS_B ? 0 : 1>(
          C_regs + mi * kTileRegisters, desc_a, desc_b);
    }
  }
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(PENDING) : "memory");
  wgmma::FenceAccumulators<kRegisters>(C_regs);
}

}  // namespace wgmma

template <int M, int N, int K, int WG_M, int WG_N, bool TRANS_A, bool TRANS_B, bool CLEAR,
          typename TA, typename TB>
__device__ __forceinline__ void gemm_wgmma(const TA* A_smem, const TB* B_smem, float* C_regs) {
  wgmma::Gemm<0, M, N, K, WG_M, WG_N, TRANS_A, TRANS_B, CLEAR>(A_smem, B_smem, C_regs);
}

// gemm_wgmma that returns with its own group still in flight and every earlier one done: a
// loop of them keeps the tensor cores busy across iterations, each iteration's call retiring
// the previous iteration's reads of its operand tiles (targets/cuda/passes/warp_roles.h). The
// accumulators stay the instructions' until wgmma_wait<0, ...>: nothing else may touch them.
template <int M, int N, int K, int WG_M, int WG_N, bool TRANS_A, bool TRANS_B, bool CLEAR,
          typename TA, typename TB>
__device__ __forceinline__ void gemm_wgmma_async(const TA* A_smem, const TB* B_smem,
                                                 float* C_regs) {
  wgmma::Gemm<1, M, N, K, WG_M, WG_N, TRANS_A, TRANS_B, CLEAR>(A_smem, B_smem, C_regs);
}

// Waits until at most PENDING groups of this thread's wgmma are in flight, then hands the
// COUNT accumulators from C_regs on back to the compiler.
template <int PENDING, int COUNT>
__device__ __forceinline__ void wgmma_wait(float* C_regs) {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(PENDING) : "memory");
  wgmma::FenceAccumulators<COUNT>(C_regs);
}

}  // namespace tl

#endif  // __CUDACC__ || __CUDACC_RTC__
