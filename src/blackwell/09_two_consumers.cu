// Blackwell ladder · step 09 — multi-consumer. Compiled for sm_100a, not run (we have no Blackwell GPU).
// Extends b08 by giving each B tile more than one consumer: the cluster tile grows to 512×256, computed
// by two MMA consumers that share every B stage. Consumer c (MMA warp 9 + c of the leader) owns cluster
// rows [256·c, +256): it issues tcgen05.mma.cta_group::2 from A half c and the shared B into TMEM columns
// [256·c, +256) (all 512 columns of each CTA), and epilogue warpgroup c (warps 4c … 4c+3, lane quarters by
// warp % 4) writes it back. Per stage each CTA loads 2 × 128 A rows and 128 B rows.
//   - empty_bar counts two commits (one per consumer): a stage is free when BOTH have read it;
//   - tmem_full / tmem_empty are per consumer: each consumer waits only for its own writeback. The two share
//     every B stage, so they run within STAGES k-tiles of each other and both still wait (→ b10).
// Gains: B traffic per FLOP halves again (the book: 1328 → 1460 TFLOP/s, cuBLAS parity, on a B200).
#include <cooperative_groups.h>
#include <cuda/ptx>

#include <algorithm>

#include "blackwell/tile.cuh"
#include "device/elect.cuh"
#include "device/mbarrier.cuh"
#include "device/pipeline.hpp"
#include "device/scheduler.hpp"
#include "device/smem.cuh"
#include "device/sm100/tma_2sm.cuh"
#include "device/tensor_map.hpp"
#include "runtime/launch.cuh"
#include "runtime/runtime.hpp"
#include "step.hpp"

namespace ladder::blackwell {
namespace {

constexpr std::string_view kStepId = "b09";

namespace cg = cooperative_groups;

inline constexpr int CLUSTER = 2;                          // CTAs per cluster: the cta_group::2 pair
inline constexpr int CONSUMERS = 2;                        // MMA consumers sharing each B stage
inline constexpr int MMA_M = CLUSTER * BLK_M;              // 256: one consumer's cta_group::2 MMA
inline constexpr int TILE_M = CONSUMERS * MMA_M;           // 512: the cluster tile
inline constexpr int TILE_N = 256;
inline constexpr int B_HALF = TILE_N / CLUSTER;            // 128 B rows per CTA
inline constexpr int STAGES = 4;
inline constexpr int GROUP_M = 4;                          // in cluster tiles (512 rows each)
inline constexpr uint32_t kStageBytes = (CONSUMERS * BLK_M + B_HALF) * BLK_K * sizeof(__half);  // per CTA
inline constexpr uint32_t kAccCols = TILE_N;               // one consumer's accumulator: 256 columns
inline constexpr uint32_t kTmemColsPair = CONSUMERS * kAccCols;  // 512: all of TMEM
inline constexpr uint32_t kIdescPair = sm100::instr_descriptor_f16_f32(MMA_M, TILE_N);  // 0x10400010
inline constexpr int kEpilogueWarps = CONSUMERS * 4;       // warps 0–7: two epilogue warpgroups
inline constexpr int kTmaWarp = kEpilogueWarps, kFirstMmaWarp = kEpilogueWarps + 1;
inline constexpr int kThreads = (kEpilogueWarps + 1 + CONSUMERS) * 32;  // 352
inline constexpr uint16_t kPairMask = 0b11;
static_assert(sm100::valid_tmem_columns(kTmemColsPair));

struct SharedStorage {
  alignas(1024) __half A[STAGES][CONSUMERS][BLK_M * BLK_K];  // STAGES × CONSUMERS × (BLK_M, BLK_K)
  alignas(1024) __half B[STAGES][B_HALF * BLK_K];            // STAGES × (B_HALF, BLK_K): shared by both
  uint64_t full_bar[STAGES];             // TMA (both CTAs) → both consumers: leader only
  uint64_t empty_bar[STAGES];            // both consumers → TMA: two multicast commits
  uint64_t tmem_full[CONSUMERS];         // consumer c's MMAs → epilogue warpgroup c (both CTAs)
  uint64_t tmem_empty[CONSUMERS];        // epilogue warpgroup c (both CTAs) → consumer c: leader only
  uint32_t tmem_slot;
};
inline constexpr size_t kSmemBytes = sizeof(SharedStorage) + 1024;
static_assert(kSmemBytes <= sm100::kMaxSmemPerCta, "SMEM budget: 227 KB per CTA");

__global__ void __cluster_dims__(CLUSTER, 1, 1) __launch_bounds__(kThreads, 1)
    two_consumers_kernel(const __grid_constant__ CUtensorMap tmap_a, const __grid_constant__ CUtensorMap tmap_b,
                         __half* D, int64_t ldd, int M, int N, int K) {
  extern __shared__ uint8_t smem_raw[];
  auto& s = align_smem<SharedStorage>(smem_raw);
  const cg::cluster_group cluster = cg::this_cluster();
  const uint32_t rank = cluster.block_rank();
  const bool leader = rank == 0;
  const int warp = threadIdx.x / 32;

  if (threadIdx.x == 0) {
    for (int st = 0; st < STAGES; ++st) {
      mbarrier_init(&s.full_bar[st], 1);
      mbarrier_init(&s.empty_bar[st], CONSUMERS);  // one (multicast) commit per consumer
    }
    for (int c = 0; c < CONSUMERS; ++c) {
      mbarrier_init(&s.tmem_full[c], 1);
      mbarrier_init(&s.tmem_empty[c], CLUSTER * 4);  // one arrival per warp of warpgroup c, both CTAs
    }
    fence_barrier_init();
  }
  cluster.sync();
  if (warp == kFirstMmaWarp) tmem_allocate<kTmemColsPair, 2>(&s.tmem_slot);
  cuda::ptx::tcgen05_fence_before_thread_sync();
  cluster.sync();
  cuda::ptx::tcgen05_fence_after_thread_sync();
  const uint32_t tmem = s.tmem_slot;

  const TileScheduler sched{(M + TILE_M - 1) / TILE_M, (N + TILE_N - 1) / TILE_N, GROUP_M};
  const int k_tiles = (K + BLK_K - 1) / BLK_K;
  const int cluster_id = blockIdx.x / CLUSTER, clusters = gridDim.x / CLUSTER;

  if (warp == kTmaWarp) {
    if (elect_one_sync()) {
      PipelineState<STAGES> load;
      for (int tile = cluster_id; tile < sched.num_tiles(); tile += clusters) {
        int tm, tn;
        sched.tile(tile, tm, tn);
        for (int kt = 0; kt < k_tiles; ++kt) {
          mbarrier_wait(&s.empty_bar[load.stage], load.producer_phase(), "empty_bar");
          if (leader) mbarrier_arrive_expect_tx(&s.full_bar[load.stage], CLUSTER * kStageBytes);
          const uint32_t full = shared_cluster_addr(&s.full_bar[load.stage], 0);
          for (int c = 0; c < CONSUMERS; ++c)
            sm100::tma_load_2d_2sm(s.A[load.stage][c], &tmap_a, kt * BLK_K, tm * TILE_M + c * MMA_M + rank * BLK_M,
                                   full);
          sm100::tma_load_2d_2sm(s.B[load.stage], &tmap_b, kt * BLK_K, tn * TILE_N + rank * B_HALF, full);
          load.advance();
        }
      }
    }
  } else if (warp >= kFirstMmaWarp) {
    const int c = warp - kFirstMmaWarp;  // this warp's consumer
    if (leader && elect_one_sync()) {
      const uint32_t acc = tmem + c * kAccCols;
      PipelineState<STAGES> read;
      AccumulatorRing<1> accum;
      for (int tile = cluster_id; tile < sched.num_tiles(); tile += clusters) {
        mbarrier_wait(&s.tmem_empty[c], accum.mma_parity(), "tmem_empty");
        cuda::ptx::tcgen05_fence_after_thread_sync();
        for (int i = 0; i < k_tiles; ++i) {
          mbarrier_wait(&s.full_bar[read.stage], read.phase, "full_bar");
          cuda::ptx::tcgen05_fence_after_thread_sync();
          mma_k_tile<2>(acc, s.A[read.stage][c], s.B[read.stage], /*accumulate=*/i != 0, kIdescPair);
          cuda::ptx::tcgen05_commit_multicast(cuda::ptx::cta_group_2, &s.empty_bar[read.stage], kPairMask);
          read.advance();
        }
        cuda::ptx::tcgen05_commit_multicast(cuda::ptx::cta_group_2, &s.tmem_full[c], kPairMask);
        accum.next_tile();
      }
    }
  } else {  // warps 0–7: epilogue warpgroup c = warp / 4 writes consumer c's 128 rows × 256 columns
    const int c = warp / 4;
    AccumulatorRing<1> accum;
    for (int tile = cluster_id; tile < sched.num_tiles(); tile += clusters) {
      int tm, tn;
      sched.tile(tile, tm, tn);
      mbarrier_wait(&s.tmem_full[c], accum.epilogue_parity(), "tmem_full");
      cuda::ptx::tcgen05_fence_after_thread_sync();
      store_tile<TILE_N>(tmem + c * kAccCols, D, ldd, tm * TILE_M + c * MMA_M + rank * BLK_M, tn * TILE_N, M, N);
      cuda::ptx::tcgen05_fence_before_thread_sync();
      __syncwarp();
      if (threadIdx.x % 32 == 0) mbarrier_arrive_cluster(&s.tmem_empty[c], /*cta=*/0);  // the leader's
      accum.next_tile();
    }
  }

  tmem_release_pair<kTmemColsPair>(cluster, warp == kFirstMmaWarp, tmem);
}

std::string check(const detail::Problem& p) {
  return require_tma_rows_and_16b_stores(p);
}

void launch(const detail::Problem& p, cudaStream_t stream) {
  const CUtensorMap ta = make_tensor_map_2d(p.A, p.M, p.K, p.lda, BLK_M, BLK_K);
  const CUtensorMap tb = make_tensor_map_2d(p.B, p.N, p.K, p.ldb, B_HALF, BLK_K);
  const int64_t cluster_tiles = ((p.M + TILE_M - 1) / TILE_M) * ((p.N + TILE_N - 1) / TILE_N);
  detail::launch_persistent(kStepId, two_consumers_kernel, {kThreads, kSmemBytes, CLUSTER}, cluster_tiles, stream, ta,
                            tb, p.D, p.ldd, static_cast<int>(p.M), static_cast<int>(p.N), static_cast<int>(p.K));
}

}  // namespace
}  // namespace ladder::blackwell

extern const ladder::detail::Step step_b09 = {
    ladder::blackwell::kStepId, ladder::detail::Arch::blackwell, "multi-consumer",
    "two MMA consumers share each B stage: 512x256 per cluster, TMEM columns 0-255 / 256-511, two epilogue "
    "warpgroups; empty_bar counts both consumers' commits (compiled for sm_100a, not run)",
    "any M >= 1; N % 8 == 0; K % 8 == 0; lda, ldb, ldd % 8 == 0 (tails: zero-filled loads, predicated "
    "stores; unverified: not run)",
    ladder::blackwell::check, ladder::blackwell::launch};
