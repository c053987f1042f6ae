// tl::gemm_ss (targets/cuda/device/gemm_mma.cuh) on a real GPU against a naive kernel, for
// fp16 and bf16, every transpose, several warp grids, clearing or accumulating, and a
// two-axis thread block. Each accumulator register is read back through the library's own
// register order (tl::mma::AccumulatorShape), which gemm_mma_simulation_test checks against
// the compiler's layout. Build and run on the GPU machine: see README.md.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "targets/cuda/device/gemm_mma.cuh"

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

// A and B arrive in global memory laid out as gemm_ss expects them in shared memory: A is
// [M][K] ([K][M] when TRANS_A), B is [K][N] ([N][K] when TRANS_B). C is row-major [M][N].
template <typename T, int M, int N, int K, int WARPS_M, int WARPS_N, bool TRANS_A, bool TRANS_B,
          bool CLEAR>
__global__ void GemmSsKernel(const T* a, const T* b, const float* c_in, float* c_out) {
  using Shape = tl::mma::AccumulatorShape<M, N, WARPS_M, WARPS_N>;
  __shared__ __align__(16) T a_s[M * K];
  __shared__ __align__(16) T b_s[K * N];
  const int thread = threadIdx.x + blockDim.x * threadIdx.y;
  const int threads = blockDim.x * blockDim.y;
  for (int e = thread; e < M * K; e += threads) a_s[e] = a[e];
  for (int e = thread; e < K * N; e += threads) b_s[e] = b[e];
  __syncthreads();
  float c[Shape::kRegisters];
#pragma unroll
  for (int r = 0; r < Shape::kRegisters; ++r) {
    c[r] = c_in[Shape::Row(thread, r) * N + Shape::Col(thread, r)];
  }
  tl::gemm_ss<M, N, K, WARPS_M, WARPS_N, TRANS_A, TRANS_B, CLEAR>(a_s, b_s, c);
#pragma unroll
  for (int r = 0; r < Shape::kRegisters; ++r) {
    c_out[Shape::Row(thread, r) * N + Shape::Col(thread, r)] = c[r];
  }
}

template <typename T, int M, int N, int K, bool TRANS_A, bool TRANS_B, bool CLEAR>
__global__ void NaiveKernel(const T* a, const T* b, const float* c_in, float* c_out) {
  const int i = blockIdx.x;
  for (int j = threadIdx.x; j < N; j += blockDim.x) {
    float sum = CLEAR ? 0.0f : c_in[i * N + j];
    for (int k = 0; k < K; ++k) {
      float x = static_cast<float>(TRANS_A ? a[k * M + i] : a[i * K + k]);
      float y = static_cast<float>(TRANS_B ? b[j * K + k] : b[k * N + j]);
      sum += x * y;
    }
    c_out[i * N + j] = sum;
  }
}

template <typename T, int M, int N, int K, int WARPS_M, int WARPS_N, bool TRANS_A, bool TRANS_B,
          bool CLEAR>
bool Run(const char* type, dim3 block) {
  std::mt19937 random(M * 31 + N * 17 + K + TRANS_A * 2 + TRANS_B + CLEAR * 5);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<T> a(M * K), b(K * N);
  std::vector<float> c_in(M * N);
  for (T& x : a) x = FromFloat<T>(uniform(random));
  for (T& x : b) x = FromFloat<T>(uniform(random));
  for (float& x : c_in) x = uniform(random);
  T *a_d, *b_d;
  float *c_in_d, *c_d, *ref_d;
  CHECK_CUDA(cudaMalloc(&a_d, a.size() * sizeof(T)));
  CHECK_CUDA(cudaMalloc(&b_d, b.size() * sizeof(T)));
  CHECK_CUDA(cudaMalloc(&c_in_d, M * N * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&c_d, M * N * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&ref_d, M * N * sizeof(float)));
  CHECK_CUDA(cudaMemcpy(a_d, a.data(), a.size() * sizeof(T), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(b_d, b.data(), b.size() * sizeof(T), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(c_in_d, c_in.data(), M * N * sizeof(float), cudaMemcpyHostToDevice));
  // Poison the output, so that an element nobody writes shows.
  CHECK_CUDA(cudaMemset(c_d, 0xff, M * N * sizeof(float)));
  GemmSsKernel<T, M, N, K, WARPS_M, WARPS_N, TRANS_A, TRANS_B, CLEAR>
      <<<1, block>>>(a_d, b_d, c_in_d, c_d);
  CHECK_CUDA(cudaGetLastError());
  NaiveKernel<T, M, N, K, TRANS_A, TRANS_B, CLEAR><<<M, 128>>>(a_d, b_d, c_in_d, ref_d);
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaDeviceSynchronize());
  std::vector<float> c(M * N), ref(M * N);
  CHECK_CUDA(cudaMemcpy(c.data(), c_d, M * N * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(ref.data(), ref_d, M * N * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaFree(a_d));
  CHECK_CUDA(cudaFree(b_d));
  CHECK_CUDA(cudaFree(c_in_d));
  CHECK_CUDA(cudaFree(c_d));
  CHECK_CUDA(cudaFree(ref_d));

  // Products of fp16/bf16 values are exact in fp32; only the order of the fp32 sums differs.
  const float tolerance = 1e-5f * (K + 1);
  double worst = 0;
  int bad = 0;
  int first_i = -1, first_j = -1;
  for (int i = 0; i < M; ++i) {
    for (int j = 0; j < N; ++j) {
      float error = std::fabs(c[i * N + j] - ref[i * N + j]);
      if (!(error <= tolerance)) {
        if (bad++ == 0) {
          first_i = i;
          first_j = j;
        }
      }
      if (error > worst || error != error) worst = error;
    }
  }
  std::printf("%s %-5s %3dx%3dx%2d warps %dx%d trans_a=%d trans_b=%d clear=%d block=(%d,%d): ",
              bad ? "FAIL" : "ok  ", type, M, N, K, WARPS_M, WARPS_N, TRANS_A, TRANS_B, CLEAR,
              block.x, block.y);
  if (bad) {
    std::printf("%d of %d wrong, first C[%d, %d] = %g, want %g\n", bad, M * N, first_i, first_j,
                c[first_i * N + first_j], ref[first_i * N + first_j]);
  } else {
    std::printf("max error %.3g\n", worst);
  }
  return bad == 0;
}

template <typename T>
bool RunAll(const char* type) {
  bool ok = true;
  ok &= Run<T, 128, 128, 32, 2, 2, false, false, false>(type, dim3(128));
  ok &= Run<T, 128, 128, 32, 2, 2, true, false, false>(type, dim3(128));
  ok &= Run<T, 128, 128, 32, 2, 2, false, true, false>(type, dim3(128));
  ok &= Run<T, 128, 128, 32, 2, 2, true, true, false>(type, dim3(128));
  ok &= Run<T, 64, 64, 32, 2, 2, false, false, true>(type, dim3(128));
  ok &= Run<T, 64, 64, 64, 4, 1, true, true, true>(type, dim3(128));
  ok &= Run<T, 64, 64, 32, 1, 4, false, true, false>(type, dim3(128));
  ok &= Run<T, 32, 48, 32, 1, 2, false, false, false>(type, dim3(64));
  ok &= Run<T, 32, 48, 32, 1, 2, true, true, false>(type, dim3(64));
  ok &= Run<T, 16, 8, 16, 1, 1, false, true, true>(type, dim3(32));
  ok &= Run<T, 128, 256, 32, 2, 4, false, false, false>(type, dim3(256));
  // The flat thread index over two axes, as the code generator launches threads(32, 4).
  ok &= Run<T, 64, 64, 32, 2, 2, true, false, false>(type, dim3(32, 4));
  return ok;
}

}  // namespace

int main() {
  int device = 0;
  cudaDeviceProp properties;
  CHECK_CUDA(cudaGetDeviceProperties(&properties, device));
  std::printf("device %s, sm_%d%d\n", properties.name, properties.major, properties.minor);
  bool ok = RunAll<__half>("f16");
  ok &= RunAll<__nv_bfloat16>("bf16");
  std::printf(ok ? "all variants match the naive kernel\n" : "SOME VARIANTS FAILED\n");
  return ok ? 0 : 1;
}
