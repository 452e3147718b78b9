// Hopper ladder · step 04 — TMA.
// Extends h03 by changing one hop: GMEM → SMEM is now done by the copy engine. One elected thread issues
// cp.async.bulk.tensor for A and B (SWIZZLE_128B tensor maps: the hardware writes the same layout the
// cooperative copy built by hand) and arms `full_bar` with expect_tx; everyone waits on it with `phase`,
// which toggles every K-tile (the seed's phase-flip table).
// Gains: the math warps no longer spend issue slots on copies; tails in M, N and K are free (out-of-bounds
// reads fill zeros), so any M, N ≥ 1 and K % 8 == 0 are accepted. Still no overlap (→ h05).
#include "device/mbarrier.cuh"
#include "device/tensor_map.hpp"
#include "device/tma.cuh"
#include "hopper/tile.cuh"
#include "runtime/runtime.hpp"
#include "step.hpp"

namespace ladder::hopper {
namespace {

inline constexpr uint32_t kStageBytes = (BLK_M + BLK_N) * BLK_K * sizeof(__half);

// Bugs built on purpose (`ladder check --steps h04 --inject <fault>`):
//   forget-phase-toggle — the seed's bug: from iteration 1 on the wait returns early (silent corruption);
//   lost-arrival        — the last K-tile is never loaded: its wait never completes. Fault variants always
//                         have the barrier timeout, so this traps with the barrier's name instead of hanging.
enum class Fault { none, forget_phase_toggle, lost_arrival };

template <Fault kFault>
__global__ void __launch_bounds__(kWarpgroupThreads) tma_kernel(const __grid_constant__ CUtensorMap tmap_a,
                                                                const __grid_constant__ CUtensorMap tmap_b, __half* D,
                                                                int64_t ldd, int M, int N, int K) {
  __shared__ alignas(1024) __half Asmem[BLK_M * BLK_K];  // (BLK_M, BLK_K)
  __shared__ alignas(1024) __half Bsmem[BLK_N * BLK_K];  // (BLK_N, BLK_K)
  __shared__ uint64_t full_bar;                           // TMA → MMA: "this K-tile has landed"
  float acc[kMHalves][kAccRegs];                          // (BLK_M, BLK_N)

  const int m_st = blockIdx.x * BLK_M, n_st = blockIdx.y * BLK_N;
  if (threadIdx.x == 0) {
    mbarrier_init(&full_bar, 1);  // one arrival (the elected thread's expect_tx) + the tx-bytes
    fence_barrier_init();
  }
  __syncthreads();

  uint32_t phase = 0;
  const int k_tiles = (K + BLK_K - 1) / BLK_K;  // the last K-tile may run past K: zero-filled
  for (int i = 0; i < k_tiles; ++i) {
    const bool lose = kFault == Fault::lost_arrival && i == k_tiles - 1;
    if (threadIdx.x == 0 && !lose) {  // one elected thread drives the copy engine
      mbarrier_arrive_expect_tx(&full_bar, kStageBytes);
      tma_load_2d(Asmem, &tmap_a, i * BLK_K, m_st, &full_bar);
      tma_load_2d(Bsmem, &tmap_b, i * BLK_K, n_st, &full_bar);
    }
    mbarrier_wait</*kTimeout=*/kFault != Fault::none>(&full_bar, phase, "full_bar");
    if constexpr (kFault != Fault::forget_phase_toggle) phase ^= 1;  // ← TOGGLE: the next wait is for the next phase

    sm90::wgmma_fence();
    mma_k_tile(acc, Asmem, Bsmem, /*accumulate=*/i != 0);
    sm90::wgmma_commit_group();
    sm90::wgmma_wait_group<0>();
    sm90::fence_operand(acc[0]);
    sm90::fence_operand(acc[1]);
    __syncthreads();  // every warp is done reading this K-tile before the next TMA overwrites it
  }

  store_tile(acc, D, ldd, m_st, n_st, M, N);
}

std::string check(const detail::Problem& p) {
  if (auto e = detail::require_tma_rows(p); !e.empty()) return e;
  if ((p.N + BLK_N - 1) / BLK_N > 65535) return "N must be at most 65535*128 (grid y limit)";
  return {};
}

template <Fault kFault>
void run(const detail::Problem& p, cudaStream_t stream) {
  const CUtensorMap ta = make_tensor_map_2d(p.A, p.M, p.K, p.lda, BLK_M, BLK_K);
  const CUtensorMap tb = make_tensor_map_2d(p.B, p.N, p.K, p.ldb, BLK_N, BLK_K);
  const dim3 grid(static_cast<unsigned>((p.M + BLK_M - 1) / BLK_M), static_cast<unsigned>((p.N + BLK_N - 1) / BLK_N));
  tma_kernel<kFault><<<grid, kWarpgroupThreads, 0, stream>>>(ta, tb, p.D, p.ldd, static_cast<int>(p.M),
                                                             static_cast<int>(p.N), static_cast<int>(p.K));
  detail::check_launch("h04");
}

void launch(const detail::Problem& p, cudaStream_t stream) { run<Fault::none>(p, stream); }

void launch_fault(const detail::Problem& p, cudaStream_t stream, std::string_view fault) {
  if (fault == "forget-phase-toggle") return run<Fault::forget_phase_toggle>(p, stream);
  if (fault == "lost-arrival") return run<Fault::lost_arrival>(p, stream);
  throw Error(LADDER_ERROR_INVALID_ARGUMENT,
              "h04 has no fault '" + std::string(fault) + "' (faults: forget-phase-toggle, lost-arrival)");
}

}  // namespace
}  // namespace ladder::hopper

extern const ladder::detail::Step step_h04 = {
    "h04", ladder::detail::Arch::hopper, "TMA",
    "GMEM→SMEM by the copy engine: one thread issues cp.async.bulk.tensor (SWIZZLE_128B maps), full_bar with "
    "expect_tx, phase toggled every K-tile",
    "any M, N >= 1; K % 8 == 0 (16-byte rows); lda, ldb % 8 == 0", ladder::hopper::check, ladder::hopper::launch,
    "forget-phase-toggle,lost-arrival", ladder::hopper::launch_fault};
