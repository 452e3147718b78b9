// mbarrier vocabulary shared by both ladders, over CCCL's cuda::ptx wrappers (and the flag wait of stream-K's owners).
// A phase completes when its pending arrivals and its tx-count both reach zero; try_wait.parity(p)
// succeeds once the phase with parity p has completed (PTX ISA 9.7.13.15 "mbarrier").
#pragma once
#include <cuda/atomic>
#include <cuda/ptx>

#include <cstdint>
#include <cstdio>

#include "device/cluster.cuh"

// In debug builds (no NDEBUG) a wait that never completes traps with the barrier's name instead of
// hanging the GPU. LADDER_BARRIER_TIMEOUT can also be forced on (e.g. for fault-injection variants).
#if !defined(LADDER_BARRIER_TIMEOUT)
#if defined(NDEBUG)
#define LADDER_BARRIER_TIMEOUT 0
#else
#define LADDER_BARRIER_TIMEOUT 1
#endif
#endif

namespace ladder {

__device__ __forceinline__ void mbarrier_init(uint64_t* bar, uint32_t count) { cuda::ptx::mbarrier_init(bar, count); }

// Makes the inits visible to the other threads and to the async proxy (TMA, tensor core) before use.
__device__ __forceinline__ void fence_barrier_init() {
  cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
}

// One arrival that also announces `bytes` of TMA traffic for the current phase.
__device__ __forceinline__ void mbarrier_arrive_expect_tx(uint64_t* bar, uint32_t bytes) {
  cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta, cuda::ptx::space_shared, bar,
                                       bytes);
}

__device__ __forceinline__ void mbarrier_arrive(uint64_t* bar) { cuda::ptx::mbarrier_arrive(bar); }

// Arrive on barrier `bar` (our SMEM offset) in CTA `cta` of the cluster (its mapa address, a shared::cluster arrive).
// NOTE: default semantics, release at CTA scope (as CUTLASS's ClusterBarrier). A .release.cluster arrive
// would also wait until this thread's earlier global stores (the previous tile's writeback) are visible
// cluster-wide, stalling the mainloop; the stage's readers are wgmmas already retired by wait_group.
__device__ __forceinline__ void mbarrier_arrive_cluster(uint64_t* bar, uint32_t cta) {
  asm volatile("mbarrier.arrive.shared::cluster.b64 _, [%0];\n" ::"r"(shared_cluster_addr(bar, cta)) : "memory");
}

// One arrival on `bar` in each of the first `ctas` CTAs of the cluster: frees a stage that every CTA's
// producer may write into (TMA multicast).
__device__ __forceinline__ void mbarrier_arrive_each_cta(uint64_t* bar, int ctas) {
  for (int r = 0; r < ctas; ++r) mbarrier_arrive_cluster(bar, static_cast<uint32_t>(r));
}

// Spins until done() holds. In debug builds (LADDER_BARRIER_TIMEOUT) a wait past ~5 s at 2 GHz, far beyond any
// legitimate one, calls report() (a printf naming the wait) and traps instead of hanging the GPU.
template <bool kTimeout, class Done, class Report>
__device__ __forceinline__ void spin_until(Done done, Report report) {
  if constexpr (kTimeout) {
    const long long start = clock64();
    while (!done()) {
      if (clock64() - start > (10ll << 30)) {
        report();
        __trap();
      }
    }
  } else {
    while (!done()) {
    }
  }
}

// Blocks until the phase with parity `phase` of `bar` has completed. `name` names the barrier in the
// debug-build timeout message.
template <bool kTimeout = (LADDER_BARRIER_TIMEOUT != 0)>
__device__ __forceinline__ void mbarrier_wait(uint64_t* bar, uint32_t phase, const char* name) {
  spin_until<kTimeout>([&] { return cuda::ptx::mbarrier_try_wait_parity(bar, phase); }, [&] {
    printf("ladder: mbarrier '%s' wait (parity %u) timed out in block %d thread %d\n", name, phase, blockIdx.x, threadIdx.x);
  });
}

// Blocks until another CTA sets `*flag` (release) to non-zero, then acquires what it wrote. The same debug-build timeout as
// mbarrier_wait: a flag never set (a grid not resident at once, a lost store) traps with `name` and `who` (the worker
// waited for) instead of hanging the GPU.
template <bool kTimeout = (LADDER_BARRIER_TIMEOUT != 0)>
__device__ __forceinline__ void wait_flag_set(int* flag, const char* name, int who) {
  cuda::atomic_ref<int, cuda::thread_scope_device> f(*flag);
  spin_until<kTimeout>([&] { return f.load(cuda::memory_order_acquire) != 0; }, [&] {
    printf("ladder: %s of worker %d never set (block %d thread %d)\n", name, who, blockIdx.x, threadIdx.x);
  });
}

}  // namespace ladder
