// detail/thread/bulk_copy.cuh — sm_90 bulk copies (the TMA engine, 1-D form):
// one thread moves a whole tile from global to shared memory, completion is
// counted in bytes on a shared-memory mbarrier. No registers hold the data
// while it is in flight.
#pragma once

#include <cstdint>

namespace scankit::detail {

__device__ __forceinline__ std::uint32_t shared_address(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

/// Initializes an mbarrier expecting one arrival, and makes it visible to
/// the copy engine. Call from one thread, then __syncthreads().
__device__ __forceinline__ void mbarrier_init(std::uint64_t* bar) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(shared_address(bar)) : "memory");
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

/// Initializes an mbarrier whose phases complete after `count` arrivals (no
/// bytes expected). Call from one thread, then __syncthreads().
__device__ __forceinline__ void mbarrier_init_arrivals(std::uint64_t* bar, std::uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(shared_address(bar)), "r"(count) : "memory");
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

/// Starts copying `bytes` (a multiple of 16; both addresses 16-byte aligned)
/// from global to shared memory; phase 0 of `bar` completes when they land.
__device__ __forceinline__ void bulk_load(void* smem_dst, const void* gmem_src, std::uint32_t bytes, std::uint64_t* bar) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(shared_address(bar)), "r"(bytes)
               : "memory");
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
          shared_address(smem_dst)),
      "l"(gmem_src), "r"(bytes), "r"(shared_address(bar))
      : "memory");
}

/// Adds `bytes` to the transfer count the current phase of `bar` waits for,
/// without arriving (the copy itself: bulk_copy_to_shared).
__device__ __forceinline__ void mbarrier_expect_bytes(std::uint64_t* bar, std::uint32_t bytes) {
  asm volatile("mbarrier.expect_tx.shared::cta.b64 [%0], %1;" ::"r"(shared_address(bar)), "r"(bytes) : "memory");
}

/// Starts copying `bytes` (a multiple of 16; both addresses 16-byte aligned)
/// from global to shared memory, counted on `bar` (after
/// mbarrier_expect_bytes; the phase also needs its arrival).
__device__ __forceinline__ void bulk_copy_to_shared(void* smem_dst, const void* gmem_src, std::uint32_t bytes,
                                                    std::uint64_t* bar) {
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
          shared_address(smem_dst)),
      "l"(gmem_src), "r"(bytes), "r"(shared_address(bar))
      : "memory");
}

/// Starts fetching `bytes` (a multiple of 16; the address 16-byte aligned)
/// from global memory into L2, without waiting for them.
__device__ __forceinline__ void bulk_prefetch_l2(const void* gmem_src, std::uint32_t bytes) {
  asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(gmem_src), "r"(bytes) : "memory");
}

/// Orders this thread's earlier generic-proxy accesses to shared memory
/// (loads and stores) before later async-proxy ones (a bulk copy into the
/// same bytes). Every thread that touched a buffer calls it before the
/// buffer is handed back for a bulk-copy refill; the hand-off (mbarrier or
/// __syncthreads) then orders it before the copy's issue.
__device__ __forceinline__ void fence_generic_to_async_shared() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

/// Arrives on `bar` (release: the thread's earlier shared-memory writes are
/// visible to every thread whose mbarrier_wait sees the phase complete).
__device__ __forceinline__ void mbarrier_arrive(std::uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(shared_address(bar)) : "memory");
}

/// Waits until phase `parity` of `bar` has completed.
__device__ __forceinline__ void mbarrier_wait(std::uint64_t* bar, std::uint32_t parity) {
  std::uint32_t done = 0;
  do {
    asm volatile(
        "{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n selp.b32 %0, 1, 0, p;\n}"
        : "=r"(done)
        : "r"(shared_address(bar)), "r"(parity)
        : "memory");
  } while (!done);
}

}  // namespace scankit::detail
