// `best` — the library default: any M, N, K ≥ 1, any leading dimensions, element-aligned pointers, fp16 or
// bf16, an fp16/bf16/fp32 D and the fused epilogue. It picks one kernel family per problem by one cost model:
//   • small M (h12/h13: swapped operands, cluster split-K): a stream of B, so
//       t ≈ 3 µs + max(bytes / 3.4 TB/s, FLOPs / rate of its tile: 250, 450 or, above 128 tokens, 360 TFLOP/s),
//     above 128 tokens only from K = 2048; above 64 tokens its 128-row tiles take 64, 96 or 128 tokens, fitted to the
//     tokens and the SMs up to 288 tokens (small_m::fitted_tokens), or 64×64 tiles where they fit one wave with
//     K ≤ 4096 (small_m::tile_for), unless the SMs' intake makes 128×64 split 2 faster;
//   • the tile kernels (h10's ping-pong 128×128 or 128×64, h11's cooperative 128×256 with stream-K, the
//     cooperative 128×192): waves of cluster tiles,
//       t ≈ 5 µs + (cluster-tile units, after the wave or stream-K split) × K-tiles × 0.41 µs,
//     where a unit is one 256×128 cluster tile (h10 choose() since the second session: docs/notes.md);
//   • at 65-128 tokens (33-128 for a plain GEMM with K ≥ 4096, one wave), the cooperative kernel with one CTA a
//     cluster and a tile width fitted to the waves (coop_fit: 128×112 or 128×224, waves filling ≥ 95 % of the SMs),
//     a stream of B without a split:
//       t ≈ 3 µs + bytes / 3.4 TB/s;
//     above 128 rows, for a plain GEMM with K ≥ 4096 (≥ 2048 at an even count of 128-row blocks), its 2-CTA tile
//     where that is one or two waves ≥ 95 % full, the widest such (1536²×K: 128×144, 2560³: 128×208);
//     at 257-384 and 513-640 rows (3 or 5 blocks of 128), its 1-CTA 128×224 tile where its waves are ≥ 80 % full,
//     as the 2-CTA kernels would leave half a cluster row empty;
//   • the cooperative 128×256 tile with one CTA a cluster and a row-synchronous stream-K (coop1), for a plain GEMM, at
//     65-128 tokens with at least a wave of its tiles, and at 3 or 5 blocks of 128 rows with 9/10 of a wave or
//     K > 8192 (measured, not modelled: see choose);
// and every kernel is a programmatic dependent launch (h13's change): its prologue overlaps the previous
// kernel's tail (1-2 µs a GEMM back to back; LADDER_TUNE pdl=0 turns it off).
//   The constants are the H200's, measured 2026-12-01 (docs/results/dev/2026-12-01-s3-*): 0.41 µs is a
//   256×128×64 cluster K-tile at 4096³; the small-M stream and its 128-token rate were raised from 3.0 TB/s and
//   400 TFLOP/s on 2026-12-03, when its reduce stopped costing ~15 % at 64-128 tokens (docs/notes.md, fourteenth
//   session): 64×14336×4096 34.0-34.8 µs (3.5 TB/s), 128×128256×4096 289 µs (3.75 TB/s, 465 TFLOP/s).
// Rows TMA cannot read (K, lda, ldb % 8 ≠ 0, or A/B not 16-byte aligned) are first copied into a zero-padded
// workspace with K rounded up to a multiple of 8 (the zeros add nothing); cuBLAS has no TMA path for such shapes
// (~130 TFLOP/s at 8191³). The workspace is stream-ordered memory from the library's pool (detail::Workspace).
// A D that TMA cannot store (fp32, ldd % 8 ≠ 0, unaligned) takes the cooperative kernel's register writeback.
// LADDER_TUNE=kernel=<name> forces a family (tuning runs; see kKernels).
#include <algorithm>
#include <array>
#include <cstdio>
#include <string>

#include "device/scheduler.hpp"
#include "hopper/families.hpp"
#include "hopper/tile.cuh"
#include "runtime/runtime.hpp"
#include "runtime/tuning.hpp"
#include "step.hpp"

namespace ladder::hopper {
namespace {

constexpr char kStepId[] = "best";

enum class Kernel {
  small_m, pingpong, pingpong_narrow, pingpong_deep, pingpong_deep64, coop, coop_dp, coop192, coop_regs, coop_fit, coop1
};
struct KernelName {
  Kernel k;
  const char* name;
};
constexpr std::array<KernelName, 11> kKernels = {{{Kernel::small_m, "small_m"},
                                                 {Kernel::pingpong, "pingpong"},
                                                 {Kernel::pingpong_narrow, "pingpong_narrow"},
                                                 {Kernel::pingpong_deep, "pingpong_deep"},
                                                 {Kernel::pingpong_deep64, "pingpong_deep64"},
                                                 {Kernel::coop, "coop"},
                                                 {Kernel::coop_dp, "coop_dp"},
                                                 {Kernel::coop192, "coop192"},
                                                 {Kernel::coop_regs, "coop_regs"},
                                                 {Kernel::coop_fit, "coop_fit"},
                                                 {Kernel::coop1, "coop1"}}};

const char* name_of(Kernel k) {
  for (const KernelName& n : kKernels)
    if (n.k == k) return n.name;
  return "?";
}

// dst[r, c] = c < K ? src[r·ld + c] : 0 for c < Kp; 8 outputs (one 16-byte store) per thread. 2-byte elements
// (fp16 or bf16: the bits are copied, and zero is +0 in both).
__global__ void pad_rows_kernel(const __half* __restrict__ src, int64_t ld, int64_t rows, int64_t K, __half* dst,
                                int64_t Kp) {
  const int64_t chunks = Kp / 8;
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < rows * chunks; i += int64_t{gridDim.x} * blockDim.x) {
    const int64_t r = i / chunks, c0 = (i % chunks) * 8;
    alignas(16) __half v[8];
#pragma unroll
    for (int j = 0; j < 8; ++j) v[j] = c0 + j < K ? src[r * ld + c0 + j] : __ushort_as_half(0);
    *reinterpret_cast<uint4*>(dst + r * Kp + c0) = *reinterpret_cast<const uint4*>(v);
  }
}

bool aligned16(const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }

bool tma_rows(const detail::Problem& p) {
  return p.K % 8 == 0 && p.lda % 8 == 0 && p.ldb % 8 == 0 && aligned16(p.A) && aligned16(p.B);
}

// ── the cost model ────────────────────────────────────────────────────────────────────────────────────
inline constexpr double kReadBytesPerUs = 3.4e6;    // small-M's stream of B: ≈ 3.4 TB/s (the fitted tile's)
inline constexpr double kUnitKTileUs = 0.41;        // one 256×128 cluster tile, one 64-deep K-tile
inline constexpr double kSmallMFixedUs = 3.0, kTilesFixedUs = 5.0;
// A fused epilogue's cost per wave, by tile (its elements): measured 2026-12-01 at 2048×16384×4096 with the
// epilogue's operands loaded before the mainloop (docs/results/dev/2026-12-01-s7-epilogue/). The cooperative
// 128×256 tile (its two consumers write back at once, after the mainloop): bias 1.2 µs, GELU (tanh) 4.4, SiLU 4.8,
// GELU (erf) 8.4, beta·C 3.0 µs a wave; the ping-pong's 128×128 tile, written back under the other consumer's
// mainloop: 1.7–4.8 µs a wave, 3.3 for GELU (tanh) — per element 1.5× the cooperative kernel's, for reasons not
// found (its copies' costs do not follow their work: alpha alone 3.2 µs, bias and ReLU 1.7). Per wave here:
// 4.0 µs for 128×256, in proportion for the others (3.3 for the ping-pong's 128×128).
inline constexpr double kCoopEpilogueUsPerWave = 4.0, kPingpongEpilogueUsPerWave = 3.3;

double small_m_us(const detail::Problem& p) {
  int consumers = 1, n_tok = 8;
  small_m::tile_for(p, consumers, n_tok);
  // What its tile sustains on the tensor core (TFLOP/s): 128×128 ≈ 450 at M ≤ 128 (measured 2026-12-01, s4
  // tune-mid: 315-460 at M = 128, 459 at 128×8192×28672; 2026-12-03 with the plain reduce, call1/: 465 at
  // 128×128256×4096, 459 at 128×28672×8192, 487 at 128×8192×28672); above 128 tokens, several 128-token tiles that re-read
  // the weights, 341-457 on the compute-bound shapes (dev/2026-12-01-s6-tok128/): the model takes 360, so that it
  // yields to the tile kernels where they measured 10-15 % faster (256×4096×4096, 512×2048×4096); the narrow tiles
  // are never compute-bound at their M.
  // Above 128 tokens its K split fills the GPU where the tile kernels' 128×128 tiles cannot (under 3/4 of the SMs):
  // there it measured 518-623 TFLOP/s (2026-12-03, call2/: 256×4096×4096 19.6 µs against the ping-pong's 21.3,
  // 384×4096×4096 26.6 against 34.1, 256×4096×14336 51.2 against 64.6, 384×4096×14336 85.6 against 105.5); with more
  // tiles it lost to them (384×14336×4096 104 against 89, 512×4096×4096 33.2 against 29.9, 256×8192×8192 63 against
  // 56, 1536²×4096 52.7 against 38.4). The model takes 550 and 360.
  const int64_t tiles_128 = ((p.M + 127) / 128) * ((p.out_cols() * (p.ep.swiglu ? 2 : 1) + 127) / 128);
  const double wide_rate = 4 * tiles_128 < 3 * detail::sm_count() ? 550e6 : 360e6;
  // (The 64-token tile of 128 weight rows above 64 tokens, fitted_tokens' pick, is the 128-row tile's rate.)
  const double rate = n_tok <= 64 && (p.M <= 64 || consumers == 1) ? 250e6 : p.M <= 128 ? 450e6 : wide_rate;  // FLOP per µs
  const double flops = 2.0 * static_cast<double>(p.M) * static_cast<double>(p.N) * static_cast<double>(p.K);
  const double bytes = 2.0 * static_cast<double>(p.M * p.K + p.N * p.K + p.M * p.out_cols());
  return kSmallMFixedUs + std::max(bytes / kReadBytesPerUs, flops / rate);
}

struct TilePick {
  Kernel kernel;
  double us;
};

// The tile kernels' waves, in 256×128 cluster-tile units (h10's choice of the second session): ping-pong
// (1 unit a tile), cooperative 256-wide (2 units; waves or a stream-K split), cooperative 192-wide (1.5 units,
// whole waves only: split, it measured slower than unsplit at long K).
TilePick tile_pick(const detail::Problem& p) {
  const int sms = detail::sm_count();
  const int clusters = std::max(1, sms / 2);
  const int64_t rows = (p.M + 255) / 256, k_tiles = (p.K + BLK_K - 1) / BLK_K;
  const int64_t cols = p.out_cols(), w = p.ep.swiglu ? 2 : 1;  // SwiGLU: a tile covers 1/2 of its width in D
  const int64_t tiles_128 = ((p.M + 127) / 128) * ((cols * w + 127) / 128);
  const bool tma_store = cooperative::tma_storable(p);
  auto us = [&](double units) { return kTilesFixedUs + units * static_cast<double>(k_tiles) * kUnitKTileUs; };
  if (!tma_store) {  // only the cooperative kernel has a register writeback
    const auto sk = StreamKScheduler::make(static_cast<int>(rows * ((cols * w + 255) / 256)), static_cast<int>(k_tiles),
                                           clusters, kStreamKFixupUnits,
                                           cooperative::stream_k_many_pieces(p));
    return {Kernel::coop_regs, us(2.0 * sk.tile_times())};
  }
  const int64_t tiles_256 = rows * ((cols * w + 255) / 256), tiles_192 = rows * ((cols + 191) / 192);
  const int64_t square_tiles = rows * ((cols * w + 127) / 128);
  if (square_tiles > INT32_MAX / 2 || k_tiles > INT32_MAX) return {Kernel::coop, us(2.0 * (tiles_256 + clusters - 1) / clusters)};
  const int fixup = detail::tuning().fixup >= 0 ? detail::tuning().fixup : kStreamKFixupUnits;
  const double coop = 2.0 * StreamKScheduler::make(static_cast<int>(tiles_256), static_cast<int>(k_tiles), clusters,
                                                   fixup, cooperative::stream_k_many_pieces(p)).tile_times();
  const double narrow_coop = 1.5 * static_cast<double>((tiles_192 + clusters - 1) / clusters);
  const double square = static_cast<double>((square_tiles + clusters - 1) / clusters);
  // Ties go to the 256-wide cooperative tile (fewest L2→SMEM bytes per FLOP); the 192-wide one must win by 3 %
  // (it moves 17 % more bytes per FLOP) and cannot take SwiGLU. A fused epilogue adds its cost per wave
  // (a wave is 2 units of 256-wide tiles, 1.5 of 192-wide ones, 1 of the ping-pong's).
  const double epi = p.ep.plain() ? 0.0 : 1.0 / (static_cast<double>(k_tiles) * kUnitKTileUs);  // units per µs
  const double coop_e = coop + epi * kCoopEpilogueUsPerWave * coop / 2.0;
  const double narrow_coop_e = narrow_coop + epi * 0.75 * kCoopEpilogueUsPerWave * narrow_coop / 1.5;
  const double square_e = square + epi * kPingpongEpilogueUsPerWave * square;
  TilePick pick = square_e < coop_e ? TilePick{Kernel::pingpong, us(square_e)} : TilePick{Kernel::coop, us(coop_e)};
  if (!p.ep.swiglu && narrow_coop_e < 0.97 * std::min(square_e, coop_e)) pick = {Kernel::coop192, us(narrow_coop_e)};
  // Fewer 128×128 tiles than SMs: 128×64 ping-pong tiles so every SM gets work (1024³: 64 → 128 tiles). A wave
  // of them costs 3/4 of a unit (measured 2026-12-01 with the ping-pong's plain copy, s4 tune-mid: 256×4096×14336,
  // one wave, 68 µs ≈ 0.75 × 224 × 0.41; a whole unit before, with the epilogue's code compiled in).
  if (tiles_128 < sms && !p.ep.swiglu) {
    const double waves = static_cast<double>((rows * ((cols + 63) / 64) + clusters - 1) / clusters);
    const double narrow = 0.75 * waves + epi * 0.5 * kPingpongEpilogueUsPerWave * waves;
    if (us(narrow) < pick.us) pick = {Kernel::pingpong_narrow, us(narrow)};
  }
  // A plain GEMM takes the ping-pong's 6-stage copy (one writeback tile the consumers share): where a CTA has one
  // tile, its one consumer's mainloop is the time, and 5 stages over a ~1.8 µs load held it to ~0.36 µs a K-tile.
  // Measured 2026-12-05 (dev/2026-12-05-s31/call1-h100/, H100): in the model's context (ncu) 512×4096×4096 29.6 →
  // 27.8 µs, 512×4096×14336 94.0 → 89.9 (cuBLAS 25.9, 85.9); flushed, two rounds, 256×8192×8192 61.4 / 62.1 →
  // 57.5 / 58.9 (cuBLAS 57.1); several tiles a CTA the same within the rounds (1024×4096×4096 54.4-55.5).
  if (pick.kernel == Kernel::pingpong && p.ep.plain()) pick.kernel = Kernel::pingpong_deep;
  return pick;
}

// The cooperative tiles fitted to the waves (coop_fit, cooperative::kFitTiles): 128 × width, one CTA a cluster for
// one tile row (M ≤ 128), two above. A wave is one tile per SM; a 128 × w tile's K-tile is w/128 of a unit (one CTA's
// share of a 256×128 cluster tile is 128×128). At small M it is a stream of B, as the small-M kernel is, but
// without a split. Measured 2026-12-02 (docs/results/dev/2026-12-02-s12-fit/, two interleaved rounds a call):
//   • at 33-128 tokens a 1-CTA tile of width ≥ 112 that fills its waves streams B at 3.2-4.0 TB/s, where the small-M
//     kernel's 128×128 tiles, split over two CTAs an SM, reach 2.7-3.4 at 128 tokens. At 128 tokens: 128×14336×4096
//     (128×112, 128 tiles) 37.4-38.4 against 43.9-44.8 µs, 128×28672×8192 (128×224) 125-126 against 142-144,
//     128×128256×4096 296-304 against 335-350; at 65 tokens 28672×8192 126 against 192;
//   • the widest such width, for fewer re-reads of A: 128256×4096 at 128×224 (573 tiles, 87 % of 5 waves) 298
//     against 364 at 65 tokens, 304-313 against 316-334 at 96; at 128 a little behind, 302-321 against 298-312;
//   • at ≤ 64 tokens only the first of A's two 64-row boxes is loaded (M rows below 64), and one consumer idles:
//     64×14336×4096 at 128×112 35.0-35.4 against 39.7-40.1 (44.0 with both boxes), 64×28672×8192 at 128×224 118-119
//     against 127, 64×128256×4096 271-274 against 285-289; at 48 tokens 35 against 38.0-38.4, 118 against 123-125,
//     268-270 against 272-273. From 33 tokens, where the small-M kernel takes its 64-token tile: 14336×4096 and 28672×8192 win,
//     128256×4096 loses 1-2.5 % at 33-40 tokens (left as it is);
//   • lost: narrower or emptier waves (128×8192×8192 at 128×64 or 112: 50-56 against 46-49; 128×4096×14336: 71
//     against 44), ≤ 32 tokens (128256×4096 at 32: 268 against 259), and the 2-CTA tiles at 256-3000 rows almost
//     everywhere (the register writeback, the narrower MMA; 1536²×4096 at 128×144 gained 6 %, 35.8 against 38.1 µs).
inline constexpr double kFitReadBytesPerUs = 3.4e6;

struct FitPick {
  cooperative::FitTile tile{0, 0};
  double us = 1e30;
  bool fills = false;  // a width >= 112 whose waves are >= 85 % full: the measured regime
  double fill = 0;     // the share of its waves' slots that hold a tile
  int64_t waves = 0;
};

// CTAs a cluster of the fitted tile: one for one tile row (M <= 128), two above, unless LADDER_TUNE fitcl says.
int fit_cluster(const detail::Problem& p) {
  return detail::tuning().fit_cluster != 0 ? detail::tuning().fit_cluster : p.M <= 128 ? 1 : 2;
}

// One fitted tile's estimate: its waves (one tile an SM), the share of their slots that hold a tile.
FitPick fit_tile(const detail::Problem& p, cooperative::FitTile t) {
  const int sms = detail::sm_count();
  const int64_t rows = (p.M + 128 * t.cluster - 1) / (128 * t.cluster), k_tiles = (p.K + BLK_K - 1) / BLK_K;
  const double bytes = 2.0 * (static_cast<double>(p.M) * p.K + static_cast<double>(p.N) * p.K +
                              static_cast<double>(p.M) * p.out_cols());
  const int64_t out_w = p.ep.swiglu ? t.width / 2 : t.width;
  const int64_t tiles = rows * ((p.out_cols() + out_w - 1) / out_w), per_wave = sms / t.cluster;
  const int64_t waves = (tiles + per_wave - 1) / per_wave;
  const double compute = static_cast<double>(waves) * t.width / 128.0 * static_cast<double>(k_tiles) * kUnitKTileUs;
  const double us = kSmallMFixedUs + std::max(compute, bytes / kFitReadBytesPerUs);
  const bool fills = t.width >= 112 && 20 * tiles >= 17 * waves * per_wave;
  return {t, us, fills, static_cast<double>(tiles) / static_cast<double>(waves * per_wave), waves};
}

FitPick fit_pick(const detail::Problem& p) {
  const int cluster = fit_cluster(p);
  FitPick best, filled, full;
  for (const cooperative::FitTile& t : cooperative::kFitTiles) {
    if (t.cluster != cluster || (detail::tuning().width != 0 && t.width != detail::tuning().width)) continue;
    const FitPick f = fit_tile(p, t);
    if (f.us < best.us) best = f;
    if (f.fills && t.width >= filled.tile.width) filled = f;  // the widest: fewest re-reads of A
    if (f.fills && f.fill >= 0.95 && t.width >= full.tile.width) full = f;
  }
  // Two CTAs a cluster (M > 128): choose() takes only waves >= 95 % full, so the widest of those (2560³: 128×208, 130
  // of 132 slots, 56 µs, where 128×224's 91 % measured 60; dev/2026-12-03-s20/call9/fitwb-summary.txt).
  if (cluster == 2 && full.fills) return full;
  return filled.fills ? filled : best;  // no tile (width 0) only where a tuned width is not compiled for the cluster
}

// A forced coop_fit whose tuned width has no tile for this problem's cluster size: refused before anything launches
// (before best's padding too: launch() checks first).
void require_fit_tile(const FitPick& f, const detail::Problem& p) {
  if (f.tile.width != 0) return;
  const int cluster = fit_cluster(p);
  throw Error(LADDER_ERROR_INVALID_ARGUMENT, "LADDER_TUNE kernel=coop_fit,width=" + std::to_string(detail::tuning().width) +
                                                 ": no fitted tile of that width with a cluster of " +
                                                 std::to_string(cluster) +
                                                 (detail::tuning().fit_cluster != 0 ? " (fitcl)" : p.M <= 128 ? " (M <= 128)" : " (M > 128)") +
                                                 " is compiled");
}

struct Choice {
  Kernel kernel;
  double small_m_us, tiles_us;  // the model's estimates (for `plan`)
  FitPick fit{};                // the fitted tile, where it was a candidate or is forced (else width 0)
  bool fit_candidate = false;   // the model weighed it (its estimate goes into `plan`)
};

Choice choose(const detail::Problem& p) {
  const TilePick t = tile_pick(p);
  const double s = small_m_us(p);
  // Above 128 tokens the small-M kernel is a split-K of 128×128 tiles: its fixed costs (the cluster reduction, the
  // epilogue) want a long K. At 1024³ it measured 14.3 µs against the 128×64 ping-pong's 8.8 (model: 9.0 against
  // 9.9; dev/2026-12-01-s6-ab-tok/), and at K ≤ 1536 it was slower on all 9 shapes tried (0.63-0.89×; at
  // K = 2040-2048 1.10× to 0.74×: dev/2026-12-01-s6-shortk/), so it is a candidate there only from K = 2048.
  // Its grid has a row of CTAs per block of weight rows, at most 65535 of them (small_m::grid_fits).
  const bool small_m_fits = (p.M <= 128 || (p.K + 7) / 8 * 8 >= 2048) &&  // K as launched (a multiple of 8)
                            small_m::grid_fits(p);
  Choice c{small_m_fits && s <= t.us ? Kernel::small_m : t.kernel, s, t.us};
  // The fitted tile where it was measured to win: the small-M kernel's 128-token tile's range (65-128 tokens), a width
  // whose one wave fills >= 95 % of the SMs; ties go to it (its stream is better balanced than small-M's 128-row
  // tiles at two CTAs an SM). Measured 2026-12-03 (call2/), after small-M's plain reduce: 96 and 128×28672×8192 122.4-125.5
  // against 129-132.6 µs; 128256×4096 (87 % full) lost, 275-290 against 297-314; at 40-64 tokens small-M won or tied on
  // every layer (40×28672×8192 112.5-115.0 against 117.5-117.8, 64×14336×4096 33.9-34.0 against 35.4; since the
  // twentieth session's writeback no longer so for a plain GEMM: below, fit_row).
  // Above 128 rows, the 2-CTA fitted tile of a plain GEMM where it is one wave filling >= 95 % of the SMs and K is
  // at least 4096: at 1536²×K its 132 tiles of 128×144 are cuBLAS's own decomposition. Measured 2026-12-03
  // (dev/2026-12-03-s15/call1/kslope-summary.txt, interleaved): 34.9 against 36.8 µs at K = 4096, 62.4 against 68.1 at
  // 8192, 119.6 against 128.6 at 16384 (best's 128×192 tiles, 96 of them); at K = 2048 21.7 against 21.0 (its fixed
  // cost, 8.8 µs, against the 128×192 tile's 6.5 and cuBLAS's 4.3; the twentieth session's writeback changed both,
  // below). Two waves lost or tied then (2560³ at 128×208, call2/: 61.3-61.6 against 62.2-62.5; 2560²×8192 179 against
  // 175). At one or two tile rows (M ≤ 512) two such waves too, where the
  // cooperative kernel's 1.5-2 waves of 256×256 cluster tiles take a stream-K split (its fix-up): measured 2026-12-03
  // (dev/2026-12-03-s17/call1/tiles-summary.txt, interleaved): 256×28672×8192 at 128×224 197.5-198.8 against the
  // cooperative's 211.2-213.6 µs (cuBLAS 211.8), 512×14336×4096 111.5-113.0 against 113.1-114.2 (113.2); four waves lost
  // (512×28672×8192 390-392 against the ping-pong's 374-375).
  // From K = 3072 where the rows are whole cluster rows (an even count of 128-row blocks): measured 2026-12-03
  // (dev/2026-12-03-s18/call4/fit3k-summary.txt, interleaved, µs): 192×9216×3072 27.0-27.1 against the small-M
  // kernel's 38.3-38.8, 256×9216×3072 27.7-28.3 against 29.8, 448×9216×3072 49.1-49.6 against 57.9, 512×9216×3072
  // 51.9-52.8 against 58.4-58.6 (the shapes there whose one or two waves the fitted tile fills; it lost where they
  // are emptier, which the rule does not take). At odd counts the 1-CTA 128×224 rule below measured faster
  // (384×9216×3072: 42.3 against the 2-CTA tile's 51.7, call1/).
  const int64_t blocks = (p.M + 127) / 128;
  const bool forced_fit = detail::tuning().kernel == "coop_fit";
  // With the 8-byte register writeback (twentieth session) the fitted tile's epilogue is ~3 µs shorter: from K = 2048
  // (even block counts) and at two full waves at any M it now wins. Measured 2026-12-03 (dev/2026-12-03-s20/call9/
  // fitwb-summary.txt, interleaved, µs): 2560³ at 128×208 56.1 / 55.8 against best's cooperative 66.1 / 65.5 (cuBLAS
  // 55.7), 2560²×4096 89.0 / 87.5 against 107.2 / 105.4 (89.9), 1536²×2048 at 128×144 18.3 against 21.3 (17.3).
  const bool wide_fit = p.M > 128 && (p.K >= 4096 || (p.K >= 2048 && blocks % 2 == 0)) && p.ep.plain();
  // At 33-64 tokens too, for a plain GEMM with K >= 4096: since that writeback it won or tied there again where its
  // one wave fills >= 95 % of the SMs. Measured 2026-12-05 (dev/2026-12-05-s28/, interleaved, two rounds, µs): H200
  // 64×14336×4096 at 128×112 33.0 / 32.8 against small-M's 33.9 / 35.0 (cuBLAS 33.2 / 33.8), 32 tokens a tie (not
  // taken); H100 64×14336×4096 44.0-44.1 against 45.6-45.7, 64×28672×8192 at 128×224 160-163 against 167-168,
  // 48×28672×8192 161-163 against 166, 33-56×14336×4096 ties (±0.5 %); the narrower 128×64 (8192-wide layers) lost,
  // as before. Only one wave and K >= 4096 were measured. There both estimates are the same stream of the same bytes
  // (3 µs + bytes / 3.4 TB/s), so the model cannot tell them apart: the fitted tile is taken by rule, not by estimate.
  const bool fit_row = (p.M > 64 || (p.M > 32 && p.K >= 4096 && p.ep.plain())) && p.M <= 128;
  if (fit_row || wide_fit || forced_fit) c.fit = fit_pick(p);
  const bool few_waves = p.M <= 128 || c.fit.waves <= 2;
  if (fit_row || wide_fit)
    if (c.fit.tile.width != 0 && c.fit.fills && c.fit.fill >= 0.95 && few_waves && (p.M > 64 || c.fit.waves == 1)) {
      c.fit_candidate = true;
      if (p.M <= 64 ? c.fit.us <= t.us : c.fit.us <= std::min(s, t.us)) c.kernel = Kernel::coop_fit;
    }
  // 3 or 5 blocks of 128 rows: the 2-CTA kernels (ping-pong, cooperative, 2-CTA fitted tiles) leave half of their
  // last cluster row empty (a fifth or a sixth of their work), and its out-of-bounds TMA boxes cost time. The 1-CTA
  // 128×224 tile has no such row; where its waves are >= 80 % full the model weighs it (narrower 1-CTA tiles lost
  // everywhere). Measured 2026-12-03 (dev/2026-12-03-s16/call3/fit1-summary.txt, call4/odd-summary.txt, interleaved):
  // 384×28672×8192 277-297 µs against the ping-pong's 453-466 and the cooperative's 363-369 (512 rows: 377; cuBLAS
  // 256-270), 640×28672×8192 475-494 against 533-540, 384×128256×4096 679-727 against 744-810, 384×8192×8192
  // 89.5-91.1 against 93-96; 640×14336×4096 148-153 against 146-154 (a tie). At 9 blocks (1152×8192×8192) it lost,
  // 293-298 against 279-288, where the empty half row is a tenth of the work: not taken from 7 blocks.
  if (!forced_fit && (blocks == 3 || blocks == 5) && p.ep.plain() && c.kernel != Kernel::coop_fit) {
    const FitPick odd = fit_tile(p, {224, 1});
    if (odd.fill >= 0.8) {
      c.fit = odd, c.fit_candidate = true;
      if (odd.us <= std::min(s, t.us)) c.kernel = Kernel::coop_fit;
    }
  }
  // The 1-CTA 128×256 cooperative tile with stream-K (coop1): 128-row tiles and a worker on every SM, but each CTA
  // reads its own B (no multicast): 1.5× the L2 reads a FLOP of the 2-CTA tile (at 8-16 blocks of 128 rows it lost:
  // 2048×5120×5120 226.5 against 161.9 µs, 1000×9216×3072 119.9 against 90.5). Its stream-K schedule is
  // row-synchronous (cooperative.cuh, StreamKArgs::rows), so B's K-tiles come from DRAM once whatever the split.
  // Taken for a plain GEMM (the fused copies keep the families they were measured with) where the others waste
  // more: one tile row of 65-128 tokens with at least a wave of tiles (small-M's 128-token tiles, the fitted tiles'
  // partial waves), and 3 or 5 blocks of 128 rows (the 2-CTA kernels' empty half cluster row, a quarter or a sixth
  // of their work) with 9/10 of a wave of tiles or K > 8192, in place of a tile family. Measured 2026-12-03
  // (dev/2026-12-03-s18/, interleaved against auto, µs): call3/ 128×128256×4096 267.9-268.3 against 289.6-291.0
  // (cuBLAS 269.2), 100×37888×3584 83.8-83.9 against 96-97 (75.6), 600×14336×4096 133.3-133.8 against 149-150 (119.4);
  // call6/odd-summary.txt 384×13824×5120 96.4-98.5 against 122.4-129.1 (84.3), 640×8192×28672 475-483 against
  // 595-601 (477), 640×3584×18944 153-157 against 186-193 (139), 384×14336×4096 84.0-84.3 against 100.3-101.3
  // (70.4), 384×128256×4096 636-637 against 700-706 (639), 640×28672×8192 426-428 against 440-442 (402); lost at
  // K = 8192 with fewer tiles (384×8192×8192 97-99 against 92.1, 640×3072×8192 66-69 against 66-67) and at short K
  // (600×4096×4096, 80 tiles: 47.6 against 37.7).
  {
    const int64_t tiles_1 = blocks * ((p.out_cols() + 255) / 256);
    const int sms = detail::sm_count();
    const bool one_row = p.M > 64 && p.M <= 128 && tiles_1 >= sms;
    const bool odd = (blocks == 3 || blocks == 5) && c.kernel != Kernel::small_m && (10 * tiles_1 >= 9 * sms || p.K > 8192);
    if (!forced_fit && p.ep.plain() && cooperative::tma_storable(p) && (one_row || odd)) c.kernel = Kernel::coop1;
  }
  if (const std::string& forced = detail::tuning().kernel; !forced.empty()) {
    auto it = std::find_if(kKernels.begin(), kKernels.end(), [&](const KernelName& n) { return forced == n.name; });
    if (it == kKernels.end()) {
      std::string names;
      for (const KernelName& n : kKernels) names += std::string(names.empty() ? "" : ", ") + n.name;
      throw Error(LADDER_ERROR_INVALID_ARGUMENT, "LADDER_TUNE kernel=" + forced + " is not one of: " + names);
    }
    c.kernel = it->k;
  }
  return c;
}

// Every kernel best runs is a programmatic dependent launch (h13's change, on every family), unless LADDER_TUNE pdl=0.
bool pdl_on() { return detail::tuning().pdl != 0; }

// Throws where the kernel chosen (forced by LADDER_TUNE kernel=, or the fitted tile) cannot run this problem: called
// before anything launches, the padding's copies included.
void require_runnable(const Choice& c, const detail::Problem& p) {
  const bool tma_store = cooperative::tma_storable(p);
  const char* why = nullptr;
  switch (c.kernel) {
    case Kernel::small_m:
      if (!small_m::grid_fits(p)) why = "needs D's columns in 65535 blocks of the tile's weight rows (the grid's y limit)";
      break;
    case Kernel::pingpong:
      if (!tma_store) why = "needs a D that TMA can store";
      break;
    case Kernel::pingpong_narrow:
      if (!tma_store || !pingpong::takes(pingpong::Tile::narrow_pair, p)) why = "needs a TMA-storable D and no SwiGLU";
      break;
    case Kernel::coop192:
      if (!tma_store || !cooperative::takes(cooperative::Tile::w192, tma_store, p))
        why = "needs a TMA-storable D and no SwiGLU";
      break;
    case Kernel::pingpong_deep:
    case Kernel::pingpong_deep64:
    case Kernel::coop1:
      if (!tma_store || !p.ep.plain()) why = "takes a plain GEMM with a D that TMA can store";
      break;
    case Kernel::coop_fit:
      return require_fit_tile(c.fit, p);
    case Kernel::coop:
    case Kernel::coop_dp:
    case Kernel::coop_regs:
      break;
  }
  if (why != nullptr) throw Error(LADDER_ERROR_INVALID_ARGUMENT, std::string("LADDER_TUNE kernel=") + name_of(c.kernel) + " " + why);
}

void run_aligned(const detail::Problem& p, cudaStream_t stream) {
  const Choice c = choose(p);
  require_runnable(c, p);
  const bool tma_store = cooperative::tma_storable(p);
  const bool pdl = pdl_on();
  switch (c.kernel) {
    case Kernel::small_m:
      return small_m::launch(p, stream, pdl, kStepId);  // h13's launch
    case Kernel::pingpong:
      return pingpong::launch(p, stream, pingpong::Tile::square, pdl, kStepId);
    case Kernel::pingpong_narrow:
      return pingpong::launch(p, stream, pingpong::Tile::narrow_pair, pdl, kStepId);
    case Kernel::pingpong_deep:
      return pingpong::launch(p, stream, pingpong::Tile::deep, pdl, kStepId);
    case Kernel::pingpong_deep64:
      return pingpong::launch(p, stream, pingpong::Tile::deep64, pdl, kStepId);
    case Kernel::coop:
    case Kernel::coop_dp:
      return cooperative::launch(p, stream, cooperative::Tile::w256_defer, c.kernel == Kernel::coop, tma_store, pdl,
                                 kStepId);
    case Kernel::coop192:
      return cooperative::launch(p, stream, cooperative::Tile::w192, /*stream_k=*/false, tma_store, pdl, kStepId);
    case Kernel::coop_regs:
      return cooperative::launch(p, stream, cooperative::Tile::w256, /*stream_k=*/true, /*tma_store=*/false, pdl,
                                 kStepId);
    case Kernel::coop1:
      return cooperative::launch(p, stream, cooperative::Tile::w256x1, /*stream_k=*/true, tma_store, pdl, kStepId);
    case Kernel::coop_fit:
      return cooperative::launch_fit(p, stream, c.fit.tile, pdl, kStepId);
  }
}

// The problem as the kernels see it, for launch() and describe() alike: B static as the caller said (or the knob);
// rows TMA cannot read replaced by their zero-padded copies (K a multiple of 8; launch() points A and B at them),
// whose B the pad kernel has just written, so never static. (A plan chosen for the unpadded problem could name
// another kernel than ran: the launch contract found it.)
detail::Problem as_launched(const detail::Problem& call) {
  detail::Problem q = small_m::caller_b_static(call);
  if (!tma_rows(call)) q.K = q.lda = q.ldb = (call.K + 7) / 8 * 8, q.b_static = false;
  return q;
}

void launch(const detail::Problem& call, cudaStream_t stream) {
  if (tma_rows(call)) return run_aligned(as_launched(call), stream);
  // A forced kernel that cannot run this call: refused before the padding's copies (best's own picks always can).
  if (!detail::tuning().kernel.empty()) require_runnable(choose(as_launched(call)), as_launched(call));
  const detail::Problem& p = call;
  const int64_t Kp = (p.K + 7) / 8 * 8;
  const detail::Workspace a(p.M * Kp * sizeof(__half), stream, "best (padding)"),
      b(p.N * Kp * sizeof(__half), stream, "best (padding)");  // freed on the stream after the GEMM
  auto* pa = static_cast<__half*>(a.get());
  auto* pb = static_cast<__half*>(b.get());
  pad_rows_kernel<<<1024, 256, 0, stream>>>(p.A, p.lda, p.M, p.K, pa, Kp);
  pad_rows_kernel<<<1024, 256, 0, stream>>>(p.B, p.ldb, p.N, p.K, pb, Kp);
  detail::check_launch("best (padding)");
  detail::Problem padded = as_launched(p);  // dtype and epilogue carry over; the zeros add nothing to D
  padded.A = pa, padded.B = pb;
  run_aligned(padded, stream);
}

std::string check(const detail::Problem& p) {
  if (p.M > INT32_MAX || p.N > INT32_MAX || p.K > INT32_MAX - 8) return "M, N and K must fit in 32 bits (TMA coordinates)";
  if (p.ep.swiglu && p.N % 2 != 0) return "SwiGLU needs an even N (B = [gate; up])";
  return {};
}

std::string describe(const detail::Problem& p) {
  const detail::Problem q = as_launched(p);
  const Choice c = choose(q);
  require_runnable(c, q);  // a forced kernel that cannot run this problem: no plan, the launch's error
  char est[128];
  char fit[48] = "";
  if (c.fit_candidate) std::snprintf(fit, sizeof fit, ", fitted %.1f us", c.fit.us);
  std::snprintf(est, sizeof est, " (model: small-M %.1f us, tiles %.1f us%s%s)", c.small_m_us, c.tiles_us, fit,
                tma_rows(p) ? "" : "; rows padded to K % 8 == 0 first");
  std::string what;
  if (c.kernel == Kernel::small_m) {
    what = small_m::describe(q, pdl_on());
  } else {
    what = std::string(name_of(c.kernel));
    if (c.kernel == Kernel::coop1) {
      what += " 128x256 cluster 1, stream-K, TMA-store writeback";
    } else if (c.kernel == Kernel::coop_fit) {
      what += " 128x" + std::to_string(c.fit.tile.width) + " cluster " + std::to_string(c.fit.tile.cluster) +
              ", register writeback";
    } else {
      what += cooperative::tma_storable(p) ? ", TMA-store writeback" : ", register writeback";
      if ((c.kernel == Kernel::coop || c.kernel == Kernel::coop_dp) && cooperative::defers_epilogue(p))
        what += p.ep.beta != 0.0f ? ", the residual deferred under the next tile's mainloop (3 stages)"
                                  : ", the activation deferred under the next tile's mainloop (3 stages)";
    }
    if (pdl_on()) what += ", programmatic dependent launch";
  }
  return "best -> " + what + est;
}

}  // namespace

std::string best_model_pick(const detail::Problem& call) {
  const detail::Problem p = as_launched(call);
  const Choice c = choose(p);
  std::string what = name_of(c.kernel);
  if (c.kernel == Kernel::small_m) {
    int consumers = 1, n_tok = 8;
    small_m::tile_for(p, consumers, n_tok);
    what += " " + std::to_string(64 * consumers) + "x" + std::to_string(n_tok);
  } else if (c.kernel == Kernel::coop_fit) {
    what += " 128x" + std::to_string(c.fit.tile.width) + " cluster " + std::to_string(c.fit.tile.cluster);
  }
  return what;
}
}  // namespace ladder::hopper

extern const ladder::detail::Step step_best = {
    ladder::hopper::kStepId, ladder::detail::Arch::hopper, "best",
    "picks per shape by one cost model: small-M (h12/h13), ping-pong (h10; a plain GEMM with 6 stages and one shared "
    "writeback tile), cooperative with stream-K (h11), "
    "128x192, a cooperative tile fitted to the waves (1 CTA a cluster at 65-128 rows, 33-128 plain, 257-384 and "
    "513-640 rows, 2 "
    "above), or the 1-CTA 128x256 cooperative tile with row-synchronous stream-K (65-128, 257-384 and 513-640 rows), "
    "each a programmatic dependent launch; K % 8 != 0 or unaligned rows go through a zero-padded workspace",
    "any M, N, K >= 1; any lda >= K, ldb >= K, ldd >= N; element-aligned pointers", ladder::hopper::check,
    ladder::hopper::launch, {}, nullptr, /*pointer_alignment=*/2, /*fused=*/true, ladder::hopper::describe};
