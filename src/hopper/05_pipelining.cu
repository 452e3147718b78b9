// Hopper ladder · step 05 — pipelining.
// Extends h04 by changing how the GMEM → SMEM hop overlaps the next one: an S-stage SMEM ring with a
// `full_bar` (TMA → MMA) and an `empty_bar` (MMA → TMA) per stage. Loads run S−1 K-tiles ahead of the
// wgmmas; `wait_group 1` keeps one wgmma group in flight, and a stage is released (arrive on empty_bar)
// only after the wait that covers the wgmmas reading it.
// Should gain: the tensor core no longer idles while a K-tile is in flight. Predicted ~2× over h04;
// measured +14 % (docs/notes.md: h04 already overlapped loads across 3 CTAs per SM).
#include "device/mbarrier.cuh"
#include "device/pipeline.hpp"
#include "device/smem.cuh"
#include "device/tensor_map.hpp"
#include "device/tma.cuh"
#include "hopper/tile.cuh"
#include "runtime/runtime.hpp"
#include "step.hpp"

namespace ladder::hopper {
namespace {

constexpr std::string_view kStepId = "h05";

inline constexpr int STAGES = 3;  // 3 × 32 KB: two CTAs fit on an SM (228 KB)
inline constexpr uint32_t kStageBytes = (BLK_M + BLK_N) * BLK_K * sizeof(__half);
inline constexpr int kWarps = kWarpgroupThreads / 32;

struct SharedStorage {
  alignas(1024) __half A[STAGES][BLK_M * BLK_K];  // STAGES × (BLK_M, BLK_K)
  alignas(1024) __half B[STAGES][BLK_N * BLK_K];  // STAGES × (BLK_N, BLK_K)
  uint64_t full_bar[STAGES];                      // TMA → MMA: stage has landed
  uint64_t empty_bar[STAGES];                     // MMA → TMA: stage may be overwritten
};
inline constexpr size_t kSmemBytes = sizeof(SharedStorage) + 1024;  // + slack to align the base to 1024
static_assert(kSmemBytes <= 227 * 1024, "SMEM budget");

__global__ void __launch_bounds__(kWarpgroupThreads) pipelined_kernel(const __grid_constant__ CUtensorMap tmap_a,
                                                                      const __grid_constant__ CUtensorMap tmap_b,
                                                                      __half* D, int64_t ldd, int M, int N, int K) {
  extern __shared__ uint8_t smem_raw[];
  auto& s = align_smem<SharedStorage>(smem_raw);
  float acc[kMHalves][kAccRegs];  // (BLK_M, BLK_N)

  const int m_st = blockIdx.x * BLK_M, n_st = blockIdx.y * BLK_N;
  if (threadIdx.x == 0) {
    for (int st = 0; st < STAGES; ++st) {
      mbarrier_init(&s.full_bar[st], 1);        // the producer's expect_tx arrival + tx-bytes
      mbarrier_init(&s.empty_bar[st], kWarps);  // one arrival per consumer warp
    }
    fence_barrier_init();
  }
  __syncthreads();

  const int k_tiles = (K + BLK_K - 1) / BLK_K;
  PipelineState<STAGES> load;  // the producer's cursor (thread 0 only)
  PipelineState<STAGES> read;  // the consumers' cursor
  auto produce = [&](int kt) {
    mbarrier_wait(&s.empty_bar[load.stage], load.producer_phase(), "empty_bar");
    mbarrier_arrive_expect_tx(&s.full_bar[load.stage], kStageBytes);
    tma_load_2d(s.A[load.stage], &tmap_a, kt * BLK_K, m_st, &s.full_bar[load.stage]);
    tma_load_2d(s.B[load.stage], &tmap_b, kt * BLK_K, n_st, &s.full_bar[load.stage]);
    load.advance();
  };

  if (threadIdx.x == 0)  // prologue: fill S−1 stages
    for (int kt = 0; kt < STAGES - 1 && kt < k_tiles; ++kt) produce(kt);

  uint32_t prev_stage = 0;
  for (int i = 0; i < k_tiles; ++i) {
    mbarrier_wait(&s.full_bar[read.stage], read.phase, "full_bar");
    sm90::wgmma_fence();
    mma_k_tile(acc, s.A[read.stage], s.B[read.stage], /*accumulate=*/i != 0);
    sm90::wgmma_commit_group();
    sm90::wgmma_wait_group<1>();  // K-tile i−1's wgmmas are done: its stage may be refilled
    if (i > 0 && threadIdx.x % 32 == 0) mbarrier_arrive(&s.empty_bar[prev_stage]);
    prev_stage = read.stage;
    read.advance();
    if (threadIdx.x == 0 && i + STAGES - 1 < k_tiles) produce(i + STAGES - 1);
  }
  sm90::wgmma_wait_group<0>();
  sm90::fence_operand(acc[0]);
  sm90::fence_operand(acc[1]);

  store_tile(acc, D, ldd, m_st, n_st, M, N);
}

std::string check(const detail::Problem& p) {
  if (auto e = detail::require_tma_rows(p); !e.empty()) return e;
  return detail::require_grid_y(p, BLK_N);
}

void launch(const detail::Problem& p, cudaStream_t stream) {
  detail::allow_dynamic_smem(reinterpret_cast<const void*>(pipelined_kernel), kSmemBytes, kStepId);
  const CUtensorMap ta = make_tensor_map_2d(p.A, p.M, p.K, p.lda, BLK_M, BLK_K);
  const CUtensorMap tb = make_tensor_map_2d(p.B, p.N, p.K, p.ldb, BLK_N, BLK_K);
  const dim3 grid(static_cast<unsigned>((p.M + BLK_M - 1) / BLK_M), static_cast<unsigned>((p.N + BLK_N - 1) / BLK_N));
  pipelined_kernel<<<grid, kWarpgroupThreads, kSmemBytes, stream>>>(ta, tb, p.D, p.ldd, static_cast<int>(p.M),
                                                                   static_cast<int>(p.N), static_cast<int>(p.K));
  detail::check_launch(kStepId);
}

}  // namespace
}  // namespace ladder::hopper

extern const ladder::detail::Step step_h05 = {
    ladder::hopper::kStepId, ladder::detail::Arch::hopper, "pipelining",
    "an S-stage SMEM ring with full/empty barriers: TMA runs S-1 K-tiles ahead; wait_group 1 keeps one wgmma "
    "group in flight; a stage is freed after the wait that covers it",
    "any M, N >= 1; K % 8 == 0 (16-byte rows); lda, ldb % 8 == 0", ladder::hopper::check, ladder::hopper::launch};
