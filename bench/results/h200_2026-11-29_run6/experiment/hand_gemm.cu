// Hand-written wgmma GEMM experiments (bf16 in, f32 out): 128-byte swizzled operand tiles fed
// by cp.async, synchronous or one-group-deep asynchronous wgmma. Model for the compiler.
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>
#include <cmath>
#include <cuda_runtime.h>
#include "tl/common.cuh"

#ifdef GENERATED
#include GENERATED
#endif

using bf16 = __nv_bfloat16;

__device__ __forceinline__ unsigned long long Desc(unsigned addr, int lbo, int sbo, int mode) {
  return (unsigned long long)((addr & 0x3FFFF) >> 4) |
         (unsigned long long)((lbo >> 4) & 0x3FFF) << 16 |
         (unsigned long long)((sbo >> 4) & 0x3FFF) << 32 | (unsigned long long)mode << 62;
}


template <int WIDTH>
__device__ __forceinline__ void MmaScaled(float* d, unsigned long long da, unsigned long long db, int scale) {
#define TLX(N, SCALE) if constexpr (WIDTH == N) { asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, " SCALE ", 0;\n" \
   "wgmma.mma_async.sync.aligned.m64n" #N "k16.f32.bf16.bf16 " TL_WGMMA_REGS_##N "\n}\n" \
   : TL_WGMMA_OUTS_##N : "l"(da), "l"(db), "n"(0), "n"(1), "r"(scale)); return; }
  TLX(128, "%68")
  TLX(256, "%132")
#undef TLX
}

// BMODE 0: MN-major B, LBO = atom stride along N, SBO = 8-row stride along K. 1: swapped.
template <int BM, int BN, int STAGES, int WGS, bool ASYNC, int BMODE>
__global__ void __launch_bounds__(WGS * 128) hand_gemm(const bf16* __restrict__ A,
                                                      const bf16* __restrict__ B, float* C,
                                                      int M, int N, int K) {
  constexpr int BK = 64;
  constexpr int NT = WGS * 128;
  constexpr int A_BYTES = BM * BK * 2, B_BYTES = BK * BN * 2;
  constexpr int ROWS_PER_WG = BM / WGS;
  constexpr int MT = ROWS_PER_WG / 64;
  constexpr int REGS = BN / 2;
  extern __shared__ __align__(1024) unsigned char smem_raw[];
  const unsigned base = (static_cast<unsigned>(__cvta_generic_to_shared(smem_raw)) + 1023) & ~1023u;
  const unsigned a_base = base, b_base = base + STAGES * A_BYTES;
  const int tid = threadIdx.x;
  // Panel rasterization as the compiler does (panel 8 along M).
  const int gx = gridDim.x;
  const int raster_id = blockIdx.y * gx + blockIdx.x;
  const int panel = raster_id / (8 * gx), off = raster_id % (8 * gx);
  const int bn = off / 8, bm = panel * 8 + off % 8;
  const int KT = K / BK;

  auto load_stage = [&](int stage, int kt) {
    const unsigned as = a_base + stage * A_BYTES;
#pragma unroll
    for (int c = tid; c < BM * 8; c += NT) {
      int r = c / 8, ch = c % 8;
      const bf16* src = A + (size_t)(bm * BM + r) * K + kt * BK + ch * 8;
      unsigned dst = as + r * 128 + ((ch ^ (r % 8)) * 16);
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src) : "memory");
    }
    const unsigned bs = b_base + stage * B_BYTES;
#pragma unroll
    for (int c = tid; c < BK * BN / 8; c += NT) {
      int k = c / (BN / 8), nch = c % (BN / 8);
      int atom = nch / 8, ch = nch % 8;
      const bf16* src = B + (size_t)(kt * BK + k) * N + bn * BN + nch * 8;
      unsigned dst = bs + atom * (BK * 128) + k * 128 + ((ch ^ (k % 8)) * 16);
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src) : "memory");
    }
  };

  float acc[MT * REGS];
  if constexpr (!ASYNC) {
#pragma unroll
    for (int i = 0; i < MT * REGS; ++i) acc[i] = 0.f;
  }
  const int wg = tid / 128;

  auto issue = [&](int stage, int kt) {
    tl::wgmma::FenceAccumulators<MT * REGS>(acc);
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#pragma unroll
    for (int mi = 0; mi < MT; ++mi) {
#pragma unroll
      for (int kk = 0; kk < BK / 16; ++kk) {
        unsigned a_addr = a_base + stage * A_BYTES + (wg * ROWS_PER_WG + mi * 64) * 128 + kk * 32;
        unsigned b_addr = b_base + stage * B_BYTES + kk * 16 * 128;
        unsigned long long da = Desc(a_addr, 16, 1024, 1);
        unsigned long long db = BMODE == 0 ? Desc(b_addr, BK * 128, 1024, 1)
                                           : Desc(b_addr, 1024, BK * 128, 1);
        if constexpr (ASYNC) MmaScaled<BN>(acc + mi * REGS, da, db, (kt > 0 || kk > 0) ? 1 : 0);
        else tl::wgmma::MmaAsync<BN, true, 0, 1>(acc + mi * REGS, da, db);
      }
    }
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
  };

#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < KT) load_stage(s, s);
    tl::cp_async_commit();
  }
  for (int kt = 0; kt < KT; ++kt) {
    tl::cp_async_wait<STAGES - 2>();
    __syncthreads();
    if constexpr (!ASYNC) {
      int next = kt + STAGES - 1;
      if (next < KT) load_stage(next % STAGES, next);
      tl::cp_async_commit();
      issue(kt % STAGES, kt);
      asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
      tl::wgmma::FenceAccumulators<MT * REGS>(acc);
    } else {
      issue(kt % STAGES, kt);
      asm volatile("wgmma.wait_group.sync.aligned 1;\n" ::: "memory");
      tl::wgmma::FenceAccumulators<MT * REGS>(acc);
      __syncthreads();
      int next = kt + STAGES - 1;
      if (next < KT) load_stage(next % STAGES, next);
      tl::cp_async_commit();
    }
  }
  asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
  tl::wgmma::FenceAccumulators<MT * REGS>(acc);
  const int w = (tid % 128) / 32, l = tid % 32;
#pragma unroll
  for (int mi = 0; mi < MT; ++mi) {
#pragma unroll
    for (int r = 0; r < REGS; r += 2) {
      int row = bm * BM + wg * ROWS_PER_WG + mi * 64 + 16 * w + l / 4 + 8 * ((r / 2) % 2);
      int col = bn * BN + 8 * (r / 4) + 2 * (l % 4);
      *reinterpret_cast<float2*>(&C[(size_t)row * N + col]) =
          make_float2(acc[mi * REGS + r], acc[mi * REGS + r + 1]);
    }
  }
}

__global__ void reference(const bf16* A, const bf16* B, float* C, int M, int N, int K) {
  int n = blockIdx.x * blockDim.x + threadIdx.x, m = blockIdx.y;
  if (n >= N) return;
  float s = 0;
  for (int k = 0; k < K; ++k) s += __bfloat162float(A[(size_t)m * K + k]) * __bfloat162float(B[(size_t)k * N + n]);
  C[(size_t)m * N + n] = s;
}

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("CUDA error %s at %s:%d\n", cudaGetErrorString(e), __FILE__, __LINE__); exit(1);} } while (0)

struct Ctx { bf16 *A, *B; float *C, *R; int M, N, K; };

template <typename F>
void Run(const char* name, Ctx& c, F launch) {
  CK(cudaMemset(c.C, 0xFF, sizeof(float) * c.M * c.N));  // NaN poison
  launch();
  cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) { printf("%-40s launch error %s\n", name, cudaGetErrorString(e)); exit(1); }
  std::vector<float> h(c.M * (size_t)c.N), r(c.M * (size_t)c.N);
  CK(cudaMemcpy(h.data(), c.C, h.size() * 4, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(r.data(), c.R, r.size() * 4, cudaMemcpyDeviceToHost));
  double max_err = 0;
  for (size_t i = 0; i < h.size(); ++i) {
    double d = std::fabs((double)h[i] - r[i]);
    if (!(d <= max_err)) max_err = std::isnan(d) ? INFINITY : d;
  }
  cudaEvent_t s, t; cudaEventCreate(&s); cudaEventCreate(&t);
  for (int i = 0; i < 5; ++i) launch();
  const int iters = 30;
  cudaEventRecord(s);
  for (int i = 0; i < iters; ++i) launch();
  cudaEventRecord(t); CK(cudaEventSynchronize(t));
  float ms; cudaEventElapsedTime(&ms, s, t);
  double us = ms * 1000 / iters;
  printf("%-40s %s max_err %.3g  %.1f us  %.1f TFLOP/s\n", name, max_err < 5e-2 ? "PASS" : "FAIL", max_err, us,
         2.0 * c.M * c.N * (double)c.K / (us * 1e-6) / 1e12);
}

template <int BM, int BN, int STAGES, int WGS, bool ASYNC, int BMODE>
void Hand(Ctx& c) {
  auto kern = hand_gemm<BM, BN, STAGES, WGS, ASYNC, BMODE>;
  int smem = STAGES * (BM * 64 + 64 * BN) * 2 + 1024;
  CK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  char name[128];
  snprintf(name, sizeof name, "hand %dx%dx64 s%d wg%d %s b%d", BM, BN, STAGES, WGS, ASYNC ? "async" : "sync", BMODE);
  dim3 grid(c.N / BN, c.M / BM);
  Run(name, c, [&] { kern<<<grid, WGS * 128, smem>>>(c.A, c.B, c.C, c.M, c.N, c.K); });
}

int main(int argc, char** argv) {
  Ctx c; c.M = c.N = c.K = 4096;
  size_t na = (size_t)c.M * c.K, nb = (size_t)c.K * c.N;
  std::vector<bf16> ha(na), hb(nb);
  srand(42);
  for (auto& x : ha) x = __float2bfloat16((rand() / (float)RAND_MAX) * 2 - 1);
  for (auto& x : hb) x = __float2bfloat16((rand() / (float)RAND_MAX) * 2 - 1);
  CK(cudaMalloc(&c.A, na * 2)); CK(cudaMalloc(&c.B, nb * 2));
  CK(cudaMalloc(&c.C, (size_t)c.M * c.N * 4)); CK(cudaMalloc(&c.R, (size_t)c.M * c.N * 4));
  CK(cudaMemcpy(c.A, ha.data(), na * 2, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(c.B, hb.data(), nb * 2, cudaMemcpyHostToDevice));
  reference<<<dim3((c.N + 255) / 256, c.M), 256>>>(c.A, c.B, c.R, c.M, c.N, c.K);
  CK(cudaDeviceSynchronize());
  const char* only = argc > 1 ? argv[1] : "";
  (void)only;
#ifdef GENERATED
  {
    CK(cudaFuncSetAttribute(gemm_bf16, cudaFuncAttributeMaxDynamicSharedMemorySize, GEN_SMEM));
    Run("generated " GENERATED, c, [&] { gemm_bf16<<<dim3(GEN_GX, GEN_GY), GEN_THREADS, GEN_SMEM>>>(c.A, c.B, c.C); });
  }
#endif
#ifdef VARIANT
  VARIANT;
#endif
  return 0;
}
