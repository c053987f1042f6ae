// tl::gemm_wgmma (targets/cuda/device/gemm_wgmma.cuh) on an H100/H200 against a host reference,
// for fp16 and bf16, every transpose, several warpgroup grids and widths, clearing or
// accumulating, on interleaved and 128-byte swizzled operand tiles. The operands are stored by
// the library's own addressing (tl::wgmma::Operand::Offset, which gemm_wgmma_test checks
// against core-matrix-tiles), each at a 1024-byte boundary as plan-shared-memory puts it, and each
// accumulator register is read back through the documented register order. Build and run on
// the GPU machine: see README.md.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "targets/cuda/device/async_copy.cuh"
#include "targets/cuda/device/gemm_wgmma.cuh"

namespace {

#define CHECK_CUDA(call)                                                                   \
  do {                                                                                     \
    cudaError_t status = (call);                                                           \
    if (status != cudaSuccess) {                                                           \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(status)); \
      std::exit(2);                                                                        \
    }                                                                                      \
  } while (0)

template <typename T>
T FromFloat(float x);
template <>
__half FromFloat<__half>(float x) {
  return __float2half_rn(x);
}
template <>
__nv_bfloat16 FromFloat<__nv_bfloat16>(float x) {
  return __float2bfloat16_rn(x);
}

// The C element that register `reg` of `thread` holds (gemm_wgmma.cuh, "Accumulators").
template <int M, int N, int WG_M, int WG_N>
__device__ void Element(int thread, int reg, int* row, int* col) {
  constexpr int kGroupM = M / WG_M;
  constexpr int kGroupN = N / WG_N;
  const int group = thread / 128;
  const int lane = thread % 32;
  const int tile = reg / (kGroupN / 2);
  const int r = reg % (kGroupN / 2);
  *row = group / WG_N * kGroupM + 64 * tile + 16 * (thread % 128 / 32) + lane / 4 + 8 * (r / 2 % 2);
  *col = group % WG_N * kGroupN + 8 * (r / 4) + 2 * (lane % 4) + r % 2;
}

// Where B's tile starts after A's: the next 1024 bytes (512 two-byte elements), as
// plan-shared-memory places operand tiles.
template <typename Ops>
__host__ __device__ constexpr int BOffsetElements() {
  return (Ops::A::kStoredElements + 511) / 512 * 512;
}

// A and B arrive row-major as stored ([M][K] or [K][M]; [K][N] or [N][K]); the kernel writes
// them to shared memory in core-matrix order. C is row-major [M][N].
template <typename T, int M, int N, int K, int WG_M, int WG_N, bool TRANS_A, bool TRANS_B,
          bool CLEAR>
__global__ void GemmWgmmaKernel(const T* a, const T* b, const float* c_in, float* c_out) {
  using Ops = tl::wgmma::Operands<M, N, K, TRANS_A, TRANS_B>;
  constexpr int kARows = TRANS_A ? K : M, kACols = TRANS_A ? M : K;
  constexpr int kBRows = TRANS_B ? N : K, kBCols = TRANS_B ? K : N;
  constexpr int kRegisters = M * N / (128 * WG_M * WG_N);
  extern __shared__ __align__(1024) unsigned char smem[];
  T* a_s = reinterpret_cast<T*>(smem);
  T* b_s = a_s + BOffsetElements<Ops>();
  const int thread = threadIdx.x;
  for (int e = thread; e < kARows * kACols; e += blockDim.x) {
    a_s[Ops::A::Offset(e / kACols, e % kACols)] = a[e];
  }
  for (int e = thread; e < kBRows * kBCols; e += blockDim.x) {
    b_s[Ops::B::Offset(e / kBCols, e % kBCols)] = b[e];
  }
  tl::fence_proxy_async();
  __syncthreads();
  float c[kRegisters];
#pragma unroll
  for (int r = 0; r < kRegisters; ++r) {
    int row, col;
    Element<M, N, WG_M, WG_N>(thread, r, &row, &col);
    c[r] = c_in[row * N + col];
  }
  tl::gemm_wgmma<M, N, K, WG_M, WG_N, TRANS_A, TRANS_B, CLEAR>(a_s, b_s, c);
#pragma unroll
  for (int r = 0; r < kRegisters; ++r) {
    int row, col;
    Element<M, N, WG_M, WG_N>(thread, r, &row, &col);
    c_out[row * N + col] = c[r];
  }
}

template <typename T, int M, int N, int K, int WG_M, int WG_N, bool TRANS_A, bool TRANS_B,
          bool CLEAR>
bool Run(const char* name) {
  using Ops = tl::wgmma::Operands<M, N, K, TRANS_A, TRANS_B>;
  std::mt19937 rng(M * 131 + N * 7 + K);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> a(M * K), b(K * N), c(M * N);
  std::vector<T> a_t(M * K), b_t(K * N);
  for (int e = 0; e < M * K; ++e) {
    a_t[e] = FromFloat<T>(dist(rng));
    a[e] = static_cast<float>(a_t[e]);
  }
  for (int e = 0; e < K * N; ++e) {
    b_t[e] = FromFloat<T>(dist(rng));
    b[e] = static_cast<float>(b_t[e]);
  }
  for (float& x : c) x = dist(rng);
  T *a_d, *b_d;
  float *c_in, *c_out;
  CHECK_CUDA(cudaMalloc(&a_d, M * K * sizeof(T)));
  CHECK_CUDA(cudaMalloc(&b_d, K * N * sizeof(T)));
  CHECK_CUDA(cudaMalloc(&c_in, M * N * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&c_out, M * N * sizeof(float)));
  CHECK_CUDA(cudaMemcpy(a_d, a_t.data(), M * K * sizeof(T), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(b_d, b_t.data(), K * N * sizeof(T), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(c_in, c.data(), M * N * sizeof(float), cudaMemcpyHostToDevice));
  const int smem_bytes = (BOffsetElements<Ops>() + Ops::B::kStoredElements) * sizeof(T);
  auto kernel = GemmWgmmaKernel<T, M, N, K, WG_M, WG_N, TRANS_A, TRANS_B, CLEAR>;
  CHECK_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_bytes));
  kernel<<<1, 128 * WG_M * WG_N, smem_bytes>>>(a_d, b_d, c_in, c_out);
  CHECK_CUDA(cudaGetLastError());
  std::vector<float> out(M * N);
  CHECK_CUDA(cudaMemcpy(out.data(), c_out, M * N * sizeof(float), cudaMemcpyDeviceToHost));
  double worst = 0;
  for (int i = 0; i < M; ++i) {
    for (int j = 0; j < N; ++j) {
      double want = CLEAR ? 0.0 : c[i * N + j];
      for (int k = 0; k < K; ++k) {
        double x = TRANS_A ? a[k * M + i] : a[i * K + k];
        double y = TRANS_B ? b[j * K + k] : b[k * N + j];
        want += x * y;
      }
      worst = std::fmax(worst, std::fabs(out[i * N + j] - want));
    }
  }
  CHECK_CUDA(cudaFree(a_d));
  CHECK_CUDA(cudaFree(b_d));
  CHECK_CUDA(cudaFree(c_in));
  CHECK_CUDA(cudaFree(c_out));
  const bool ok = worst < 1e-3;
  std::printf("%-44s max abs err %.3g %s\n", name, worst, ok ? "ok" : "MISMATCH");
  return ok;
}

}  // namespace

int main() {
  bool ok = true;
  ok &= Run<__nv_bfloat16, 64, 64, 32, 1, 1, false, false, false>("bf16 64x64x32 1x1 nn");
  ok &= Run<__nv_bfloat16, 64, 64, 32, 1, 1, true, false, false>("bf16 64x64x32 1x1 tn");
  ok &= Run<__nv_bfloat16, 64, 64, 32, 1, 1, false, true, false>("bf16 64x64x32 1x1 nt");
  ok &= Run<__nv_bfloat16, 64, 64, 32, 1, 1, true, true, false>("bf16 64x64x32 1x1 tt");
  ok &= Run<__half, 128, 128, 32, 1, 1, false, false, true>("f16 128x128x32 1x1 nn clear");
  ok &= Run<__nv_bfloat16, 128, 256, 64, 2, 1, false, false, false>("bf16 128x256x64 2x1 nn");
  ok &= Run<__nv_bfloat16, 128, 256, 64, 1, 2, true, false, false>("bf16 128x256x64 1x2 tn");
  ok &= Run<__half, 256, 128, 32, 2, 2, false, true, false>("f16 256x128x32 2x2 nt");
  ok &= Run<__nv_bfloat16, 64, 8, 16, 1, 1, true, true, false>("bf16 64x8x16 1x1 tt");
  ok &= Run<__half, 64, 96, 16, 1, 1, false, false, false>("f16 64x96x16 1x1 nn");
  ok &= Run<__nv_bfloat16, 128, 192, 32, 1, 1, false, true, true>("bf16 128x192x32 1x1 nt clear");
  std::printf(ok ? "all variants matched\n" : "MISMATCHES\n");
  return ok ? 0 : 1;
}
