// Asynchronous copies from global to shared memory (cp.async, sm_80 and
// newer) and the group commit and wait that inject-software-pipeline's
// async_commit() and async_wait(n) become.
#pragma once

namespace tl {

__device__ __forceinline__ unsigned shared_address(const void* pointer) {
  return static_cast<unsigned>(__cvta_generic_to_shared(pointer));
}

// Copies 16 bytes (both addresses 16-byte aligned) when pred holds, else
// fills the destination with zeros without reading the source.
__device__ __forceinline__ void cp_async_16(void* smem, const void* gmem, bool pred) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(shared_address(smem)),
               "l"(gmem), "r"(pred ? 16 : 0)
               : "memory");
}

// The same for 8 and 4 bytes, through the L1 cache (cp.async.cg takes 16 only).
__device__ __forceinline__ void cp_async_8(void* smem, const void* gmem, bool pred) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;\n" ::"r"(shared_address(smem)),
               "l"(gmem), "r"(pred ? 8 : 0)
               : "memory");
}
__device__ __forceinline__ void cp_async_4(void* smem, const void* gmem, bool pred) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(shared_address(smem)),
               "l"(gmem), "r"(pred ? 4 : 0)
               : "memory");
}

// Closes the group of copies this thread issued since the last commit.
__device__ __forceinline__ void cp_async_commit() {
  asm volatile("cp.async.commit_group;\n" ::: "memory");
}

// Waits until at most N of this thread's committed groups are still pending.
// Other threads' copies need a barrier after it to be visible; wgmma reads them after that
// barrier with no proxy fence, as CUTLASS's cp.async + GMMA mainloop does (a fence here is
// MEMBAR.ALL.CTA + FENCE.VIEW.ASYNC.S in SASS, which may also wait for the groups still in
// flight).
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

// Orders this thread's ordinary shared-memory stores before later reads of the async proxy
// (wgmma's operand reads), when a barrier follows; cuda.fence_proxy_async. Nothing before
// sm_90, which has no async proxy reading shared memory.
__device__ __forceinline__ void fence_proxy_async() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
#endif
}

}  // namespace tl
