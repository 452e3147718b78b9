// Blackwell ladder · step 10 — sota. Compiled for sm_100a, not run (we have no Blackwell GPU).
// Extends b08 (the CTA pair, 256×256 per cluster, persistent) by changing the last hop and the accumulator:
//   - two TMEM accumulator stages (2 × 256 columns = all 512): the MMA warp computes tile t+1 into one stage
//     while the epilogue drains tile t from the other; tmem_full / tmem_empty become per-stage rings with
//     an AccumulatorRing<2> on each side (the "empty" side again starts at parity 1);
//   - TMA-store epilogue: TMEM → registers → SW128 SMEM block (128 × 64) → cp.async.bulk.tensor store, two
//     staging buffers (bulk-group wait_group.read 1 before reuse); TMEM is released after the tile's last
//     tcgen05.ld, before its stores finish; the D tensor map clips M and N tails.
// Gains: the writeback leaves the critical path — the tensor core no longer waits for any epilogue (gau-nernst
// v6: +9 % from 2× accumulators; Modular: double-buffered write-out +64 TFLOP/s), and stores are coalesced
// 16 KB boxes instead of one 64-B row segment per thread.
#include <cooperative_groups.h>
#include <cuda/ptx>

#include <algorithm>

#include "blackwell/epilogue.cuh"
#include "blackwell/tile.cuh"
#include "device/elect.cuh"
#include "device/mbarrier.cuh"
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

inline constexpr int CLUSTER = 2;
inline constexpr int TILE_M = CLUSTER * BLK_M;             // 256: the cluster tile
inline constexpr int TILE_N = 256;
inline constexpr int B_HALF = TILE_N / CLUSTER;
inline constexpr int STAGES = 5;
inline constexpr int ACC_STAGES = 2;                       // double-buffered TMEM accumulators
inline constexpr int GROUP_M = 8;
inline constexpr uint32_t kStageBytes = (BLK_M + B_HALF) * BLK_K * sizeof(__half);
inline constexpr uint32_t kAccCols = TILE_N;
inline constexpr uint32_t kTmemColsPair = ACC_STAGES * kAccCols;  // 512
inline constexpr uint32_t kIdescPair = sm100::instr_descriptor_f16_f32(TILE_M, TILE_N);
inline constexpr int kEpilogueWarps = 4, kTmaWarp = 4, kMmaWarp = 5;
inline constexpr int kEpilogueThreads = kEpilogueWarps * 32;
inline constexpr int kThreads = (kEpilogueWarps + 2) * 32;
inline constexpr int kEpilogueBarrier = 1;                 // named barrier of the epilogue warpgroup
inline constexpr uint16_t kPairMask = 0b11;
static_assert(sm100::valid_tmem_columns(kTmemColsPair));

struct SharedStorage {
  alignas(1024) __half A[STAGES][BLK_M * BLK_K];
  alignas(1024) __half B[STAGES][B_HALF * BLK_K];
  alignas(1024) __half staging[2][BLK_M * kStoreCols];  // 2 × (BLK_M, 64): the TMA-store double buffer
  uint64_t full_bar[STAGES];
  uint64_t empty_bar[STAGES];
  uint64_t tmem_full[ACC_STAGES];   // MMA → epilogue, per accumulator stage (both CTAs)
  uint64_t tmem_empty[ACC_STAGES];  // epilogue (both CTAs) → MMA, per accumulator stage (leader only)
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
      mbarrier_init(&s.empty_bar[st], 1);
    }
    for (int a = 0; a < ACC_STAGES; ++a) {
      mbarrier_init(&s.tmem_full[a], 1);
      mbarrier_init(&s.tmem_empty[a], CLUSTER * kEpilogueWarps);
    }
    fence_barrier_init();
  }
  cluster.sync();
  if (warp == kMmaWarp) tmem_allocate<kTmemColsPair, 2>(&s.tmem_slot);
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
          sm100::tma_load_2d_2sm(s.A[load.stage], &tmap_a, kt * BLK_K, tm * TILE_M + rank * BLK_M, full);
          sm100::tma_load_2d_2sm(s.B[load.stage], &tmap_b, kt * BLK_K, tn * TILE_N + rank * B_HALF, full);
          load.advance();
        }
      }
    }
  } else if (warp == kMmaWarp) {
    if (leader && elect_one_sync()) {
      PipelineState<STAGES> read;
      AccumulatorRing<ACC_STAGES> accum;  // which TMEM accumulator, and its phase
      for (int tile = cluster_id; tile < sched.num_tiles(); tile += clusters) {
        mbarrier_wait(&s.tmem_empty[accum.stage()], accum.mma_parity(), "tmem_empty");
        cuda::ptx::tcgen05_fence_after_thread_sync();
        const uint32_t acc = tmem + accum.stage() * kAccCols;
        for (int i = 0; i < k_tiles; ++i) {
          mbarrier_wait(&s.full_bar[read.stage], read.phase, "full_bar");
          cuda::ptx::tcgen05_fence_after_thread_sync();
          mma_k_tile<2>(acc, s.A[read.stage], s.B[read.stage], /*accumulate=*/i != 0, kIdescPair);
          cuda::ptx::tcgen05_commit_multicast(cuda::ptx::cta_group_2, &s.empty_bar[read.stage], kPairMask);
          read.advance();
        }
        cuda::ptx::tcgen05_commit_multicast(cuda::ptx::cta_group_2, &s.tmem_full[accum.stage()], kPairMask);
        accum.next_tile();
      }
    }
  } else {  // warps 0–3: TMEM → SMEM → TMA store, one 64-column block at a time
    const bool store_thread = threadIdx.x == 0;
    AccumulatorRing<ACC_STAGES> accum;
    uint32_t blocks = 0;  // staging buffer = blocks % 2
    for (int tile = cluster_id; tile < sched.num_tiles(); tile += clusters) {
      int tm, tn;
      sched.tile(tile, tm, tn);
      mbarrier_wait(&s.tmem_full[accum.stage()], accum.epilogue_parity(), "tmem_full");
      cuda::ptx::tcgen05_fence_after_thread_sync();
      const uint32_t acc = tmem + accum.stage() * kAccCols;
      for (int b = 0; b < TILE_N / kStoreCols; ++b, ++blocks) {
        __half* block = s.staging[blocks % 2];
        if (store_thread) tma_store_wait_read<1>();  // the store issued from this buffer two blocks ago has read it
        named_barrier_sync(kEpilogueBarrier, kEpilogueThreads);
        tmem_block_to_smem(acc, b * kStoreCols, block);
        if (b == TILE_N / kStoreCols - 1) {  // the tile's last tcgen05.ld is done: release the accumulator
          cuda::ptx::tcgen05_fence_before_thread_sync();
          __syncwarp();
          if (threadIdx.x % 32 == 0) mbarrier_arrive_cluster(&s.tmem_empty[accum.stage()], /*cta=*/0);
        }
        cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);  // st.shared (generic) → TMA store (async proxy)
        named_barrier_sync(kEpilogueBarrier, kEpilogueThreads);
        if (store_thread) {
          tma_store_2d(&tmap_d, tn * TILE_N + b * kStoreCols, tm * TILE_M + rank * BLK_M, block);
          tma_store_commit();
        }
      }
      accum.next_tile();
    }
    if (store_thread) cuda::ptx::cp_async_bulk_wait_group(cuda::ptx::n32_t<0>{});  // stores complete before exit
  }

  tmem_release_pair<kTmemColsPair>(cluster, warp == kMmaWarp, tmem);
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
    "the CTA pair of b08 with double-buffered TMEM accumulators (2 x 256 columns) and a TMA-store epilogue "
    "(TMEM -> SW128 SMEM -> cp.async.bulk.tensor, two staging buffers), persistent (compiled for sm_100a, not run)",
    "any M >= 1; N % 8 == 0; K % 8 == 0; lda, ldb, ldd % 8 == 0 (tails: zero-filled loads, TMA-clipped "
    "stores; unverified: not run)",
    ladder::blackwell::check, ladder::blackwell::launch};
