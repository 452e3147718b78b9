// Blackwell ladder · step 01 — one tile. Compiled for sm_100a, not run (we have no Blackwell GPU).
// The smallest correct kernel, as the seed writes it: one 128x128 output tile, K = 64, grid 1x1, one
// warpgroup (128 threads). Every hop is done the slow, obvious way:
//   GMEM ─(all threads copy)→ SMEM (SW128) ─(tcgen05.mma, one thread)→ TMEM (fp32) ─(tcgen05.ld)→ registers
//   ─(cast, store)→ GMEM
// Limitations = the syllabus: one K-tile (→ b02), one output tile (→ b03), synchronous copies (→ b04),
// no overlap (→ b05–b07).
#include <cuda/ptx>

#include "blackwell/tile.cuh"
#include "device/elect.cuh"
#include "device/mbarrier.cuh"
#include "runtime/runtime.hpp"
#include "step.hpp"

namespace ladder::blackwell {
namespace {

constexpr std::string_view kStepId = "b01";

inline constexpr uint32_t kSmemBytes = (BLK_M + BLK_N) * BLK_K * sizeof(__half) + sizeof(uint64_t) + sizeof(uint32_t);
static_assert(kSmemBytes <= sm100::kMaxSmemPerCta, "SMEM budget: 227 KB per CTA");

__global__ void __launch_bounds__(kWarpgroupThreads) one_tile_kernel(const __half* A, const __half* B, __half* D) {
  // (1) ALLOCATE: two SW128 tiles (1024-B aligned for the swizzle), mma_bar, and the accumulator in TMEM.
  __shared__ alignas(1024) __half Asmem[BLK_M * BLK_K];  // (BLK_M, BLK_K)
  __shared__ alignas(1024) __half Bsmem[BLK_N * BLK_K];  // (BLK_N, BLK_K): B is N×K, a row-band
  __shared__ uint64_t mma_bar;                            // completion signal for the MMA
  __shared__ uint32_t tmem_slot;                          // tcgen05.alloc writes the TMEM address here
  const int warp = threadIdx.x / 32;

  if (warp == 0) tmem_allocate<kTmemCols>(&tmem_slot);  // (BLK_M lanes, BLK_N columns) of fp32
  if (threadIdx.x == 0) {
    mbarrier_init(&mma_bar, 1);  // one arrival: the tcgen05.commit
    fence_barrier_init();
  }
  // NOTE: alloc → other threads use the address: tcgen05 fences around the thread sync (PTX ISA 9.7.16.6).
  cuda::ptx::tcgen05_fence_before_thread_sync();
  __syncthreads();
  cuda::ptx::tcgen05_fence_after_thread_sync();
  const uint32_t acc = tmem_slot;

  // (2) SYNCHRONOUS LOAD GMEM → SMEM: every thread copies its share.
  cooperative_copy<BLK_M>(Asmem, A, BLK_K);
  cooperative_copy<BLK_N>(Bsmem, B, BLK_K);
  // NOTE: st.shared is the generic proxy, tcgen05.mma reads SMEM through the async proxy: fence, then publish.
  cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);
  __syncthreads();

  // (3) MMA from ONE thread: narrow to warp 0, then elect.sync picks one lane. 128 issuers would launch the
  // full-tile MMA 128 times. accumulate = false: TMEM holds garbage, the first MMA overwrites it.
  if (warp == 0 && elect_one_sync()) {
    mma_k_tile(acc, Asmem, Bsmem, /*accumulate=*/false);
    cuda::ptx::tcgen05_commit(cuda::ptx::cta_group_1, &mma_bar);  // arrives when the MMAs above complete
  }
  mbarrier_wait(&mma_bar, /*phase=*/0, "mma_bar");  // the whole CTA waits for the math
  cuda::ptx::tcgen05_fence_after_thread_sync();

  // (4) WRITEBACK TMEM → registers → GMEM: thread (warp w, lane l) writes row 32w + l, cast once.
  store_tile<BLK_N>(acc, D, BLK_N, 0, 0, BLK_M, BLK_N);

  // (5) FREE the TMEM: every tcgen05.ld has completed (wait::ld) before the allocating warp deallocates.
  tmem_release<kTmemCols>(warp == 0, acc);
}

std::string check(const detail::Problem& p) { return detail::require_one_tile(p, BLK_M, BLK_N, BLK_K); }

void launch(const detail::Problem& p, cudaStream_t stream) {
  one_tile_kernel<<<1, kWarpgroupThreads, 0, stream>>>(p.A, p.B, p.D);
  detail::check_launch(kStepId);
}

}  // namespace
}  // namespace ladder::blackwell

extern const ladder::detail::Step step_b01 = {
    ladder::blackwell::kStepId, ladder::detail::Arch::blackwell, "one tile",
    "smallest correct kernel: cooperative copy to SW128 SMEM, one elected thread issues tcgen05.mma "
    "m128n128k16 into TMEM and commits to mma_bar, tcgen05.ld to registers, GMEM (compiled for sm_100a, not run)",
    "M == 128, N == 128, K == 64; dense rows (lda == K, ldb == K, ldd == N)",
    ladder::blackwell::check, ladder::blackwell::launch};
