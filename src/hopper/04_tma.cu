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

constexpr std::string_view kStepId = "h04";

inline constexpr uint32_t kStageBytes = (BLK_M + BLK_N) * BLK_K * sizeof(__half);
inline constexpr char kFaults[] = "forget-phase-toggle,lost-arrival,skip-fragment,corrupt-one-element";

// Bugs built on purpose (`ladder check --steps h04 --inject <fault>`):
//   forget-phase-toggle — the seed's bug: from iteration 1 on the wait returns early (silent corruption);
//   lost-arrival        — the last K-tile is never loaded: its wait never completes. Fault variants always
//                         have the barrier timeout, so this traps with the barrier's name instead of hanging;
//   skip-fragment       — the writeback drops one 8×8 block of D (it keeps the verifier's poison);
//   corrupt-one-element — after a correct run, one element is a quarter off: a few ulps, which only an
//                         elementwise bound sees at large sizes (4096³: the normwise one lets ~100 through).
enum class Fault { none, forget_phase_toggle, lost_arrival, skip_fragment };

// skip-fragment: CTA (0, 0) leaves rows 0-7, columns 0-7 of D unwritten. Warp 0 holds them in registers 0, 1 of
// its first fragment (tile.cuh's layout: row 16w + l/4 + 8·v1, column 8j + 2(l%4) + v0).
__device__ __forceinline__ void store_tile_dropping_one_block(const float (&acc)[kMHalves][kAccRegs], __half* D,
                                                              int64_t ldd, int64_t M, int64_t N) {
  const int w = threadIdx.x / 32, l = threadIdx.x % 32;
  for (int h = 0; h < kMHalves; ++h)
    for (int j = 0; j < BLK_N / 8; ++j)
      for (int v1 = 0; v1 < 2; ++v1) {
        if (h == 0 && w == 0 && j == 0 && v1 == 0) continue;  // the dropped block
        const int64_t row = h * WGMMA_M + 16 * w + l / 4 + 8 * v1, col = 8 * j + 2 * (l % 4);
        for (int v0 = 0; v0 < 2; ++v0)
          if (row < M && col + v0 < N) D[row * ldd + col + v0] = __float2half_rn(acc[h][4 * j + 2 * v1 + v0]);
      }
}

// corrupt-one-element: adds a quarter to the middle element of a correct D.
__global__ void corrupt_one_element_kernel(__half* d) { *d = __float2half_rn(__half2float(*d) + 0.25f); }

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

  if constexpr (kFault == Fault::skip_fragment)
    if (blockIdx.x == 0 && blockIdx.y == 0) return store_tile_dropping_one_block(acc, D, ldd, M, N);
  store_tile(acc, D, ldd, m_st, n_st, M, N);
}

std::string check(const detail::Problem& p) {
  if (auto e = detail::require_tma_rows(p); !e.empty()) return e;
  return detail::require_grid_y(p, BLK_N);
}

template <Fault kFault>
void run(const detail::Problem& p, cudaStream_t stream) {
  const CUtensorMap ta = make_tensor_map_2d(p.A, p.M, p.K, p.lda, BLK_M, BLK_K);
  const CUtensorMap tb = make_tensor_map_2d(p.B, p.N, p.K, p.ldb, BLK_N, BLK_K);
  const dim3 grid(static_cast<unsigned>((p.M + BLK_M - 1) / BLK_M), static_cast<unsigned>((p.N + BLK_N - 1) / BLK_N));
  tma_kernel<kFault><<<grid, kWarpgroupThreads, 0, stream>>>(ta, tb, p.D, p.ldd, static_cast<int>(p.M),
                                                             static_cast<int>(p.N), static_cast<int>(p.K));
  detail::check_launch(kStepId);
}

void launch(const detail::Problem& p, cudaStream_t stream) { run<Fault::none>(p, stream); }

void launch_fault(const detail::Problem& p, cudaStream_t stream, std::string_view fault) {
  if (fault == "forget-phase-toggle") return run<Fault::forget_phase_toggle>(p, stream);
  if (fault == "lost-arrival") return run<Fault::lost_arrival>(p, stream);
  if (fault == "skip-fragment") return run<Fault::skip_fragment>(p, stream);
  if (fault == "corrupt-one-element") {
    run<Fault::none>(p, stream);
    corrupt_one_element_kernel<<<1, 1, 0, stream>>>(p.D + p.M / 2 * p.ldd + p.N / 2);
    return detail::check_launch(kStepId);
  }
  throw Error(LADDER_ERROR_INVALID_ARGUMENT,
              std::string(kStepId) + " has no fault '" + std::string(fault) + "' (faults: " + kFaults + ")");
}

}  // namespace
}  // namespace ladder::hopper

extern const ladder::detail::Step step_h04 = {
    ladder::hopper::kStepId, ladder::detail::Arch::hopper, "TMA",
    "GMEM→SMEM by the copy engine: one thread issues cp.async.bulk.tensor (SWIZZLE_128B maps), full_bar with "
    "expect_tx, phase toggled every K-tile",
    "any M, N >= 1; K % 8 == 0 (16-byte rows); lda, ldb % 8 == 0", ladder::hopper::check, ladder::hopper::launch,
    ladder::hopper::kFaults, ladder::hopper::launch_fault};
