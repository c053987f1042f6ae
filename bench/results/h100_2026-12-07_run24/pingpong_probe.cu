// Which named-barrier protocols does compute-sanitizer racecheck follow?
//
// A block of 384 threads shaped like a warp-specialized kernel of ours: warpgroups 0 and 1 are
// the consumers, warpgroup 2 (the producer) returns at once. Each variant runs a loop of turns
// between the two consumers and then exchanges data through shared memory. Every variant is
// race-free by construction; racecheck's verdict on each tells which synchronization it models.
//
//   0  no turns; exchange across warpgroups behind bar.sync 1,256
//   1  turns as {pingpong=on} emits them (bar.arrive / bar.sync on ids 3 and 4), then variant 0's
//      exchange
//   2  turns in lockstep, bar.sync only (both warpgroups sync on 3, then on 4), then the exchange
//   3  variant 1's turns, then an exchange inside each warpgroup (bar.sync 5 + w, 128)
//   4  turns through two mbarriers (arrive / try_wait.parity), then variant 0's exchange
//   5  variant 1's turns with no shared-memory access inside the loop, then the exchange
//
// Run 24 (H100, compute-sanitizer 2025.3.1): every variant 0 hazards and 0 wrong values
// (call1/probe.log). A probe of variant 1's protocol in the session before reported hazards;
// its source was not kept, so that report stands unconfirmed.
//
// Build (probe.sh runs `probe` from this folder): nvcc -O2 -lineinfo -gencode=arch=compute_90a,code=sm_90a pingpong_probe.cu -o probe
// Run:   compute-sanitizer --tool racecheck --racecheck-report all ./probe V   (V = 0..5)
#include <cstdio>
#include <cstdlib>

#define SYNC(id, n) asm volatile("bar.sync " #id ", " #n ";" ::: "memory")
#define ARRIVE(id, n) asm volatile("bar.arrive " #id ", " #n ";" ::: "memory")

constexpr int kTurns = 4;

__device__ void MbarInit(unsigned long long* bar, int count) {
  unsigned addr = static_cast<unsigned>(__cvta_generic_to_shared(bar));
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(addr), "r"(count) : "memory");
}
__device__ void MbarArrive(unsigned long long* bar) {
  unsigned addr = static_cast<unsigned>(__cvta_generic_to_shared(bar));
  asm volatile("{ .reg .b64 st; mbarrier.arrive.shared::cta.b64 st, [%0]; }" ::"r"(addr)
               : "memory");
}
__device__ void MbarWait(unsigned long long* bar, unsigned parity) {
  unsigned addr = static_cast<unsigned>(__cvta_generic_to_shared(bar));
  asm volatile(
      "{ .reg .pred p; WAIT_%=: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;"
      " @!p bra WAIT_%=; }" ::"r"(addr),
      "r"(parity)
      : "memory");
}

template <int V>
__global__ void Probe(float* out) {
  __shared__ float tile[2][128];
  __shared__ float scratch[256];
  __shared__ unsigned long long turn[2];
  const int tx = threadIdx.x;
  if (V == 4) {
    if (tx == 0) {
      MbarInit(&turn[0], 128);
      MbarInit(&turn[1], 128);
      asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();
  }
  if (tx >= 256) return;  // the producer warpgroup
  const int w = tx / 128, lane = tx % 128;
  float acc = 0.f;
  if (V == 1 || V == 3 || V == 5) {
    if (w == 1) ARRIVE(3, 256);  // warpgroup 0 goes first
    for (int k = 0; k < kTurns; ++k) {
      if (w == 0) SYNC(3, 256); else SYNC(4, 256);
      if (V != 5) {
        scratch[tx] = k + tx;
        acc += scratch[tx];
      } else {
        acc += k + tx;
      }
      if (w == 0) ARRIVE(4, 256); else ARRIVE(3, 256);
    }
    if (w == 0) SYNC(3, 256);  // warpgroup 1's last arrival
  } else if (V == 2) {
    for (int k = 0; k < kTurns; ++k) {
      SYNC(3, 256);
      scratch[tx] = k + tx;
      acc += scratch[tx];
      SYNC(4, 256);
    }
  } else if (V == 4) {
    if (w == 1) MbarArrive(&turn[0]);
    for (int k = 0; k < kTurns; ++k) {
      MbarWait(&turn[w], k & 1);
      scratch[tx] = k + tx;
      acc += scratch[tx];
      MbarArrive(&turn[1 - w]);
    }
  }
  tile[w][lane] = tx + acc;
  float other;
  if (V == 3) {
    if (w == 0) SYNC(5, 128); else SYNC(6, 128);
    other = tile[w][127 - lane];
  } else {
    SYNC(1, 256);
    other = tile[1 - w][lane];
  }
  out[tx] = other;
}

int main(int argc, char** argv) {
  const int v = argc > 1 ? atoi(argv[1]) : 0;
  float* out;
  cudaMalloc(&out, 256 * sizeof(float));
  switch (v) {
    case 0: Probe<0><<<1, 384>>>(out); break;
    case 1: Probe<1><<<1, 384>>>(out); break;
    case 2: Probe<2><<<1, 384>>>(out); break;
    case 3: Probe<3><<<1, 384>>>(out); break;
    case 4: Probe<4><<<1, 384>>>(out); break;
    case 5: Probe<5><<<1, 384>>>(out); break;
    default: fprintf(stderr, "variant %d: expected 0..5\n", v); return 2;
  }
  float host[256];
  cudaError_t err = cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost);
  if (err != cudaSuccess) {
    fprintf(stderr, "variant %d: %s\n", v, cudaGetErrorString(err));
    return 1;
  }
  // Expected values: what the other thread wrote.
  int wrong = 0;
  for (int tx = 0; tx < 256; ++tx) {
    const int w = tx / 128, lane = tx % 128;
    const int src = (v == 3) ? w * 128 + (127 - lane) : (1 - w) * 128 + lane;
    float acc = 0.f;
    if (v != 0) for (int k = 0; k < kTurns; ++k) acc += k + src;
    wrong += host[tx] != src + acc;
  }
  printf("variant %d: %d of 256 values wrong\n", v, wrong);
  return wrong != 0;
}
