// ladder_cluster_probe — do the small-M kernel's cluster patterns hold at every cluster size, 16 CTAs included?
//
// A diagnostic beside the ladder, not part of the library. The small-M kernel (src/hopper/small_m.cuh) launches its
// split-K as clusters of `split` CTAs, non-portable above 8. Under compute-sanitizer --tool synccheck it reports
// "Barrier error detected. Missing wait." at the producer's mbarrier_arrive_expect_tx, and fails its result check,
// whenever the cluster has more than 8 CTAs; split <= 8 is clean, and without the sanitizer split 16 passes every
// check. This probe takes the kernel apart into its cluster-facing pieces, each a kernel of its own, so that a run
// plain and a run under each sanitizer tool say which piece (if any) goes wrong at which size:
//
//   ids    each CTA records cluster.num_blocks(), cluster.block_rank(), blockIdx.x and the PTX special registers
//          (%clusterid, %cluster_ctarank, ...), and reads every rank's SMEM word through map_shared_rank
//          (DSMEM addressing alone, no mbarrier, no TMA)
//   mbar   small_m's ring with plain arrive/wait, no TMA: one producer thread writes a stage of SMEM and arrives on
//          full_bar; four consumer warps wait, sum the stage and arrive on empty_bar (count 4, as small_m)
//   tma    the same ring fed as small_m feeds it: arrive_expect_tx, then two SW128 boxes of 64 rows × 64 fp16
//          (cp.async.bulk.tensor, .shared::cluster destination) onto one full_bar; this CTA's share of the
//          cluster's K range (K-tiles [rank·iters, +iters)); no cluster barrier at all
//   dsmem  tma plus small_m's epilogue: each CTA writes a partial tile over its ring, cluster.sync(), every CTA
//          sums its share of the tile over all ranks' partials through map_shared_rank in rank order (16-B
//          loads), writes the sum, cluster.sync()
//   push   dsmem with small_m's pushed reduction (LADDER_TUNE post=3/4): the consumers meet on a named barrier, the
//          cluster meets relaxed, thread q of each CTA bulk-copies owner q's groups of its partial
//          (cp.async.bulk.shared::cluster to a mapa address, complete_tx on the owner's receive barrier, initialized
//          at the start), and each owner sums its receive slots in rank order
//
// Every CTA of every variant also records its identity (as ids does), and every result is checked on the host:
// the consumers' sum of the 32-bit words they received (order-blind: SW128 permutes 16-B chunks, not words)
// against a CPU sum of the same boxes, the reduced tile against the sum of the expected partials. Integer sums:
// exact, so a wrong bit is a wrong result. One line per (size, variant):
//
//   size=16 variant=tma clusters=16 result=ok | WRONG (details) | not-resident
//
// exit 1 when any is WRONG (or on any error). Clusters above 8 are launched with the kernel's
// cudaFuncAttributeNonPortableClusterSizeAllowed set (as small_m's launcher does), sizes up to 8 without it;
// --nonportable always sets it for every size, which separates "a cluster of more than 8" from "the attribute".
// The ring: --stages deep (4), --iters stages a CTA (32: it wraps 8 times; small_m at split 16 often has no more
// K-tiles a CTA than stages, so its producer never waits on empty_bar: --iters 4 or less is that regime), and
// --release lag frees a stage one wait late and never the last one, as small_m's consumers do (wgmma_wait_group<1>);
// --l2evict 1 loads the W boxes with the evict-first hint (tma_load_2d_hint), as small_m does for large B.
//
//   ladder_cluster_probe --sizes 8,12,16 --variants tma,dsmem [--clusters 16] [--stages 4] [--iters 32]
//                        [--release now|lag] [--l2evict 0|1] [--nonportable auto|always]
#include <cooperative_groups.h>
#include <cuda.h>
#include <cuda/ptx>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "device/cluster.cuh"
#include "device/mbarrier.cuh"
#include "device/named_barrier.cuh"
#include "device/pipeline.hpp"
#include "device/smem.cuh"
#include "device/split_reduce.hpp"
#include "device/tensor_map.hpp"
#include "device/tma.cuh"
#include "harness/harness.hpp"
#include "ladder_version.hpp"

namespace ladder::cluster_probe {
namespace {

namespace cg = cooperative_groups;
using harness::cuda_check;

enum class Variant { ids, mbar, tma, dsmem, push };
constexpr const char* kVariantNames[] = {"ids", "mbar", "tma", "dsmem", "push"};
constexpr int kDefaultSizes[] = {1, 2, 4, 8, 12, 16};

constexpr int kMaxSize = 16;                           // Hopper's largest cluster (non-portable above 8)
constexpr int kMaxStages = 12;                         // 12 TMA stages of 16 KB: the most that fit in 227 KB
constexpr int kMaxIters = 64;
constexpr int kConsumerWarps = 4;                      // small_m's one consumer warpgroup: each warp arrives
constexpr int kConsumerThreads = kConsumerWarps * 32;  // on empty_bar
constexpr int kThreads = kConsumerThreads + 32;        // + the producer warp, last (as small_m)
constexpr int kBox = 64;                               // a TMA box: 64 rows × 64 fp16, the SW128 span
constexpr uint32_t kBoxBytes = kBox * kBox * 2;
constexpr uint32_t kTmaStageBytes = 2 * kBoxBytes;                // a W box and an X box under one expect_tx
constexpr uint32_t kMbarStageBytes = kConsumerThreads * 4;        // one word per consumer thread
constexpr int kPRows = 64, kPCols = 64, kPStride = kPCols + 4;    // the partial tile (uint32), padded as small_m's
constexpr int kIdFields = 10;
constexpr const char* kIdNames[kIdFields] = {"cluster.num_blocks()", "cluster.block_rank()", "blockIdx.x",
                                             "%clusterid.x",         "%cluster_ctarank",     "%cluster_nctarank",
                                             "%nclusterid.x",        "%cluster_ctaid.x",     "%cluster_nctaid.x",
                                             "DSMEM rank mismatch mask"};
static_assert(kPRows * kPStride * 4 <= 2 * kTmaStageBytes, "the partial tile is written over a ring of 2 stages");
constexpr int kGroups = kPCols / 4, kItems = kPRows * kGroups;  // the reduce-scatter's (row, 4 columns) groups
// push: the receive slots after the partial tile (PushSlots: one a sender of ceil(kItems / split) groups), at most
// this many groups over the cluster sizes 1-16 (1036, at 14)
constexpr int max_slot_groups() {
  int most = 0;
  for (int s = 1; s <= kMaxSize; ++s) most = std::max(most, s * PushSlots{kItems, kGroups, s, false}.slot_items());
  return most;
}
static_assert(kPRows * kPStride * 4 + max_slot_groups() * 16 <= 3 * kTmaStageBytes, "push fits a 3-stage ring");
static_assert(kPRows * 2 == kConsumerThreads, "each consumer thread writes half a partial row");

__host__ __device__ constexpr uint32_t stage_bytes(Variant v) {
  return v == Variant::mbar ? kMbarStageBytes : kTmaStageBytes;
}
// [ring | full_bar[S] | empty_bar[S] | warp sums | recv_bar], 1024-B aligned ring (SW128 boxes start on 1024 B).
constexpr size_t smem_bytes(Variant v, int stages) {
  return stages * (stage_bytes(v) + 2 * sizeof(uint64_t)) + (kConsumerWarps + 1) * sizeof(uint64_t) + 1024;
}

// Values both sides compute: a 32-bit hash (lowbias32), the mbar variant's SMEM words, the partial tile's pattern
// and the fold of a CTA's 64-bit sum into each partial element.
__host__ __device__ constexpr uint32_t mix32(uint32_t x) {
  x ^= x >> 16, x *= 0x7feb352du, x ^= x >> 15, x *= 0x846ca68bu, x ^= x >> 16;
  return x;
}
__host__ __device__ constexpr uint32_t mbar_word(uint32_t cta, uint32_t iter, uint32_t j) {
  return mix32((cta << 13 | iter << 7 | j) ^ 0x9e3779b9u);  // j < 128, iter < 64, cta < 1024: distinct
}
__host__ __device__ constexpr uint32_t pattern(uint32_t rank, uint32_t m, uint32_t c) {
  return mix32((rank << 12 | m << 6 | c) ^ 0x85ebca6bu);
}
__host__ __device__ constexpr uint32_t fold(unsigned long long s) {
  return static_cast<uint32_t>(s) ^ static_cast<uint32_t>(s >> 32);
}


// This CTA's view of its cluster, in kIdNames order (one thread).
__device__ void record_ids(uint32_t* ids, uint32_t dsmem_mask) {
  const cg::cluster_group cluster = cg::this_cluster();
  uint32_t* r = ids + static_cast<size_t>(blockIdx.x) * kIdFields;
  r[0] = cluster.num_blocks(), r[1] = cluster.block_rank(), r[2] = blockIdx.x;
  namespace ptx = cuda::ptx;  // the special registers, through CCCL
  r[3] = ptx::get_sreg_clusterid_x(), r[4] = ptx::get_sreg_cluster_ctarank(), r[5] = ptx::get_sreg_cluster_nctarank();
  r[6] = ptx::get_sreg_nclusterid_x(), r[7] = ptx::get_sreg_cluster_ctaid_x(), r[8] = ptx::get_sreg_cluster_nctaid_x();
  r[9] = dsmem_mask;
}

struct Out {
  uint32_t* ids;             // kIdFields per CTA
  unsigned long long* sums;  // per CTA: the 32-bit words its consumers received, summed
  uint32_t* reduced;         // dsmem: per cluster a kPRows × kPCols tile
  int stages;                // ring depth
  int iters;                 // stages each CTA's producer fills (its K-tiles; 0: an empty K range)
  int lag;                   // 1: a consumer warp frees stage i after its wait for stage i + 1, as small_m's
                             // (wgmma_wait_group<1>), and never frees its last; 0: right after reading it
  int l2evict;               // 1: the W box loads with an L2 evict-first hint (tma_load_2d_hint, as small_m's large B)
};

// ids: identities, and each rank's SMEM word read through DSMEM (rank q of this cluster is block blockIdx.x - rank + q
// for a cluster along x).
__global__ void __launch_bounds__(32) ids_kernel(const Out out) {
  __shared__ uint32_t mine;
  const cg::cluster_group cluster = cg::this_cluster();
  if (threadIdx.x == 0) mine = blockIdx.x;
  cluster.sync();  // every CTA's word is written before any is read remotely
  if (threadIdx.x == 0) {
    const uint32_t n = cluster.num_blocks(), rank = cluster.block_rank();
    uint32_t mask = 0;
    for (uint32_t q = 0; q < n && q < kMaxSize; ++q)
      if (*cluster.map_shared_rank(&mine, static_cast<int>(q)) != blockIdx.x - rank + q) mask |= 1u << q;
    record_ids(out.ids, mask);
  }
  cluster.sync();  // no CTA leaves while another may still read its word
}

// mbar, tma, dsmem: small_m's ring (and for dsmem its epilogue) with the MMA replaced by a sum. Warps 0-3 consume,
// warp 4's lane 0 produces. This cluster's tile is blockIdx.x / split (as small_m's token tile); this CTA's K-tiles
// are [rank·iters, +iters) of the cluster's range.
template <Variant V>
__global__ void __launch_bounds__(kThreads) ring_kernel(const __grid_constant__ CUtensorMap tmap_w,
                                                        const __grid_constant__ CUtensorMap tmap_x, const Out out) {
  constexpr uint32_t kStageBytes = stage_bytes(V);
  const int stages = out.stages, iters = out.iters;
  extern __shared__ uint8_t smem_raw[];
  uint8_t* const smem = &align_smem<uint8_t>(smem_raw);
  uint64_t* const full_bar = reinterpret_cast<uint64_t*>(smem + static_cast<size_t>(stages) * kStageBytes);
  uint64_t* const empty_bar = full_bar + stages;
  unsigned long long* const warp_sums = reinterpret_cast<unsigned long long*>(empty_bar + stages);
  uint64_t* const recv_bar = reinterpret_cast<uint64_t*>(warp_sums + kConsumerWarps);  // push
  const cg::cluster_group cluster = cg::this_cluster();
  const int split = static_cast<int>(cluster.num_blocks()), rank = static_cast<int>(cluster.block_rank());
  const int tile = static_cast<int>(blockIdx.x) / split;
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;

  if (threadIdx.x == 0) {  // as small_m: one thread inits, fence.mbarrier_init.release.cluster, __syncthreads
    for (int s = 0; s < stages; ++s) {
      mbarrier_init(&full_bar[s], 1);
      mbarrier_init(&empty_bar[s], kConsumerWarps);
    }
    if (V == Variant::push) mbarrier_init(recv_bar, 1);
    fence_barrier_init();
    record_ids(out.ids, 0);
  }
  __syncthreads();

  if (warp == kConsumerWarps) {
    if (lane == 0) {
      const uint64_t evict_first = out.l2evict ? l2_evict_first_policy() : 0;
      RingState ring{static_cast<uint32_t>(stages)};
      for (int i = 0; i < iters; ++i) {
        mbarrier_wait<true>(&empty_bar[ring.stage], ring.producer_phase(), "empty_bar");  // traps, never hangs
        uint8_t* const stage = smem + ring.stage * kStageBytes;
        if constexpr (V == Variant::mbar) {
          uint32_t* const w = reinterpret_cast<uint32_t*>(stage);
          for (int j = 0; j < kConsumerThreads; ++j) w[j] = mbar_word(blockIdx.x, i, j);
          mbarrier_arrive(&full_bar[ring.stage]);  // release at CTA scope: the waiters see the stores above
        } else {
          const int kt = rank * iters + i;
          mbarrier_arrive_expect_tx(&full_bar[ring.stage], kStageBytes);
          if (out.l2evict) tma_load_2d_hint(stage, &tmap_w, kt * kBox, tile * kBox, &full_bar[ring.stage], evict_first);
          else tma_load_2d(stage, &tmap_w, kt * kBox, tile * kBox, &full_bar[ring.stage]);
          tma_load_2d(stage + kBoxBytes, &tmap_x, kt * kBox, tile * kBox, &full_bar[ring.stage]);
        }
        ring.advance();
      }
    }
  } else {
    RingState ring{static_cast<uint32_t>(stages)};
    uint32_t prev_stage = 0;
    unsigned long long sum = 0;
    for (int i = 0; i < iters; ++i) {
      mbarrier_wait<true>(&full_bar[ring.stage], ring.phase, "full_bar");
      const uint32_t* const w = reinterpret_cast<const uint32_t*>(smem + ring.stage * kStageBytes);
      for (uint32_t j = threadIdx.x; j < kStageBytes / 4; j += kConsumerThreads) sum += w[j];
      __syncwarp();  // the whole warp has read the stage before its lane 0 frees it
      if (!out.lag) {
        if (lane == 0) mbarrier_arrive(&empty_bar[ring.stage]);
      } else {
        if (i > 0 && lane == 0) mbarrier_arrive(&empty_bar[prev_stage]);
        prev_stage = ring.stage;
      }
      ring.advance();
    }
    for (int o = 16; o; o /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, o);
    if (lane == 0) warp_sums[warp] = sum;
    // Every consumer's sum is in, and every consumer is done reading the ring (dsmem overwrites it next).
    named_barrier_sync(1, kConsumerThreads);
    unsigned long long total = 0;
    for (int w = 0; w < kConsumerWarps; ++w) total += warp_sums[w];
    if (threadIdx.x == 0) out.sums[blockIdx.x] = total;
    if constexpr (V == Variant::dsmem || V == Variant::push) {  // the partial tile over the idle ring, as small_m's
      uint32_t* const P = reinterpret_cast<uint32_t*>(smem);
      const int m = static_cast<int>(threadIdx.x) / 2, c0 = static_cast<int>(threadIdx.x) % 2 * (kPCols / 2);
      for (int c = c0; c < c0 + kPCols / 2; ++c) P[m * kPStride + c] = fold(total) + pattern(rank, m, c);
      if (V == Variant::push) cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);  // the bulk copies read P
    }
  }
  if constexpr (V == Variant::push) {  // small_m's push, on its own slot arithmetic (device/split_reduce.hpp)
    const uint32_t* const P = reinterpret_cast<const uint32_t*>(smem);
    const PushSlots slots{kItems, kGroups, split, false};
    uint32_t* const recv = reinterpret_cast<uint32_t*>(smem) + kPRows * kPStride;
    if (warp < kConsumerWarps) named_barrier_sync(1, kConsumerThreads);  // the partial is written and fenced
    cuda::ptx::barrier_cluster_arrive(cuda::ptx::sem_relaxed);  // every ring is idle: receive areas may be written
    cuda::ptx::barrier_cluster_wait();
    if (threadIdx.x == 0) mbarrier_arrive_expect_tx(recv_bar, slots.bytes_to(rank));
    if (static_cast<int>(threadIdx.x) < split) {  // thread q sends owner q its groups, a run of whole groups a row
      const int q = static_cast<int>(threadIdx.x);
      const uint32_t dst = shared_cluster_addr(recv + rank * slots.slot_floats(), static_cast<uint32_t>(q));
      const uint32_t bar = shared_cluster_addr(recv_bar, static_cast<uint32_t>(q));
      for (int it = slots.lo(q), m, g, n; it < slots.hi(q); it += n) {
        slots.run(q, it, m, g, n);
        bulk_copy_to_cluster(dst + 4 * slots.at(q, it), P + m * kPStride + 4 * g, static_cast<uint32_t>(n * 16), bar);
      }
    }
    mbarrier_wait<true>(recv_bar, 0, "recv_bar");  // every copy into this CTA has landed
    cuda::ptx::barrier_cluster_arrive(cuda::ptx::sem_relaxed);  // so every source it read is free
    for (int it = slots.lo(rank) + static_cast<int>(threadIdx.x); it < slots.hi(rank); it += kThreads) {
      uint4 a = make_uint4(0, 0, 0, 0);
      for (int q = 0; q < split; ++q) {
        const uint4 v = *reinterpret_cast<const uint4*>(recv + q * slots.slot_floats() + slots.at(rank, it));
        a.x += v.x, a.y += v.y, a.z += v.z, a.w += v.w;
      }
      const int m = it / kGroups, c = 4 * (it % kGroups);
      *reinterpret_cast<uint4*>(out.reduced + (static_cast<size_t>(tile) * kPRows + m) * kPCols + c) = a;
    }
    cuda::ptx::barrier_cluster_wait();  // no CTA leaves while a copy out of its SMEM may be in flight
  }
  if constexpr (V == Variant::dsmem) {
    cluster.sync();  // every CTA's partial tile is in its SMEM
    // Reduce-scatter as small_m's: this CTA's share of the tile's groups of 4 columns, over every rank in rank order.
    const uint32_t* const P = reinterpret_cast<const uint32_t*>(smem);
    constexpr int groups = kGroups, items = kItems;
    const int lo = rank * items / split, hi = (rank + 1) * items / split;
    for (int it = lo + static_cast<int>(threadIdx.x); it < hi; it += kThreads) {
      const int m = it / groups, c = 4 * (it % groups);
      uint4 a = make_uint4(0, 0, 0, 0);
      for (int q = 0; q < split; ++q) {
        const uint4 v = *reinterpret_cast<const uint4*>(cluster.map_shared_rank(P, q) + m * kPStride + c);
        a.x += v.x, a.y += v.y, a.z += v.z, a.w += v.w;
      }
      *reinterpret_cast<uint4*>(out.reduced + (static_cast<size_t>(tile) * kPRows + m) * kPCols + c) = a;
    }
    cluster.sync();  // no CTA leaves while another may still read its SMEM
  }
}

// ── host side ───────────────────────────────────────────────────────────────────────────────────────────
struct Options {
  std::vector<int> sizes;
  std::vector<Variant> variants;
  int clusters = 16, stages = 4, iters = 32;
  bool lag = false, l2evict = false, nonportable_always = false;
};

std::vector<std::string> split_list(const std::string& list, const std::string& what) {
  std::vector<std::string> items;
  std::stringstream ss(list);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (item.empty()) throw std::invalid_argument(what + ": empty item in '" + list + "'");
    items.push_back(item);
  }
  if (items.empty() || list.back() == ',') throw std::invalid_argument(what + ": empty item in '" + list + "'");
  return items;
}

int parse_int(const std::string& s, const std::string& what) {
  if (s.empty() || s.size() > 6 || s.find_first_not_of("0123456789") != std::string::npos)
    throw std::invalid_argument(what + ": not a non-negative integer: '" + s + "'");
  return std::stoi(s);
}

// Throws std::invalid_argument on anything it does not know; touches no CUDA API (the ctest runs without a GPU).
Options parse(int argc, char** argv, bool& help) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto val = [&]() -> std::string {
      if (i + 1 >= argc) throw std::invalid_argument(a + " needs a value");
      return argv[++i];
    };
    if (a == "--sizes") {
      o.sizes.clear();
      for (const std::string& s : split_list(val(), "--sizes")) {
        const int n = parse_int(s, "--sizes");
        if (n < 1 || n > kMaxSize)
          throw std::invalid_argument("--sizes: cluster size " + s + " out of range (1.." + std::to_string(kMaxSize) +
                                      " CTAs on Hopper)");
        o.sizes.push_back(n);
      }
    } else if (a == "--variants") {
      o.variants.clear();
      for (const std::string& s : split_list(val(), "--variants")) {
        int v = 0;
        while (v < 5 && s != kVariantNames[v]) ++v;
        if (v == 5) throw std::invalid_argument("--variants: unknown variant '" + s + "' (ids, mbar, tma, dsmem, push)");
        o.variants.push_back(static_cast<Variant>(v));
      }
    } else if (a == "--clusters") {
      o.clusters = parse_int(val(), "--clusters");
      if (o.clusters < 1 || o.clusters > 64) throw std::invalid_argument("--clusters must be 1..64");
    } else if (a == "--stages") {
      o.stages = parse_int(val(), "--stages");
      if (o.stages < 2 || o.stages > kMaxStages)
        throw std::invalid_argument("--stages must be 2.." + std::to_string(kMaxStages) +
                                    " (dsmem writes its 17-KB partial tile over the ring)");
    } else if (a == "--iters") {
      o.iters = parse_int(val(), "--iters");
      if (o.iters > kMaxIters) throw std::invalid_argument("--iters must be 0.." + std::to_string(kMaxIters));
    } else if (a == "--release") {
      const std::string v = val();
      if (v != "now" && v != "lag") throw std::invalid_argument("--release: '" + v + "' is not now or lag");
      o.lag = v == "lag";
    } else if (a == "--l2evict") {
      const std::string v = val();
      if (v != "0" && v != "1") throw std::invalid_argument("--l2evict: '" + v + "' is not 0 or 1");
      o.l2evict = v == "1";
    } else if (a == "--nonportable") {
      const std::string v = val();
      if (v != "auto" && v != "always") throw std::invalid_argument("--nonportable: '" + v + "' is not auto or always");
      o.nonportable_always = v == "always";
    } else if (a == "--help" || a == "-h") {
      help = true;
    } else {
      throw std::invalid_argument("unknown option '" + a + "' (see --help)");
    }
  }
  if (o.sizes.empty()) o.sizes.assign(std::begin(kDefaultSizes), std::end(kDefaultSizes));
  if (o.variants.empty()) {  // every variant, push where its ring is deep enough
    o.variants = {Variant::ids, Variant::mbar, Variant::tma, Variant::dsmem};
    if (o.stages >= 3) o.variants.push_back(Variant::push);
  }
  if (o.stages < 3 && std::find(o.variants.begin(), o.variants.end(), Variant::push) != o.variants.end())
    throw std::invalid_argument("--stages must be 3 or more with push (its partial tile and receive slots)");
  return o;
}

std::string hex(unsigned long long v) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%llx", v);
  return b;
}

struct Device {
  Options o;
  int64_t cols = 0;                    // K: the K-tiles of a cluster of 16 (at least one)
  harness::DeviceBuffer<__half> W, X;  // (clusters·64, cols) fp16 each: the tiles' rows × K
  harness::DeviceBuffer<uint32_t> ids, reduced;
  harness::DeviceBuffer<unsigned long long> sums;
  CUtensorMap tw{}, tx{};
  std::vector<unsigned long long> box_sums;  // [tile][K-tile]: the words of the W box plus the X box
  cudaStream_t stream = nullptr;
};

// The sum of the 32-bit words of the 64×64 box at (row0, col0) of a (·, cols) fp16 matrix held as uint16.
unsigned long long box_sum(const std::vector<uint16_t>& m, int64_t cols, int64_t row0, int64_t col0) {
  unsigned long long s = 0;
  for (int64_t r = row0; r < row0 + kBox; ++r)
    for (int64_t c = col0; c < col0 + kBox; c += 2)
      s += static_cast<uint32_t>(m[r * cols + c]) | static_cast<uint32_t>(m[r * cols + c + 1]) << 16;
  return s;
}

// One (size, variant): launch, read back, check. Returns "" (ok), "not-resident", or "WRONG (...)". A kernel that
// faulted leaves the context unusable: that throws after its line is printed.
std::string run_one(Device& d, int size, Variant v, bool& fatal) {
  const int clusters = d.o.clusters, ctas = clusters * size, iters = d.o.iters;
  const void* kernel = v == Variant::ids     ? reinterpret_cast<const void*>(ids_kernel)
                       : v == Variant::mbar  ? reinterpret_cast<const void*>(ring_kernel<Variant::mbar>)
                       : v == Variant::tma   ? reinterpret_cast<const void*>(ring_kernel<Variant::tma>)
                       : v == Variant::dsmem ? reinterpret_cast<const void*>(ring_kernel<Variant::dsmem>)
                                             : reinterpret_cast<const void*>(ring_kernel<Variant::push>);
  const int threads = v == Variant::ids ? 32 : kThreads;
  const size_t smem = v == Variant::ids ? 0 : smem_bytes(v, d.o.stages);
  // Set (or cleared) per launch, so that each line is independent of the order of --sizes.
  cuda_check(cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed,
                                  d.o.nonportable_always || size > 8 ? 1 : 0),
             "cudaFuncSetAttribute(NonPortableClusterSizeAllowed)");

  cudaLaunchAttribute attr{};
  attr.id = cudaLaunchAttributeClusterDimension;
  attr.val.clusterDim.x = static_cast<unsigned>(size), attr.val.clusterDim.y = 1, attr.val.clusterDim.z = 1;
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = dim3(static_cast<unsigned>(ctas)), cfg.blockDim = dim3(static_cast<unsigned>(threads));
  cfg.dynamicSmemBytes = smem, cfg.stream = d.stream, cfg.attrs = &attr, cfg.numAttrs = 1;
  int resident = 0;
  cuda_check(cudaOccupancyMaxActiveClusters(&resident, kernel, &cfg), "cudaOccupancyMaxActiveClusters");
  if (resident <= 0) return "not-resident";

  // Poison: a CTA that writes nothing shows up.
  cuda_check(cudaMemsetAsync(d.ids.get(), 0xff, d.ids.size() * sizeof(uint32_t), d.stream), "memset");
  cuda_check(cudaMemsetAsync(d.sums.get(), 0xff, d.sums.size() * sizeof(unsigned long long), d.stream), "memset");
  cuda_check(cudaMemsetAsync(d.reduced.get(), 0xff, d.reduced.size() * sizeof(uint32_t), d.stream), "memset");
  const Out out{d.ids.get(), d.sums.get(), d.reduced.get(), d.o.stages, iters, d.o.lag ? 1 : 0, d.o.l2evict ? 1 : 0};
  cudaError_t e = cudaSuccess;
  switch (v) {
    case Variant::ids: e = cudaLaunchKernelEx(&cfg, ids_kernel, out); break;
    case Variant::mbar: e = cudaLaunchKernelEx(&cfg, ring_kernel<Variant::mbar>, d.tw, d.tx, out); break;
    case Variant::tma: e = cudaLaunchKernelEx(&cfg, ring_kernel<Variant::tma>, d.tw, d.tx, out); break;
    case Variant::dsmem: e = cudaLaunchKernelEx(&cfg, ring_kernel<Variant::dsmem>, d.tw, d.tx, out); break;
    case Variant::push: e = cudaLaunchKernelEx(&cfg, ring_kernel<Variant::push>, d.tw, d.tx, out); break;
  }
  if (e != cudaSuccess) {
    cudaGetLastError();  // a refused launch is not sticky: the other lines still run
    return std::string("WRONG (launch refused: ") + cudaGetErrorString(e) + ")";
  }
  if ((e = cudaStreamSynchronize(d.stream)) != cudaSuccess) {
    fatal = true;
    return std::string("WRONG (kernel failed: ") + cudaGetErrorString(e) + ")";
  }
  std::vector<uint32_t> ids(static_cast<size_t>(ctas) * kIdFields), reduced(d.reduced.size());
  std::vector<unsigned long long> sums(static_cast<size_t>(ctas));
  cuda_check(cudaMemcpy(ids.data(), d.ids.get(), ids.size() * sizeof(uint32_t), cudaMemcpyDeviceToHost), "copy");
  cuda_check(cudaMemcpy(sums.data(), d.sums.get(), sums.size() * sizeof(unsigned long long), cudaMemcpyDeviceToHost),
             "copy");
  cuda_check(cudaMemcpy(reduced.data(), d.reduced.get(), reduced.size() * sizeof(uint32_t), cudaMemcpyDeviceToHost),
             "copy");

  std::vector<std::string> wrong;
  // Identities (every variant records them): a cluster along x of `size` CTAs, `clusters` of them.
  {
    int bad = 0;
    std::string first;
    for (int b = 0; b < ctas; ++b) {
      const uint32_t rank = static_cast<uint32_t>(b % size);
      const uint32_t want[kIdFields] = {static_cast<uint32_t>(size), rank, static_cast<uint32_t>(b),
                                        static_cast<uint32_t>(b / size), rank, static_cast<uint32_t>(size),
                                        static_cast<uint32_t>(clusters), rank, static_cast<uint32_t>(size), 0};
      for (int f = 0; f < kIdFields; ++f)
        if (ids[static_cast<size_t>(b) * kIdFields + f] != want[f]) {
          if (bad == 0)
            first = "cta " + std::to_string(b) + ": " + kIdNames[f] + " " +
                    hex(ids[static_cast<size_t>(b) * kIdFields + f]) + ", want " + hex(want[f]);
          ++bad;
          break;
        }
    }
    if (bad)
      wrong.push_back("ids: " + std::to_string(bad) + " of " + std::to_string(ctas) + " CTAs wrong, first " + first);
  }
  if (v != Variant::ids) {
    std::vector<unsigned long long> want(static_cast<size_t>(ctas), 0);
    for (int b = 0; b < ctas; ++b) {
      const int tile = b / size, rank = b % size;
      for (int i = 0; i < iters; ++i) {
        if (v == Variant::mbar)
          for (int j = 0; j < kConsumerThreads; ++j) want[b] += mbar_word(b, i, j);
        else
          want[b] += d.box_sums[static_cast<size_t>(tile) * (d.cols / kBox) + rank * iters + i];
      }
    }
    int bad = 0;
    std::string first;
    for (int b = 0; b < ctas; ++b)
      if (sums[b] != want[b]) {
        if (bad++ == 0)
          first = "cta " + std::to_string(b) + " (cluster " + std::to_string(b / size) + " rank " +
                  std::to_string(b % size) + "): " + hex(sums[b]) + ", want " + hex(want[b]);
      }
    if (bad)
      wrong.push_back("sums: " + std::to_string(bad) + " of " + std::to_string(ctas) + " CTAs wrong, first " + first);
    if (v == Variant::dsmem || v == Variant::push) {  // from the expected sums, so that a wrong mainloop does not hide a right reduction
      int bad_el = 0;
      std::string first_el;
      for (int t = 0; t < clusters; ++t)
        for (int m = 0; m < kPRows; ++m)
          for (int c = 0; c < kPCols; ++c) {
            uint32_t w = 0;
            for (int q = 0; q < size; ++q) w += fold(want[t * size + q]) + pattern(q, m, c);
            const uint32_t g = reduced[(static_cast<size_t>(t) * kPRows + m) * kPCols + c];
            if (g != w && bad_el++ == 0)
              first_el = "cluster " + std::to_string(t) + " row " + std::to_string(m) + " col " + std::to_string(c) +
                         ": " + hex(g) + ", want " + hex(w);
          }
      if (bad_el)
        wrong.push_back("reduced: " + std::to_string(bad_el) + " of " + std::to_string(clusters * kPRows * kPCols) +
                        " elements wrong, first " + first_el);
    }
  }
  if (wrong.empty()) return "";
  std::string s = "WRONG (";
  for (size_t i = 0; i < wrong.size(); ++i) s += (i ? "; " : "") + wrong[i];
  return s + ")";
}

int run(int argc, char** argv) {
  bool help = false;
  const Options o = parse(argc, argv, help);  // before any CUDA call: errors in the request first
  if (help) {
    std::puts("ladder_cluster_probe [--sizes 1,2,4,8,12,16] [--variants ids,mbar,tma,dsmem,push] [--clusters 16]\n"
              "                     [--stages 4] [--iters 32] [--release now|lag] [--l2evict 0|1]\n"
              "                     [--nonportable auto|always]\n"
              "one line per (size, variant): size=S variant=V clusters=C result=ok|WRONG (details)|not-resident;\n"
              "exit 1 when any is WRONG (see the head of tools/cluster_probe.cu)");
    return 0;
  }
  const detail::DeviceInfo dev = detail::current_device();
  if (!dev.present) throw std::runtime_error("no CUDA device: " + dev.error);
  if (dev.cc != 90) throw std::runtime_error("built for sm_90a only; this is " + detail::describe(dev));

  Device d;
  d.o = o;
  d.cols = int64_t{kMaxSize} * std::max(o.iters, 1) * kBox;
  const int64_t rows = int64_t{o.clusters} * kBox, cols = d.cols, elems = rows * cols;
  cuda_check(cudaStreamCreate(&d.stream), "stream");
  d.W = harness::DeviceBuffer<__half>(static_cast<size_t>(elems));
  d.X = harness::DeviceBuffer<__half>(static_cast<size_t>(elems));
  d.ids = harness::DeviceBuffer<uint32_t>(static_cast<size_t>(o.clusters) * kMaxSize * kIdFields);
  d.sums = harness::DeviceBuffer<unsigned long long>(static_cast<size_t>(o.clusters) * kMaxSize);
  d.reduced = harness::DeviceBuffer<uint32_t>(static_cast<size_t>(o.clusters) * kPRows * kPCols);
  harness::fill_random(d.W.get(), static_cast<size_t>(elems), 11, d.stream);
  harness::fill_random(d.X.get(), static_cast<size_t>(elems), 12, d.stream);
  d.tw = make_tensor_map_2d(d.W.get(), rows, cols, cols, kBox, kBox, CU_TENSOR_MAP_SWIZZLE_128B);
  d.tx = make_tensor_map_2d(d.X.get(), rows, cols, cols, kBox, kBox, CU_TENSOR_MAP_SWIZZLE_128B);
  {  // the CPU sums of every box a CTA may load
    std::vector<uint16_t> w(static_cast<size_t>(elems)), x(static_cast<size_t>(elems));
    cuda_check(cudaStreamSynchronize(d.stream), "fill");
    cuda_check(cudaMemcpy(w.data(), d.W.get(), w.size() * 2, cudaMemcpyDeviceToHost), "copy W");
    cuda_check(cudaMemcpy(x.data(), d.X.get(), x.size() * 2, cudaMemcpyDeviceToHost), "copy X");
    const int64_t ktiles = cols / kBox;
    d.box_sums.resize(static_cast<size_t>(o.clusters * ktiles));
    for (int t = 0; t < o.clusters; ++t)
      for (int64_t k = 0; k < ktiles; ++k)
        d.box_sums[t * ktiles + k] =
            box_sum(w, cols, int64_t{t} * kBox, k * kBox) + box_sum(x, cols, int64_t{t} * kBox, k * kBox);
  }
  for (Variant v : {Variant::mbar, Variant::tma, Variant::dsmem, Variant::push}) {
    const void* k = v == Variant::mbar    ? reinterpret_cast<const void*>(ring_kernel<Variant::mbar>)
                    : v == Variant::tma   ? reinterpret_cast<const void*>(ring_kernel<Variant::tma>)
                    : v == Variant::dsmem ? reinterpret_cast<const void*>(ring_kernel<Variant::dsmem>)
                                          : reinterpret_cast<const void*>(ring_kernel<Variant::push>);
    cuda_check(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    static_cast<int>(smem_bytes(v, o.stages))),
               "cudaFuncSetAttribute(MaxDynamicSharedMemorySize)");
  }
  std::printf("ladder_cluster_probe %s on %s: %d clusters a launch along x; ring of %d stages, %d filled a CTA, "
              "release %s, W loads %s; %d threads (4 consumer warps + producer); non-portable attribute %s\n",
              LADDER_GIT_COMMIT, detail::describe(dev).c_str(), o.clusters, o.stages, o.iters,
              o.lag ? "lag (as small_m)" : "now", o.l2evict ? "evict-first" : "unhinted", kThreads,
              o.nonportable_always ? "set for every size" : "set for sizes > 8");
  std::fflush(stdout);

  int wrong = 0;
  for (const int size : o.sizes)
    for (const Variant v : o.variants) {
      bool fatal = false;
      const std::string r = run_one(d, size, v, fatal);
      std::printf("size=%d variant=%s clusters=%d result=%s\n", size, kVariantNames[static_cast<int>(v)], o.clusters,
                  r.empty() ? "ok" : r.c_str());
      std::fflush(stdout);
      if (r.rfind("WRONG", 0) == 0) ++wrong;
      if (fatal) throw std::runtime_error("a kernel faulted; the CUDA context is lost, the remaining lines cannot run");
    }
  cudaStreamDestroy(d.stream);
  return wrong ? 1 : 0;
}

}  // namespace
}  // namespace ladder::cluster_probe

int main(int argc, char** argv) {
  try {
    return ladder::cluster_probe::run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ladder_cluster_probe: %s\n", e.what());
    return 1;
  }
}
