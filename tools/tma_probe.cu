// ladder_tma_probe — how fast can TMA stream a weight matrix into SMEM, with no tensor core in the way?
//
// A diagnostic beside the ladder, not part of the library. The small-M kernel at 64–128 tokens is a stream of
// the weights (2·N·K bytes), yet with its MMAs removed (the tenth session's probe=1) it still took 41.4 µs at
// 64×14336×4096 against 42.5 µs with them (ncu, one first launch each). By bench median the kernel takes ~39.4 µs
// and cuBLAS's whole GEMM ~33 µs on the same grid (112 CTAs of 128 weight rows). So the question is the producer's
// access pattern, not the consumers. This kernel streams exactly what the small-M producer streams — per CTA a
// slab of R weight rows × its K range, stage by stage through a ring of mbarriers, plus (optionally) the token
// operand's box from L2 — and lets each of these be varied at run time:
//
//   R     weight rows per CTA (grid: N/R slabs × split)         BR, BC  one TMA box: BR rows × BC columns
//   SC    columns per stage (SC/BC boxes side by side in K)    XR      token rows per stage (0: none)
//   S     ring depth                                           burst   stages freed before the producer issues
//   lanes lanes of the producer warp that issue boxes          order   0: boxes row-block outer, 1: K outer
//   delay consumer cycles per stage (stands in for the MMAs)   split   CTAs sharing one slab's K range
//   linear 1: the slab read as contiguous memory (a [N·K/64, 64] view, boxes of BR·BC/64 rows): the locality
//          ceiling of the same bytes       promo  L2 promotion (0/64/128/256)   evict  L2 evict-first hint
//   cluster 1: the split's CTAs launch as one cluster (as the small-M kernel's split-K; no DSMEM is used)
//
// Every configuration is first checked: the consumer XORs every weight word it received and the per-slab XOR
// must equal a plain kernel's over the same rows. XOR is blind to order only: it catches a box missed, misplaced or
// read twice (a duplicate cancels itself and shows as a missing one), not boxes permuted within a slab. A configuration that fails, or whose clusters cannot be
// resident, is reported (CSV status, exit 1) and not timed. Then the others are timed interleaved with the read floor of the same bytes (harness::time_interleaved over
// rotated copies of the matrix, > 2.5× L2), medians. One CSV row per configuration.
//
//   ladder_tma_probe --n 14336 --k 4096 --configs "R=128,XR=64,S=8;R=128,XR=0,S=8" --out probe.csv
#include <cuda.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "device/mbarrier.cuh"
#include "device/smem.cuh"
#include "device/tensor_map.hpp"
#include "device/tma.cuh"
#include "harness/harness.hpp"
#include "ladder_version.hpp"

namespace ladder::probe {
namespace {

using harness::cuda_check;

// One configuration (the settings above), passed to the kernel by value.
struct Knobs {
  int R = 128, BR = 64, BC = 64, SC = 64, XR = 64, S = 8, burst = 1, lanes = 1, order = 0, delay = 0, split = 1,
      linear = 0, promo = 128, evict = 0, cluster = 0;
};
struct Probe : Knobs {
  std::string text;  // as given
};

struct KernelArgs {
  Knobs p;
  int K;
  int touch;                 // XOR every received word into xors[slab]
  unsigned int* xors;        // one per slab
  uint32_t w_stage_bytes, x_stage_bytes;
};

__device__ __forceinline__ void spin(int cycles) {
  const long long t0 = clock64();
  while (clock64() - t0 < cycles) {
  }
}

// Warp 0 produces, warp 1 consumes. SMEM: S × [W stage | X stage], then full_bar[S], empty_bar[S].
__global__ void __launch_bounds__(64) tma_probe_kernel(const __grid_constant__ CUtensorMap tmap_w,
                                                       const __grid_constant__ CUtensorMap tmap_x,
                                                       const KernelArgs a) {
  extern __shared__ uint8_t smem_raw[];
  uint8_t* smem = &align_smem<uint8_t>(smem_raw);
  const Knobs& p = a.p;
  const uint32_t stage_bytes = a.w_stage_bytes + a.x_stage_bytes;
  uint64_t* const full_bar = reinterpret_cast<uint64_t*>(smem + static_cast<size_t>(p.S) * stage_bytes);
  uint64_t* const empty_bar = full_bar + p.S;
  const int slab = static_cast<int>(blockIdx.x), part = static_cast<int>(blockIdx.y);
  const int k_stages = a.K / p.SC;
  const int kb = part * k_stages / p.split, ke = (part + 1) * k_stages / p.split;
  const int lane = static_cast<int>(threadIdx.x % 32), warp = static_cast<int>(threadIdx.x / 32);
  if (threadIdx.x == 0) {
    for (int s = 0; s < p.S; ++s) {
      mbarrier_init(&full_bar[s], 1);
      mbarrier_init(&empty_bar[s], 1);
    }
    fence_barrier_init();
  }
  __syncthreads();

  if (warp == 0) {
    const uint64_t policy = p.evict ? l2_evict_first_policy() : 0;
    const int w_boxes = (p.R / p.BR) * (p.SC / p.BC), x_boxes = p.XR ? p.SC / p.BC : 0;
    const uint32_t box_bytes = static_cast<uint32_t>(p.BR) * p.BC * 2;
    // The box index is per lane, which TMA's warp-uniform operands serialize; a one-lane walk by a uniform index ran no
    // faster here (118.8 against 111.9 µs at 16 CTAs, N 1024, K 16384: docs/notes.md, thirteenth session), so this
    // probe's per-CTA rates are its own, not the GEMMs'.
    auto issue = [&](int kt, int st) {  // this lane's boxes of stage kt into ring slot st
      uint8_t* w = smem + static_cast<size_t>(st) * stage_bytes;
      if (lane >= p.lanes) return;
      for (int b = lane; b < w_boxes + x_boxes; b += p.lanes) {
        if (b >= w_boxes) {  // the token operand: XR rows × BC columns, from L2 after the first CTA reads it
          const int j = b - w_boxes;
          tma_load_2d(w + a.w_stage_bytes + static_cast<size_t>(j) * p.XR * p.BC * 2, &tmap_x, kt * p.SC + j * p.BC,
                      0, &full_bar[st]);
          continue;
        }
        int col, row;
        if (p.linear) {  // the stage is R·SC contiguous elements of the slab, in boxes of BR·BC/64 rows of 64
          const int rows_per_box = p.BR * p.BC / 64;
          col = 0;
          row = (slab * p.R * (a.K / 64)) + kt * (p.R * p.SC / 64) + b * rows_per_box;
        } else {
          const int jb = p.SC / p.BC, i = p.order ? b % (p.R / p.BR) : b / jb, j = p.order ? b / (p.R / p.BR) : b % jb;
          col = kt * p.SC + j * p.BC;
          row = slab * p.R + i * p.BR;
        }
        void* dst = w + static_cast<size_t>(b) * box_bytes;
        if (p.evict) tma_load_2d_hint(dst, &tmap_w, col, row, &full_bar[st], policy);
        else tma_load_2d(dst, &tmap_w, col, row, &full_bar[st]);
      }
    };
    int st = 0;
    uint32_t phase = 0;  // the ring's wrap parity at slot st
    for (int kt = kb; kt < ke;) {
      const int n = min(p.burst, ke - kt);
      // Wait until the next n slots are free (the first pass through the ring finds them free).
      for (int j = 0, s = st, ph = phase; j < n; ++j) {
        mbarrier_wait<true>(&empty_bar[s], ph ^ 1, "empty_bar");  // traps rather than hangs
        if (++s == p.S) s = 0, ph ^= 1;
      }
      for (int j = 0; j < n; ++j) {
        if (lane == 0) mbarrier_arrive_expect_tx(&full_bar[st], stage_bytes);
        __syncwarp();
        issue(kt + j, st);
        if (++st == p.S) st = 0, phase ^= 1;
      }
      kt += n;
    }
  } else {
    unsigned int x = 0;
    int st = 0;
    uint32_t phase = 0;
    for (int kt = kb; kt < ke; ++kt) {
      mbarrier_wait<true>(&full_bar[st], phase, "full_bar");
      if (a.touch) {
        const unsigned int* w = reinterpret_cast<const unsigned int*>(smem + static_cast<size_t>(st) * stage_bytes);
        for (uint32_t i = lane; i < a.w_stage_bytes / 4; i += 32) x ^= w[i];
      }
      if (p.delay) spin(p.delay);
      __syncwarp();
      if (lane == 0) mbarrier_arrive(&empty_bar[st]);
      if (++st == p.S) st = 0, phase ^= 1;
    }
    if (a.touch) {
      for (int o = 16; o; o /= 2) x ^= __shfl_xor_sync(0xffffffffu, x, o);
      if (lane == 0) atomicXor(&a.xors[slab], x);
    }
  }
}

// The reference: the XOR of every 32-bit word of each slab of R rows (one block per slab).
__global__ void slab_xor_kernel(const unsigned int* w, int64_t words_per_slab, unsigned int* out) {
  unsigned int x = 0;
  const unsigned int* s = w + blockIdx.x * words_per_slab;
  for (int64_t i = threadIdx.x; i < words_per_slab; i += blockDim.x) x ^= s[i];
  for (int o = 16; o; o /= 2) x ^= __shfl_xor_sync(0xffffffffu, x, o);
  __shared__ unsigned int part[32];
  if (threadIdx.x % 32 == 0) part[threadIdx.x / 32] = x;
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int i = 1; i < static_cast<int>(blockDim.x / 32); ++i) x ^= part[i];
    out[blockIdx.x] = x;
  }
}

Probe parse(const std::string& text) {
  Probe p;
  p.text = text;
  std::map<std::string, int*> keys = {{"R", &p.R},         {"BR", &p.BR},         {"BC", &p.BC},       {"SC", &p.SC},
                                      {"XR", &p.XR},       {"S", &p.S},           {"burst", &p.burst}, {"lanes", &p.lanes},
                                      {"order", &p.order}, {"delay", &p.delay},   {"split", &p.split}, {"linear", &p.linear},
                                      {"promo", &p.promo}, {"evict", &p.evict},
                                      {"cluster", &p.cluster}};
  std::stringstream ss(text);
  std::string kv;
  while (std::getline(ss, kv, ',')) {
    if (kv.empty()) continue;
    const auto eq = kv.find('=');
    const auto it = eq == std::string::npos ? keys.end() : keys.find(kv.substr(0, eq));
    if (it == keys.end()) throw std::invalid_argument("unknown probe setting '" + kv + "' in '" + text + "'");
    size_t used = 0;
    *it->second = std::stoi(kv.substr(eq + 1), &used);
    if (used != kv.size() - eq - 1) throw std::invalid_argument("not an integer: '" + kv + "'");
  }
  return p;
}

// Throws std::invalid_argument when the configuration cannot stream an N×K matrix as asked (smem_limit 0: the
// ring's size is not checked yet).
void validate(const Probe& p, int64_t N, int64_t K, int tokens, size_t smem_limit) {
  auto need = [&](bool ok, const std::string& why) {
    if (!ok) throw std::invalid_argument("probe '" + p.text + "': " + why);
  };
  need(p.R > 0 && N % p.R == 0, "R must divide N");
  need(p.BC == 32 || p.BC == 64, "BC must be 32 or 64 (the SW128 span is 64 fp16)");
  need(p.BR > 0 && p.BR <= 256 && p.R % p.BR == 0, "BR must divide R and be at most 256 (a TMA box)");
  need(p.SC > 0 && p.SC % p.BC == 0 && K % p.SC == 0, "SC must be a multiple of BC and divide K");
  need(p.XR >= 0 && p.XR <= 256 && p.XR <= tokens, "XR must be 0..256 and at most --tokens");
  for (const int flag : {p.order, p.linear, p.evict, p.cluster})
    need(flag == 0 || flag == 1, "order, linear, evict and cluster are 0 or 1");
  need(p.delay >= 0, "delay is a cycle count");
  need(p.S >= 1 && p.burst >= 1 && p.burst <= p.S, "need 1 <= burst <= S");
  need(p.lanes >= 1 && p.lanes <= 32, "lanes must be 1..32");
  need(p.split >= 1 && p.split <= K / p.SC, "split must be 1..K/SC");
  need(!p.cluster || p.split <= 16, "cluster: at most 16 CTAs a cluster (split <= 16)");
  need(p.promo == 0 || p.promo == 64 || p.promo == 128 || p.promo == 256, "promo must be 0, 64, 128 or 256");
  need(p.BR * p.BC * 2 % 1024 == 0, "a box must be a multiple of 1024 B (swizzled boxes start 1024-B aligned)");
  need(p.XR * p.BC * 2 % 1024 == 0, "XR·BC·2 must be a multiple of 1024 B (XR = 0, 8, 16, ... for BC = 64)");
  need(!p.linear || p.BR * p.BC / 64 <= 256, "linear: a box is BR·BC/64 rows of 64, at most 256");
  need(!p.linear || (p.R * p.SC) % (p.BR * p.BC) == 0, "linear: boxes must tile a stage");
  const size_t stage = static_cast<size_t>(p.R) * p.SC * 2 + static_cast<size_t>(p.XR) * p.SC * 2;
  need(smem_limit == 0 || p.S * (stage + 16) + 1024 <= smem_limit, "the ring does not fit in SMEM (" +
                                                     std::to_string(p.S * (stage + 16) + 1024) + " B)");
}

int run(int argc, char** argv) {
  int64_t N = 14336, K = 4096;
  int tokens = 128;
  std::string configs = "R=128,XR=64,S=8", out_path;
  double target_ms = 300;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto val = [&]() -> std::string {
      if (i + 1 >= argc) throw std::invalid_argument(a + " needs a value");
      return argv[++i];
    };
    if (a == "--n") N = std::stoll(val());
    else if (a == "--k") K = std::stoll(val());
    else if (a == "--tokens") tokens = std::stoi(val());
    else if (a == "--configs") configs = val();
    else if (a == "--out") out_path = val();
    else if (a == "--target-ms") target_ms = std::stod(val());
    else if (a == "--help" || a == "-h") {
      std::puts("ladder_tma_probe --n N --k K [--tokens T] --configs \"k=v,...;k=v,...\" [--out file.csv]\n"
                "settings (defaults): R=128 BR=64 BC=64 SC=64 XR=64 S=8 burst=1 lanes=1 order=0 delay=0 split=1\n"
                "                     linear=0 promo=128 evict=0 cluster=0 (see the head of tools/tma_probe.cu)");
      return 0;
    } else {
      throw std::invalid_argument("unknown argument " + a);
    }
  }
  if (N <= 0 || K <= 0 || K % 64 || tokens <= 0 || K > (int64_t{1} << 30) || N * K / 64 > (int64_t{1} << 31) - 1)
    throw std::invalid_argument("need N > 0, 0 < K <= 2^30 with K % 64 == 0, N·K/64 < 2^31 (32-bit TMA rows)");

  std::vector<Probe> probes;
  {
    std::stringstream ss(configs);
    std::string c;
    while (std::getline(ss, c, ';'))
      if (!c.empty()) probes.push_back(parse(c));
  }
  for (const Probe& p : probes) validate(p, N, K, tokens, 0);  // before looking for a GPU: errors in the request first
  const detail::DeviceInfo dev = detail::current_device();
  if (!dev.present) throw std::runtime_error("no CUDA device: " + dev.error);
  int smem_limit = 0;
  cuda_check(cudaDeviceGetAttribute(&smem_limit, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev.ordinal), "attr");
  for (const Probe& p : probes) validate(p, N, K, tokens, static_cast<size_t>(smem_limit));
  cuda_check(cudaFuncSetAttribute(tma_probe_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_limit), "smem");

  cudaStream_t s = nullptr;
  cuda_check(cudaStreamCreate(&s), "stream");
  const size_t w_elems = static_cast<size_t>(N) * K, x_elems = static_cast<size_t>(tokens) * K;
  // Enough copies that one rotation reads >= 2.5× L2 (as the bench), within a third of free memory.
  size_t free_b = 0, total_b = 0;
  cuda_check(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo");
  const int sets = std::max(1, std::min(std::clamp(static_cast<int>(std::ceil(2.5 * static_cast<double>(dev.l2_bytes) /
                                                                                  (w_elems * 2))), 2, 64),
                                        static_cast<int>(free_b / 3 / (w_elems * 2))));
  std::vector<harness::DeviceBuffer<__half>> W;
  for (int i = 0; i < sets; ++i) {
    W.emplace_back(w_elems);
    harness::fill_random(W.back().get(), w_elems, 1000 + i, s);
  }
  harness::DeviceBuffer<__half> X(x_elems);
  harness::fill_random(X.get(), x_elems, 7, s);
  harness::DeviceBuffer<unsigned int> xors(static_cast<size_t>(N)), ref(static_cast<size_t>(N));
  harness::DeviceBuffer<uint4> sink(1);

  std::printf("ladder_tma_probe %s on %s: W %lldx%lld fp16 (%.1f MB) in %d rotated copies, tokens %d\n",
              LADDER_GIT_COMMIT, detail::describe(dev).c_str(), static_cast<long long>(N),
              static_cast<long long>(K), w_elems * 2 / 1e6, sets, tokens);
  struct Launch {
    std::vector<CUtensorMap> w;
    CUtensorMap x;
    KernelArgs args;
    dim3 grid;
    size_t smem;
  };
  std::vector<Launch> launches;
  for (const Probe& p : probes) {
    Launch l{};
    const CUtensorMapSwizzle sw = p.linear || p.BC == 64 ? CU_TENSOR_MAP_SWIZZLE_128B : CU_TENSOR_MAP_SWIZZLE_64B;
    const CUtensorMapL2promotion promo = l2_promotion(p.promo);
    for (int i = 0; i < sets; ++i)
      l.w.push_back(p.linear ? make_tensor_map_2d(W[i].get(), N * K / 64, 64, 64, p.BR * p.BC / 64, 64, sw, promo)
                             : make_tensor_map_2d(W[i].get(), N, K, K, p.BR, p.BC, sw, promo));
    l.x = make_tensor_map_2d(X.get(), tokens, K, K, std::max(p.XR, 1), p.BC, sw, promo);
    l.args.p = p;
    l.args.K = static_cast<int>(K);
    l.args.w_stage_bytes = static_cast<uint32_t>(p.R) * p.SC * 2;
    l.args.x_stage_bytes = static_cast<uint32_t>(p.XR) * p.SC * 2;
    l.args.xors = xors.get();
    l.grid = dim3(static_cast<unsigned>(N / p.R), static_cast<unsigned>(p.split));
    l.smem = p.S * (l.args.w_stage_bytes + l.args.x_stage_bytes + 16) + 1024;
    launches.push_back(l);
  }
  cuda_check(cudaFuncSetAttribute(tma_probe_kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1), "cluster");
  auto launch = [&](const Launch& l, int set, int touch) {
    KernelArgs a = l.args;
    a.touch = touch;
    cudaLaunchConfig_t cfg{};
    cfg.gridDim = l.grid;
    cfg.blockDim = dim3(64);
    cfg.dynamicSmemBytes = l.smem;
    cfg.stream = s;
    cudaLaunchAttribute attr{};
    attr.id = cudaLaunchAttributeClusterDimension;
    attr.val.clusterDim.x = 1, attr.val.clusterDim.y = static_cast<unsigned>(a.p.cluster ? a.p.split : 1),
    attr.val.clusterDim.z = 1;
    cfg.attrs = &attr;
    cfg.numAttrs = a.p.cluster ? 1 : 0;
    cuda_check(cudaLaunchKernelEx(&cfg, tma_probe_kernel, l.w[set], l.x, a), "probe launch");
  };

  // Check: every configuration moves every byte of every slab (set 0). A configuration whose clusters cannot be
  // resident, or that moved the wrong bytes, is reported and left out of the timing; the others go on.
  std::vector<std::string> status(launches.size());
  std::vector<unsigned int> got, want;
  for (size_t c = 0; c < launches.size(); ++c) {
    const Probe& p = probes[c];
    if (p.cluster) {
      cudaLaunchConfig_t cfg{};
      cfg.gridDim = launches[c].grid, cfg.blockDim = dim3(64), cfg.dynamicSmemBytes = launches[c].smem;
      cudaLaunchAttribute attr{};
      attr.id = cudaLaunchAttributeClusterDimension;
      attr.val.clusterDim.x = 1, attr.val.clusterDim.y = static_cast<unsigned>(p.split), attr.val.clusterDim.z = 1;
      cfg.attrs = &attr, cfg.numAttrs = 1;
      int clusters = 0;
      cuda_check(cudaOccupancyMaxActiveClusters(&clusters, tma_probe_kernel, &cfg), "cudaOccupancyMaxActiveClusters");
      if (clusters == 0) {
        status[c] = "error: a cluster of " + std::to_string(p.split) + " does not fit";
        std::printf("probe '%s': %s\n", p.text.c_str(), status[c].c_str());
        continue;
      }
    }
    const int slabs = static_cast<int>(N / p.R);
    slab_xor_kernel<<<slabs, 512, 0, s>>>(reinterpret_cast<const unsigned int*>(W[0].get()),
                                          static_cast<int64_t>(p.R) * K / 2, ref.get());
    cuda_check(cudaMemsetAsync(xors.get(), 0, N * sizeof(unsigned int), s), "memset");
    launch(launches[c], 0, 1);
    cuda_check(cudaGetLastError(), "probe launch");
    got.resize(slabs), want.resize(slabs);
    cuda_check(cudaMemcpyAsync(got.data(), xors.get(), slabs * sizeof(unsigned int), cudaMemcpyDeviceToHost, s), "copy");
    cuda_check(cudaMemcpyAsync(want.data(), ref.get(), slabs * sizeof(unsigned int), cudaMemcpyDeviceToHost, s), "copy");
    cuda_check(cudaStreamSynchronize(s), "check sync");
    const auto bad = std::mismatch(got.begin(), got.end(), want.begin());
    if (bad.first != got.end()) {
      status[c] = "error: wrong bytes (slab " + std::to_string(bad.first - got.begin()) + " XOR differs)";
      std::printf("probe '%s': %s\n", p.text.c_str(), status[c].c_str());
    }
  }
  const size_t passed = std::count(status.begin(), status.end(), std::string());
  std::printf("check: %zu of %zu configurations moved every byte of every slab\n", passed, launches.size());

  std::vector<std::function<void(int)>> fs;
  std::vector<size_t> timed;  // fs[1 + i] times launches[timed[i]]
  fs.push_back([&](int set) { harness::read_floor(W[set].get(), w_elems * 2, sink.get(), dev.sms, s); });
  for (size_t c = 0; c < launches.size(); ++c)
    if (status[c].empty()) {
      timed.push_back(c);
      fs.push_back([&, c](int set) { launch(launches[c], set, 0); });
    }
  harness::TimingOptions opt;
  opt.target_ms = target_ms;
  const std::vector<harness::Stats> t = harness::time_interleaved(fs, sets, s, opt);
  cuda_check(cudaGetLastError(), "timing");

  std::ostringstream csv;
  csv << "config,N,K,tokens,ctas,stage_bytes,ring_bytes,median_us,min_us,reps,weight_GBps,floor_us,vs_floor,status,"
         "sets,commit,gpu\n";
  const double floor_us = t[0].median_ms * 1e3;
  std::printf("%-60s %6s %9s %9s %8s\n", "config", "CTAs", "median_us", "GB/s", "floor/t");
  std::printf("%-60s %6s %9.2f %9.0f %8.3f\n", "read floor (ld.global.cs)", "-", floor_us, w_elems * 2 / floor_us / 1e3,
              1.0);
  for (size_t c = 0; c < launches.size(); ++c) {
    const Launch& l = launches[c];
    const uint32_t stage = l.args.w_stage_bytes + l.args.x_stage_bytes;
    csv << '"' << probes[c].text << "\"," << N << ',' << K << ',' << tokens << ',' << l.grid.x * l.grid.y << ','
        << stage << ',' << stage * probes[c].S << ',';
    const auto at = std::find(timed.begin(), timed.end(), c);
    if (at == timed.end()) {
      std::printf("%-60s %6u %s\n", probes[c].text.c_str(), l.grid.x * l.grid.y, status[c].c_str());
      csv << ",,,,," << floor_us << ",,\"" << status[c] << "\",";
    } else {
      const harness::Stats& st = t[1 + (at - timed.begin())];
      const double us = st.median_ms * 1e3, gbs = w_elems * 2 / us / 1e3;
      std::printf("%-60s %6u %9.2f %9.0f %8.3f\n", probes[c].text.c_str(), l.grid.x * l.grid.y, us, gbs, floor_us / us);
      csv << us << ',' << st.min_ms * 1e3 << ',' << st.reps << ',' << gbs << ',' << floor_us << ',' << floor_us / us
          << ",pass,";
    }
    csv << sets << ',' << LADDER_GIT_COMMIT << ",\"" << dev.name << "\"\n";
  }
  if (!out_path.empty()) {
    std::ofstream f(out_path);
    f << csv.str();
    if (!f) throw std::runtime_error("cannot write " + out_path);
  }
  cudaStreamDestroy(s);
  return passed == launches.size() ? 0 : 1;
}

}  // namespace
}  // namespace ladder::probe

int main(int argc, char** argv) {
  try {
    return ladder::probe::run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ladder_tma_probe: %s\n", e.what());
    return 2;
  }
}
