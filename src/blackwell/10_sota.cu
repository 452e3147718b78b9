// Blackwell ladder · step 10 — sota. Compiled for sm_100a, not run (we have no Blackwell GPU).
// Extends b09 (two MMA consumers share every B stage of a CTA pair) by taking the writeback off the tensor
// core's path:
//   - double-buffered TMEM accumulators: each consumer gets two accumulator stages, so its MMAs compute tile
//     t+1 into one while its epilogue warpgroup drains tile t from the other; tmem_full / tmem_empty become
//     per-consumer rings with their own AccumulatorRing<2> (the "empty" side again starts at parity 1).
//     TMEM has 512 columns: 2 consumers × 2 stages × 256 columns would need 1024, so each accumulator is 128
//     columns and the cluster tile narrows from 512×256 to 512×128 (MMA M = 256, N = 128, 64 B rows per CTA);
//     consumer c, stage s owns columns [128·(2c + s), +128);
//   - TMA-store epilogue: TMEM → registers → SW128 SMEM block (128 × 64) → cp.async.bulk.tensor store, two
//     staging buffers per epilogue warpgroup (bulk-group wait_group.read 1 before reuse); the accumulator is
//     released after the tile's last tcgen05.ld, before its stores finish; the D tensor map clips M and N tails.
// Intended gain (compiled, not run; nothing here is measured): the tensor core no longer waits for a writeback
// (on a B200, others report: gau-nernst v6 +9 % from 2× accumulators; Modular, double-buffered write-out
// +64 TFLOP/s), and stores are coalesced 16 KB boxes. Costs: the narrower tile
// re-reads A for half as many columns; docs/notes-blackwell.md estimates that SMEM traffic (not measured).
#include <cooperative_groups.h>
#include <cuda/ptx>

#include <algorithm>

#include "blackwell/epilogue.cuh"
#include "blackwell/tile.cuh"
#include "device/elect.cuh"
#include "device/mbarrier.cuh"
#include "device/named_barrier.cuh"
#include "device/pipeline.hpp"
#include "device/scheduler.hpp"
#include "device/smem.cuh"
#include "device/sm100/tma_2sm.cuh"
#include "device/tensor_map.hpp"
#include "device/tma.cuh"
#include "runtime/launch.cuh"
#include "runtime/runtime.hpp"
#include "step.hpp"

namespace ladder::blackwell {
namespace {

constexpr std::string_view kStepId = "b10";

namespace cg = cooperative_groups;

inline constexpr int CLUSTER = 2;                          // CTAs per cluster: the cta_group::2 pair
inline constexpr int CONSUMERS = 2;                        // MMA consumers sharing each B stage
inline constexpr int MMA_M = CLUSTER * BLK_M;              // 256: one consumer's cta_group::2 MMA
inline constexpr int TILE_M = CONSUMERS * MMA_M;           // 512: the cluster tile
inline constexpr int TILE_N = 128;                         // b09: 256; two accumulator stages halve it (TMEM)
inline constexpr int B_HALF = TILE_N / CLUSTER;            // 64 B rows per CTA
inline constexpr int STAGES = 4;
inline constexpr int ACC_STAGES = 2;                       // double-buffered TMEM accumulators, per consumer
inline constexpr int GROUP_M = 4;                          // in cluster tiles (512 rows each)
inline constexpr uint32_t kStageBytes = (CONSUMERS * BLK_M + B_HALF) * BLK_K * sizeof(__half);  // per CTA
inline constexpr uint32_t kAccCols = TILE_N;               // one accumulator stage: 128 columns
inline constexpr uint32_t kTmemColsPair = CONSUMERS * ACC_STAGES * kAccCols;  // 512: all of TMEM
inline constexpr uint32_t kIdescPair = sm100::instr_descriptor_f16_f32(MMA_M, TILE_N);  // 0x10200010
inline constexpr int kEpilogueWarps = CONSUMERS * 4;       // warps 0–7: two epilogue warpgroups
inline constexpr int kEpilogueThreads = 4 * 32;            // one epilogue warpgroup
inline constexpr int kTmaWarp = kEpilogueWarps, kFirstMmaWarp = kEpilogueWarps + 1;
inline constexpr int kThreads = (kEpilogueWarps + 1 + CONSUMERS) * 32;  // 352
inline constexpr int kFirstEpilogueBarrier = 1;            // named barrier 1 + c: epilogue warpgroup c
inline constexpr uint16_t kPairMask = 0b11;
static_assert(sm100::valid_tmem_columns(kTmemColsPair));
static_assert(TILE_N % 16 == 0 && TILE_N >= 16 && TILE_N <= 256, "cta_group::2 kind::f16: N % 16 == 0 in [16, 256]");
static_assert(B_HALF % 8 == 0 && TILE_N % kStoreCols == 0, "whole 8-row swizzle atoms, whole 64-column store boxes");

struct SharedStorage {
  alignas(1024) __half A[STAGES][CONSUMERS][BLK_M * BLK_K];  // STAGES × CONSUMERS × (BLK_M, BLK_K)
  alignas(1024) __half B[STAGES][B_HALF * BLK_K];            // STAGES × (B_HALF, BLK_K): shared by both
  alignas(1024) __half staging[CONSUMERS][2][BLK_M * kStoreCols];  // per epilogue warpgroup: 2 × (BLK_M, 64)
  uint64_t full_bar[STAGES];                     // TMA (both CTAs) → both consumers: leader only
  uint64_t empty_bar[STAGES];                    // both consumers → TMA: two multicast commits
  uint64_t tmem_full[CONSUMERS][ACC_STAGES];     // consumer c's MMAs → epilogue warpgroup c (both CTAs)
  uint64_t tmem_empty[CONSUMERS][ACC_STAGES];    // epilogue warpgroup c (both CTAs) → consumer c: leader only
  uint32_t tmem_slot;
};
inline constexpr size_t kSmemBytes = sizeof(SharedStorage) + 1024;
static_assert(kSmemBytes <= sm100::kMaxSmemPerCta, "SMEM budget: 227 KB per CTA");

__global__ void __cluster_dims__(CLUSTER, 1, 1) __launch_bounds__(kThreads, 1)
    sota_kernel(const __grid_constant__ CUtensorMap tmap_a, const __grid_constant__ CUtensorMap tmap_b,
                const __grid_constant__ CUtensorMap tmap_d, int M, int N, int K) {
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
    for (int c = 0; c < CONSUMERS; ++c)
      for (int a = 0; a < ACC_STAGES; ++a) {
        mbarrier_init(&s.tmem_full[c][a], 1);
        mbarrier_init(&s.tmem_empty[c][a], CLUSTER * 4);  // one arrival per warp of warpgroup c, both CTAs
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
      PipelineState<STAGES> read;
      AccumulatorRing<ACC_STAGES> accum;  // which of this consumer's TMEM accumulators, and its phase
      for (int tile = cluster_id; tile < sched.num_tiles(); tile += clusters) {
        mbarrier_wait(&s.tmem_empty[c][accum.stage()], accum.mma_parity(), "tmem_empty");
        cuda::ptx::tcgen05_fence_after_thread_sync();
        const uint32_t acc = tmem + (c * ACC_STAGES + accum.stage()) * kAccCols;
        for (int i = 0; i < k_tiles; ++i) {
          mbarrier_wait(&s.full_bar[read.stage], read.phase, "full_bar");
          cuda::ptx::tcgen05_fence_after_thread_sync();
          mma_k_tile<2>(acc, s.A[read.stage][c], s.B[read.stage], /*accumulate=*/i != 0, kIdescPair);
          cuda::ptx::tcgen05_commit_multicast(cuda::ptx::cta_group_2, &s.empty_bar[read.stage], kPairMask);
          read.advance();
        }
        cuda::ptx::tcgen05_commit_multicast(cuda::ptx::cta_group_2, &s.tmem_full[c][accum.stage()], kPairMask);
        accum.next_tile();
      }
    }
  } else {  // warps 0–7: epilogue warpgroup c = warp / 4 stores consumer c's 128 rows × 128 columns via SMEM
    const int c = warp / 4;
    const bool store_thread = threadIdx.x % kEpilogueThreads == 0;
    // NOTE: each branch names its barrier by a constant; an id ptxas cannot resolve reserves all 16 of them.
    static_assert(CONSUMERS == 2, "one named barrier per epilogue warpgroup");
    const auto epilogue_sync = [c] {
      if (c == 0) named_barrier_sync(kFirstEpilogueBarrier, kEpilogueThreads);
      else named_barrier_sync(kFirstEpilogueBarrier + 1, kEpilogueThreads);
    };
    AccumulatorRing<ACC_STAGES> accum;
    uint32_t blocks = 0;  // staging buffer = blocks % 2
    for (int tile = cluster_id; tile < sched.num_tiles(); tile += clusters) {
      int tm, tn;
      sched.tile(tile, tm, tn);
      mbarrier_wait(&s.tmem_full[c][accum.stage()], accum.epilogue_parity(), "tmem_full");
      cuda::ptx::tcgen05_fence_after_thread_sync();
      const uint32_t acc = tmem + (c * ACC_STAGES + accum.stage()) * kAccCols;
      for (int b = 0; b < TILE_N / kStoreCols; ++b, ++blocks) {
        __half* block = s.staging[c][blocks % 2];
        if (store_thread) tma_store_wait_read<1>();  // the store issued from this buffer two blocks ago has read it
        epilogue_sync();
        tmem_block_to_smem(acc, b * kStoreCols, block);
        if (b == TILE_N / kStoreCols - 1) {  // the tile's last tcgen05.ld is done: release the accumulator
          cuda::ptx::tcgen05_fence_before_thread_sync();
          __syncwarp();
          if (threadIdx.x % 32 == 0) mbarrier_arrive_cluster(&s.tmem_empty[c][accum.stage()], /*cta=*/0);  // the leader's
        }
        cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);  // st.shared (generic) → TMA store (async proxy)
        epilogue_sync();
        if (store_thread) {
          tma_store_2d(&tmap_d, tn * TILE_N + b * kStoreCols, tm * TILE_M + c * MMA_M + rank * BLK_M, block);
          tma_store_commit();
        }
      }
      accum.next_tile();
    }
    if (store_thread) cuda::ptx::cp_async_bulk_wait_group(cuda::ptx::n32_t<0>{});  // stores complete before exit
  }

  tmem_release_pair<kTmemColsPair>(cluster, warp == kFirstMmaWarp, tmem);
}

std::string check(const detail::Problem& p) {
  return require_tma_rows_and_16b_stores(p, " (TMA-store rows must be 16-byte aligned)");
}

void launch(const detail::Problem& p, cudaStream_t stream) {
  const CUtensorMap ta = make_tensor_map_2d(p.A, p.M, p.K, p.lda, BLK_M, BLK_K);
  const CUtensorMap tb = make_tensor_map_2d(p.B, p.N, p.K, p.ldb, B_HALF, BLK_K);
  const CUtensorMap td = make_tensor_map_2d(p.D, p.M, p.N, p.ldd, BLK_M, kStoreCols);
  const int64_t cluster_tiles = ((p.M + TILE_M - 1) / TILE_M) * ((p.N + TILE_N - 1) / TILE_N);
  detail::launch_persistent(kStepId, sota_kernel, {kThreads, kSmemBytes, CLUSTER}, cluster_tiles, stream, ta, tb, td,
                            static_cast<int>(p.M), static_cast<int>(p.N), static_cast<int>(p.K));
}

}  // namespace
}  // namespace ladder::blackwell

extern const ladder::detail::Step step_b10 = {
    ladder::blackwell::kStepId, ladder::detail::Arch::blackwell, "sota",
    "the two consumers of b09 with double-buffered TMEM accumulators (2 consumers x 2 stages x 128 columns = all "
    "512; the cluster tile narrows to 512x128) and a TMA-store epilogue (TMEM -> SW128 SMEM -> cp.async.bulk.tensor, "
    "two staging buffers per epilogue warpgroup), persistent (compiled for sm_100a, not run)",
    "any M >= 1; N % 8 == 0; K % 8 == 0; lda, ldb, ldd % 8 == 0 (tails: zero-filled loads, TMA-clipped "
    "stores; unverified: not run)",
    ladder::blackwell::check, ladder::blackwell::launch};
