// Blackwell ladder · step 08 — clusters (a CTA pair). Compiled for sm_100a, not run (we have no Blackwell GPU).
// Extends b07 by changing who the tensor core serves: a 2-CTA cluster computes one 256×256 tile with
// tcgen05.mma.cta_group::2 (M = 256, N = 256). Each CTA loads only its halves — A rows [128·rank, +128) and
// B rows [128·rank, +128) of the cluster tile — and the pair's leader (rank 0) issues every MMA, reading
// the same SMEM offsets in both CTAs; each CTA's TMEM holds its 128 rows × 256 columns of D.
//   - full_bar lives in the leader: both CTAs' TMA loads (.cta_group::2) signal it, so its expect_tx counts
//     both CTAs' bytes;
//   - empty_bar and tmem_full live in both CTAs: the leader's tcgen05.commit multicasts (mask 0b11);
//   - tmem_empty lives in the leader: every epilogue warp of both CTAs arrives on it (remotely from the peer);
//   - cluster syncs before TMEM alloc and before dealloc; every tcgen05 instruction is cta_group::2.
// Gains: per CTA, half the B bytes per FLOP of b07 (a 256-wide N from a 128-row B load), so twice the MMA
// work per stage; the book measures 607 → 1328 TFLOP/s for this step on a B200.
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

constexpr std::string_view kStepId = "b08";

namespace cg = cooperative_groups;

inline constexpr int CLUSTER = 2;                          // CTAs per cluster: the cta_group::2 pair
inline constexpr int TILE_M = CLUSTER * BLK_M;             // 256: the cluster tile
inline constexpr int TILE_N = 256;
inline constexpr int B_HALF = TILE_N / CLUSTER;            // 128 B rows per CTA
inline constexpr int STAGES = 6;
inline constexpr int GROUP_M = 8;                          // in cluster tiles
inline constexpr uint32_t kStageBytes = (BLK_M + B_HALF) * BLK_K * sizeof(__half);  // what lands in EACH CTA
inline constexpr uint32_t kTmemColsPair = TILE_N;          // 128 lanes × 256 fp32 columns per CTA
inline constexpr uint32_t kIdescPair = sm100::instr_descriptor_f16_f32(TILE_M, TILE_N);  // 0x10400010
inline constexpr int kEpilogueWarps = 4, kTmaWarp = 4, kMmaWarp = 5;
inline constexpr int kThreads = (kEpilogueWarps + 2) * 32;
inline constexpr uint16_t kPairMask = 0b11;
static_assert(sm100::valid_tmem_columns(kTmemColsPair));

struct SharedStorage {
  alignas(1024) __half A[STAGES][BLK_M * BLK_K];   // STAGES × (BLK_M, BLK_K): this CTA's half of A
  alignas(1024) __half B[STAGES][B_HALF * BLK_K];  // STAGES × (B_HALF, BLK_K): this CTA's half of B
  uint64_t full_bar[STAGES];   // TMA (both CTAs) → MMA: used in the leader only
  uint64_t empty_bar[STAGES];  // MMA → TMA: multicast commit into both CTAs
  uint64_t tmem_full;          // MMA → epilogue: multicast commit into both CTAs
  uint64_t tmem_empty;         // epilogue warps of both CTAs → MMA: used in the leader only
  uint32_t tmem_slot;
};
inline constexpr size_t kSmemBytes = sizeof(SharedStorage) + 1024;
static_assert(kSmemBytes <= sm100::kMaxSmemPerCta, "SMEM budget: 227 KB per CTA");

__global__ void __cluster_dims__(CLUSTER, 1, 1) __launch_bounds__(kThreads, 1)
    cta_pair_kernel(const __grid_constant__ CUtensorMap tmap_a, const __grid_constant__ CUtensorMap tmap_b, __half* D,
                    int64_t ldd, int M, int N, int K) {
  extern __shared__ uint8_t smem_raw[];
  auto& s = align_smem<SharedStorage>(smem_raw);
  const cg::cluster_group cluster = cg::this_cluster();
  const uint32_t rank = cluster.block_rank();
  const bool leader = rank == 0;
  const int warp = threadIdx.x / 32;

  if (threadIdx.x == 0) {
    for (int st = 0; st < STAGES; ++st) {
      mbarrier_init(&s.full_bar[st], 1);   // the leader's expect_tx arrival + both CTAs' bytes
      mbarrier_init(&s.empty_bar[st], 1);  // one (multicast) commit
    }
    mbarrier_init(&s.tmem_full, 1);
    mbarrier_init(&s.tmem_empty, CLUSTER * kEpilogueWarps);  // one arrival per epilogue warp of the pair
    fence_barrier_init();
  }
  cluster.sync();  // the peer's barriers are initialised before anyone signals them
  if (warp == kMmaWarp) tmem_allocate<kTmemColsPair, 2>(&s.tmem_slot);  // one warp in EACH CTA of the pair
  cuda::ptx::tcgen05_fence_before_thread_sync();
  cluster.sync();
  cuda::ptx::tcgen05_fence_after_thread_sync();
  const uint32_t acc = s.tmem_slot;

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
          const uint32_t full = shared_cluster_addr(&s.full_bar[load.stage], 0);  // the leader's
          sm100::tma_load_2d_2sm(s.A[load.stage], &tmap_a, kt * BLK_K, tm * TILE_M + rank * BLK_M, full);
          sm100::tma_load_2d_2sm(s.B[load.stage], &tmap_b, kt * BLK_K, tn * TILE_N + rank * B_HALF, full);
          load.advance();
        }
      }
    }
  } else if (warp == kMmaWarp) {
    if (leader && elect_one_sync()) {  // ONE thread of the pair issues the MMAs for both CTAs
      PipelineState<STAGES> read;
      AccumulatorRing<1> accum;
      for (int tile = cluster_id; tile < sched.num_tiles(); tile += clusters) {
        mbarrier_wait(&s.tmem_empty, accum.mma_parity(), "tmem_empty");
        cuda::ptx::tcgen05_fence_after_thread_sync();
        for (int i = 0; i < k_tiles; ++i) {
          mbarrier_wait(&s.full_bar[read.stage], read.phase, "full_bar");
          cuda::ptx::tcgen05_fence_after_thread_sync();
          mma_k_tile<2>(acc, s.A[read.stage], s.B[read.stage], /*accumulate=*/i != 0, kIdescPair);
          cuda::ptx::tcgen05_commit_multicast(cuda::ptx::cta_group_2, &s.empty_bar[read.stage], kPairMask);
          read.advance();
        }
        cuda::ptx::tcgen05_commit_multicast(cuda::ptx::cta_group_2, &s.tmem_full, kPairMask);
        accum.next_tile();
      }
    }
  } else {  // warps 0–3: the epilogue warpgroup of this CTA: its 128 rows × 256 columns
    AccumulatorRing<1> accum;
    for (int tile = cluster_id; tile < sched.num_tiles(); tile += clusters) {
      int tm, tn;
      sched.tile(tile, tm, tn);
      mbarrier_wait(&s.tmem_full, accum.epilogue_parity(), "tmem_full");
      cuda::ptx::tcgen05_fence_after_thread_sync();
      store_tile<TILE_N>(acc, D, ldd, tm * TILE_M + rank * BLK_M, tn * TILE_N, M, N);
      cuda::ptx::tcgen05_fence_before_thread_sync();
      __syncwarp();  // the whole warp's tcgen05.ld's are done before its one arrival
      if (threadIdx.x % 32 == 0) mbarrier_arrive_cluster(&s.tmem_empty, /*cta=*/0);  // the leader's
      accum.next_tile();
    }
  }

  // No CTA deallocates or leaves while its peer may still read its SMEM (MMA) or signal its barriers.
  tmem_release_pair<kTmemColsPair>(cluster, warp == kMmaWarp, acc);
}

std::string check(const detail::Problem& p) {
  return require_tma_rows_and_16b_stores(p);
}

void launch(const detail::Problem& p, cudaStream_t stream) {
  const CUtensorMap ta = make_tensor_map_2d(p.A, p.M, p.K, p.lda, BLK_M, BLK_K);
  const CUtensorMap tb = make_tensor_map_2d(p.B, p.N, p.K, p.ldb, B_HALF, BLK_K);
  const int64_t cluster_tiles = ((p.M + TILE_M - 1) / TILE_M) * ((p.N + TILE_N - 1) / TILE_N);
  detail::launch_persistent(kStepId, cta_pair_kernel, {kThreads, kSmemBytes, CLUSTER}, cluster_tiles, stream, ta, tb,
                            p.D, p.ldd, static_cast<int>(p.M), static_cast<int>(p.N), static_cast<int>(p.K));
}

}  // namespace
}  // namespace ladder::blackwell

extern const ladder::detail::Step step_b08 = {
    ladder::blackwell::kStepId, ladder::detail::Arch::blackwell, "clusters",
    "a 2-CTA cluster computes 256x256 with tcgen05.mma.cta_group::2 issued by the leader; each CTA loads half "
    "of A and B, TMA signals the leader's full_bar, commits multicast to both (compiled for sm_100a, not run)",
    "any M >= 1; N % 8 == 0; K % 8 == 0; lda, ldb, ldd % 8 == 0 (tails: zero-filled loads, predicated "
    "stores; unverified: not run)",
    ladder::blackwell::check, ladder::blackwell::launch};
