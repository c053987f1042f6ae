// Warp specialization (sm_90a): the mbarriers that pass stage slots between the producer
// warpgroup and the consumers, named barriers for one role, and register reallocation
// between the roles. The calls of targets/cuda/passes/warp_specialize.h and warp_roles.h.
// An mbarrier is a 64-bit word of shared memory (an i64 element in the IR).
#pragma once

namespace tl {

__device__ __forceinline__ unsigned mbarrier_address(const long long* barrier) {
  return static_cast<unsigned>(__cvta_generic_to_shared(barrier));
}

// Phase 0 in progress, expecting `count` arrivals.
__device__ __forceinline__ void mbarrier_init(long long* barrier, int count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(mbarrier_address(barrier)),
               "r"(count)
               : "memory");
}

// Makes this thread's mbarrier initializations visible to the other threads (before the
// barrier that follows them).
__device__ __forceinline__ void fence_barrier_init() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
#endif
}

// Returns once the phase of the given parity has completed (acquire). A barrier whose
// phase 0 is in progress counts the phase before it, of parity 1, as completed: a producer
// waits for parity 1 first and passes at once.
__device__ __forceinline__ void mbarrier_wait_parity(long long* barrier, int parity) {
  asm volatile(
      "{\n"
      ".reg .pred done;\n"
      "WAIT:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      "@!done bra WAIT;\n"
      "}\n" ::"r"(mbarrier_address(barrier)),
      "r"(parity)
      : "memory");
}

// mbarrier_wait_parity with cluster scope: the producer of a pair of blocks waits on a slot that
// the other block's consumers release too (their arrivals are .release.cluster).
__device__ __forceinline__ void mbarrier_wait_parity_cluster(long long* barrier, int parity) {
  asm volatile(
      "{\n"
      ".reg .pred done;\n"
      "WAIT:\n"
      "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 done, [%0], %1;\n"
      "@!done bra WAIT;\n"
      "}\n" ::"r"(mbarrier_address(barrier)),
      "r"(parity)
      : "memory");
}

// One arrival, releasing this thread's earlier memory accesses to the waiters.
__device__ __forceinline__ void mbarrier_arrive(long long* barrier) {
  asm volatile(
      "{\n"
      ".reg .b64 state;\n"
      "mbarrier.arrive.shared::cta.b64 state, [%0];\n"
      "}\n" ::"r"(mbarrier_address(barrier))
      : "memory");
}

// One arrival for the executing warpgroup, by its first thread, after the warpgroup's wgmma
// reading the slot have retired (wgmma.wait_group): the wgmma of a warpgroup complete as one,
// so one arrival releases what all 128 threads read, where 128 arrivals cost FlashAttention-3
// a measured regression (its PipelineTmaAsync variant signals from one thread of 128).
__device__ __forceinline__ void mbarrier_arrive_warpgroup(long long* barrier) {
  if ((threadIdx.x & 127u) == 0) mbarrier_arrive(barrier);
}

// bar.sync with a thread count: the barrier of one role (id 0 is __syncthreads).
__device__ __forceinline__ void named_barrier_sync(int id, int threads) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}

// bar.arrive with a thread count: this thread counts towards barrier `id` without waiting (the
// other side of a named_barrier_sync).
__device__ __forceinline__ void named_barrier_arrive(int id, int threads) {
  asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}

// Registers per thread of the executing warpgroup (all its warps execute it).
template <int kRegisters>
__device__ __forceinline__ void setmaxnreg_inc() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(kRegisters));
#endif
}
template <int kRegisters>
__device__ __forceinline__ void setmaxnreg_dec() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(kRegisters));
#endif
}

}  // namespace tl
