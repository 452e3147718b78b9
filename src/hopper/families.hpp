// The Hopper kernel families behind h09–h13 and `best`, each compiled once, in its own translation unit
// (src/hopper/<family>.cu with the kernels in <family>.cuh): the steps and best call these, so every kernel is
// instantiated once whatever number of steps use it.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "device/tensor_map.hpp"
#include "runtime/runtime.hpp"
#include "runtime/tuning.hpp"
#include "step.hpp"

namespace ladder::hopper {

// The TMA-store writeback reads beta·C by TMA into its staging tile (hopper/epilogue.cuh, CTile): C needs 16-byte
// rows and base, as D.
inline bool c_tma_loadable(const detail::Problem& p) {
  return p.ep.beta == 0.0f || (p.ep.ldc % 8 == 0 && reinterpret_cast<uintptr_t>(p.ep.C) % 16 == 0);
}

// What a kernel that writes D with TMA stores (h09–h11) needs, besides TMA-readable rows: empty if it takes p.
inline std::string require_tma_store(const detail::Problem& p) {
  if (auto e = detail::require_tma_rows(p); !e.empty()) return e;
  if (p.ldd % 8 != 0) return "ldd (N when dense) must be a multiple of 8: D is written by TMA stores";
  if (p.d == DType::f32) return "D must be fp16 or bf16: it is written by TMA stores (step 'best' takes an fp32 D)";
  if (!c_tma_loadable(p))
    return "C (beta != 0) needs ldc % 8 == 0 and a 16-byte aligned base: it is read by TMA loads (step 'best' takes any C)";
  if (p.ep.swiglu && p.N % 2 != 0) return "SwiGLU needs an even N (B = [gate; up])";
  return {};
}

// The L2 promotion of the tile kernels' A and B maps: 256 B unless LADDER_TUNE l2promo sets it (128 B measured no
// better there, within the drift of compute-bound runs: docs/notes.md, "Eighth session").
inline CUtensorMapL2promotion tile_operand_promotion() {
  return l2_promotion(detail::tuning().l2promo >= 0 ? detail::tuning().l2promo : 256);
}

// Both consumers on one 128 × TILE_N tile, a 2×1 cluster multicasting B (h08's mainloop); h09's TMA-store
// writeback or a register writeback (fp32 D, a D that TMA cannot store); h11's stream-K split of the last wave.
namespace cooperative {
// 128×256 with a 4-stage ring (h09, h11); 128×192 (best, for wave counts); 128×256 with one CTA a cluster (best: no
// empty half cluster row at 3, 5, … blocks of 128 rows, and twice the stream-K workers for few tiles; a plain GEMM
// with the TMA-store writeback only)
// w256_defer: w256, but an activation (GELU, SiLU, SwiGLU) without beta·C runs in epilogue warps while the consumers
// run the next tile (best; cooperative.cuh, Config::DEFER).
enum class Tile { w256, w192, w256x1, w256_defer };
// `pdl`: a programmatic dependent launch (h13's change, for best): the kernel's prologue overlaps the previous
// kernel's tail; it waits for that kernel before touching memory.
void launch(const detail::Problem& p, cudaStream_t stream, Tile tile, bool stream_k, bool tma_store, bool pdl,
            const char* step_id);
std::string check(const detail::Problem& p);  // with the TMA-store writeback
bool takes(Tile tile, bool tma_store, const detail::Problem& p);  // SwiGLU fits the tile's stores
bool defers_epilogue(const detail::Problem& p);  // Tile::w256_defer runs its deferred copy (activation or residual) for p
bool tma_storable(const detail::Problem& p);  // D: fp16/bf16, 16-byte rows and base; so is C (beta != 0)
// Tiles fitted to the waves (best's coop_fit): 128 × width, one CTA a cluster (M <= 128: one tile row) or two
// sharing B, the register writeback, whole tiles only. The compiled (width, cluster) pairs:
struct FitTile {
  int width, cluster;
};
inline constexpr FitTile kFitTiles[] = {{64, 1}, {112, 1}, {224, 1}, {64, 2}, {144, 2}, {208, 2}, {224, 2}};
void launch_fit(const detail::Problem& p, cudaStream_t stream, FitTile tile, bool pdl, const char* step_id);
// Stream-K may cut a tile into many pieces (StreamKScheduler::make's many_pieces) only for one row of 256-row
// cluster tiles, where each B row is read by one cluster (512×3584×18944, two rows, ran 120 → 138 µs with them:
// docs/results/dev/2026-12-01-s6-ab/).
inline bool stream_k_many_pieces(const detail::Problem& p) { return p.M <= 256; }
// The 1-CTA 128×256 tile (Tile::w256x1) cuts tiles into many pieces wherever it has fewer tiles than SMs.
}  // namespace cooperative

// The consumers own alternate tiles (h10).
namespace pingpong {
// 128×128 per consumer, 5 stages (h10); 128×64, 8 stages (best); 128×128, 6 stages, one shared writeback tile (best,
// plain); 64×64, 13 stages, one shared writeback tile (best, plain, tuning only)
enum class Tile { square, narrow_pair, deep, deep64 };
void launch(const detail::Problem& p, cudaStream_t stream, Tile tile, bool pdl, const char* step_id);  // pdl: as cooperative's
std::string check(const detail::Problem& p);
bool takes(Tile tile, const detail::Problem& p);  // SwiGLU needs whole 64-column output boxes
}  // namespace pingpong

// Swapped operands and a cluster split-K for the decode shapes (h12), launched with PDL by h13 and best.
namespace small_m {
void launch(const detail::Problem& p, cudaStream_t stream, bool pdl, const char* step_id);
std::string check(const detail::Problem& p);
std::string describe(const detail::Problem& p, bool pdl);
// Its grid's y is one block of weight rows (D's columns, swapped) each, at most 65535 of them: checked for 64-row
// blocks (32 columns of D with SwiGLU), exact for every tile up to 32 tokens and safe for the 128-row tiles above.
bool grid_fits(const detail::Problem& p);

// The tile for M tokens: one warpgroup of 64 weight rows and the narrowest N_TOK ≥ M up to 32; for 33–64 tokens
// two warpgroups (128 rows) and 64, which halves the token tile's re-reads per weight byte, unless the 128-row
// tiles would fill less than a quarter of the SMs: then one (64 × 64 tiles, cuBLAS's own decomposition at these
// sizes, swapped), whose twice as many tiles need half the K split. Measured 2026-12-03 (H200, interleaved,
// dev/2026-12-03-s14/call1/): 64×4096×4096 12.5 against 13.8 µs, 64×1024×4096 7.0 against 8.1, 64×4096×14336 31.8
// against 35.0, 64×1024×8192 9.3 against 11.1; with 64 or more 128-row tiles, two: 64×14336×4096 34.0 against 36.1,
// 64×8192×8192 36.7 against 37.0. Beyond 64 tokens, 128 rows × 128 tokens, several token tiles above 128 tokens
// (a 256-token tile was slower wherever it ran: 384×1024×8192 31.9 against 20.9 µs, 512×1024×8192 31.9 against
// 24.1; dev/2026-12-01-s6-tok128/). At 65-128 tokens on a layer of at most 1/16 of the SMs in 128-row tiles (the
// 1024-row layers: 8), 64 × 64 tiles too (two token tiles). Measured 2026-12-03 against the 128×128 tile
// (dev/2026-12-03-s17/call1/narrow128-summary.txt, interleaved): 128×1024×4096 8.7-8.8 against 9.2 µs, 128×1024×8192
// 12.6 against 13.1-13.2, 80×1024×8192 11.4 against 12.1-12.3, 128×1024×14336 17.4-17.5 against 18.7 (s16's call2/
// and s14's call1/ agree); above 128 tokens slower but at 256×1024×4096. A 256-row tile (four consumers) lost on 20
// of 21 rows (s17 call1/wide-summary.txt: 19.2 against 16.3 µs at 128×4096×4096; a tie at 128×128256×4096): not kept.
// `wg=1|2` forces one or two warpgroups at 33–128 tokens; `wg=1` above 128 tokens asks for 64 × 64 tiles there too.
// Above 64 tokens, the 128-row tiles' token tile: 64, 96 or 128, whichever leaves the busiest SM the fewest token
// columns to compute: ⌈tiles / SMs⌉ · n with a wave or more of tiles, else n / s, s the K split that would fill the
// SMs (at most 8, at least 4 K-tiles a CTA). A token tile of 96 fits 65-96 tokens a tile where 128 computes a third
// more columns than there are tokens (96, 192, 288, 384 tokens), and gives more tiles where 128 leaves SMs idle
// (384×3584: 112 tiles against 84); 64 makes more tiles where 96 and 128 cannot fill the SMs without a split
// (192×5120: 120 tiles). Ties go to the wider tile (fewer re-reads of the weights). Up to three 96-token tiles
// (M ≤ 288): with four or more, each weight tile's re-reads cost more than the padding saves (the kernel is then
// bound by what its SMs take in, ~7.5 TB/s in all; sharing the weights by multicast between two token tiles did not
// lift it: docs/notes.md, nineteenth session, call 9). Measured 2026-12-03 (docs/results/dev/2026-12-03-s19/
// call3/tok-summary.txt, small-M forced at tok=64/96/128, two interleaved rounds, µs): the rule's tile was the fastest
// on every row at 80-288 tokens but 128×4096×4096 (128: 16.8, 64: 15.7) and 256×1024×8192 (1 %): 192×3584×18944 58.1
// against 61.0 at 128, 192×5120×5120 28.6 against 33.5, 192×5120×13824 72.1 against 81.4, 192×6144×4096 25.7 against
// 27.8, 96×37888×3584 100.9 against 106.3, 80×14336×4096 37.3 against 37.6; at 384 tokens 96 lost on the 3584-wide
// layers (384×3584×18944 125.1 against 108.0, 384×3584×3584 26.6 against 24.2). cuBLAS picks such tiles too (ncu:
// 128×64 at 192×5120×5120, 96-token tiles at 384×3584×3584 in clusters of four that multicast the weights).
inline int fitted_tokens(int64_t M, int64_t K, int64_t weight_tiles, int sms) {
  if (M > 3 * 96) return 128;
  const int64_t k_tiles = (K + 63) / 64;
  int best_n = 128;
  double best = 0;
  for (int n : {128, 96, 64}) {
    const int64_t tiles = (M + n - 1) / n * weight_tiles;
    const int64_t split = std::clamp<int64_t>(std::min<int64_t>(sms / std::max<int64_t>(tiles, 1), k_tiles / 4), 1, 8);
    const double busiest = tiles >= sms ? static_cast<double>((tiles + sms - 1) / sms) * n : static_cast<double>(n) / split;
    if (n == 128 || busiest < 0.999 * best) best = busiest, best_n = n;
  }
  return best_n;
}

inline void tile_for(const detail::Problem& p, int& consumers, int& n_tok) {
  const int wg = detail::tuning().consumers;
  const int64_t tiles_128 = (p.out_cols() + (p.ep.swiglu ? 63 : 127)) / (p.ep.swiglu ? 64 : 128);
  consumers = 1;
  for (int n : {8, 16, 32, 64})
    if (p.M <= n) {
      n_tok = n;
      if (n == 64) consumers = wg != 0 ? wg : 4 * tiles_128 < detail::sm_count() ? 1 : 2;
      return;
    }
  const bool narrow = p.M <= 128 && 16 * tiles_128 <= detail::sm_count();
  // 64×64 tiles (cuBLAS's decomposition at these shapes) where they fit one wave and K is at most 4096: with the
  // whole-warp producer (twenty-second session) they stream faster than the 128×128 split there. Measured 2026-12-05
  // (dev/2026-12-05-s22/call3/prod-summary.txt, interleaved, µs, 64×64 against the 128×128 split): 128×4096×4096
  // 15.1 against 16.4, 256×1024×4096 10.1 against 11.4, 512×1024×4096 14.1 against 14.3; not with a longer K
  // (128×4096×14336 41.9 against 41.1, 256×1024×8192 16.7 against 16.0, 512×1024×8192 26.0 against 22.2) nor two
  // waves (256×4096×4096 19.7 against 19.8, 128×8192×8192 71 against 41).
  // LADDER_TUNE tok= asks for the 128-row tiles: it overrides this (not the narrow layers' rule).
  const int tok = detail::tuning().tokens;
  const int64_t tiles_64 = (p.M + 63) / 64 * ((p.out_cols() + 63) / 64);
  const bool one_wave_64 = tok == 0 && p.M <= 512 && !p.ep.swiglu && p.K <= 4096 && tiles_64 <= detail::sm_count();
  // But where those tiles fill >= 80 % of the wave unsplit, the tokens are at least half the weight rows and K > 3072,
  // the SMs' intake sets the time, not the weights: 128 weight rows × 64 tokens split 2 launch as many CTAs, each
  // taking in 3/4 of the bytes ((128 + 64) / 2 rows a K-tile against 64 + 64). Measured 2026-12-05
  // (dev/2026-12-05-s28/, interleaved, two rounds, µs, against the 64×64 tiles): H200 512×1024×4096 12.8 / 12.7
  // against 14.7 / 14.7 (cuBLAS 13.1 / 12.8); H100 512×1024×4096 14.7 / 14.6 against 15.3; not with a shorter K
  // (512×1024×2048 9.6 against 9.2, ×3072 a tie), fewer tokens than half the rows (128×4096×4096 17.4 against
  // 17.1-17.3, 256×2048×4096 a tie; 448×1024×4096, 14.2 against 14.4, is outside the rule) or a fuller split of the
  // 64×64 tiles (384×1024×4096, 96 of them: 14.6 against 14.2). h12 and h13 take the same tile (this function).
  const bool intake_bound = one_wave_64 && 5 * tiles_64 >= 4 * detail::sm_count() && 2 * p.M >= p.out_cols() && p.K > 3072;
  consumers = wg != 0 ? wg : (narrow || one_wave_64) && !intake_bound ? 1 : 2;
  n_tok = consumers == 1 ? 64 : tok != 0 ? tok : intake_bound ? 64 : fitted_tokens(p.M, p.K, tiles_128, detail::sm_count());
}

// B as the caller declared it (LADDER_FLAG_B_STATIC), or every caller's B under LADDER_TUNE bstatic=1 (a measurement
// knob). Applied where a call enters a step (best, h13), not in the kernel's launch: best's zero-padded copy of B,
// which its pad kernel has just written, must never be loaded before the wait.
inline detail::Problem caller_b_static(detail::Problem p) {
  p.b_static = p.b_static || detail::tuning().bstatic == 1;
  return p;
}
}  // namespace small_m

// best's choice by its cost model and rules alone (no plan, no launch, no GPU needed): the family and, for small-M
// and the fitted tile, the tile: "small_m 128x64", "coop_fit 128x112 cluster 1", "pingpong". For CPU tests of the
// rules at a given SM count (detail::set_sm_count_for_tests); on a GPU, `ladder bench` and the launch trace show the
// whole launch (split, ring, CTAs).
std::string best_model_pick(const detail::Problem& p);

}  // namespace ladder::hopper
