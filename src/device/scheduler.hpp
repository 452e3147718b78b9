// Static tile scheduler for persistent kernels: tile index → (tile_m, tile_n) in a grouped order.
// Consecutive indices walk down GROUP_M tile-rows before moving right, so the CTAs of one wave share
// A row-bands and B row-bands in L2 (CUTLASS "swizzle", Triton GROUP_M).
#pragma once
#include <cstdint>

#include "device/descriptors.hpp"  // LADDER_HD

namespace ladder {

struct TileScheduler {
  int tiles_m = 0, tiles_n = 0, group_m = 8;

  LADDER_HD constexpr int num_tiles() const { return tiles_m * tiles_n; }

  LADDER_HD constexpr void tile(int idx, int& tile_m, int& tile_n) const {
    const int per_group = group_m * tiles_n;
    const int group = idx / per_group;
    const int first_m = group * group_m;
    const int rows = (tiles_m - first_m) < group_m ? (tiles_m - first_m) : group_m;  // the last group may be short
    const int in_group = idx - group * per_group;
    tile_m = first_m + in_group % rows;
    tile_n = in_group / rows;
  }
};

}  // namespace ladder

namespace ladder {

// Stream-K work split for a persistent grid of `clusters` workers over `num_tiles` tiles of `k_tiles`
// K-tiles each (Osama et al., "Stream-K", 2023; here the "data-parallel + one stream-K wave" hybrid):
//   • the first `sk_tiles` tiles (the partial last wave) are cut into units of one K-tile, and worker j
//     takes the contiguous units [sk_begin(j), sk_begin(j+1)) — the same count ±1 for every worker;
//   • the remaining tiles are whole: worker j takes sk_tiles + j, + clusters, …
// A worker walks its units in order, cut at tile boundaries into pieces (tile, k_begin, k_end). The piece
// that holds a tile's K-tile 0 owns the tile: it adds the other pieces' partial sums (in worker order, so
// the result is the same on every run) and writes D. Every other piece is the FIRST piece of its worker
// (it starts mid-tile), so a worker leaves at most one partial, in slot = its worker index, and computes
// it before anything else: owners, whose piece comes last in their range, rarely wait.
// The fix-up cost (in K-tile times of a 128×256 tile) a stream-K split must pay for: a partial written and read
// back, measured ≈ 13 µs ≈ 15–20 K-tiles on the H200 (docs/notes.md). LADDER_TUNE=fixup=<K-tiles> overrides it.
inline constexpr int kStreamKFixupUnits = 20;

struct StreamKScheduler {
  int num_tiles = 0, k_tiles = 1, clusters = 1, sk_tiles = 0;
  int fixup_units = 0;  // the fix-up cost make() assumed (host-side estimate only)

  struct Piece {
    int tile, k_begin, k_end;
    LADDER_HD constexpr bool whole(int kt) const { return k_begin == 0 && k_end == kt; }
  };
  struct Cursor {
    int64_t unit, unit_end;  // this worker's stream-K units still to do
    int dp_tile;             // its next whole tile
  };

  LADDER_HD constexpr int64_t sk_begin(int j) const {
    return int64_t{sk_tiles} * k_tiles * j / clusters;
  }
  LADDER_HD constexpr Cursor start(int j) const { return {sk_begin(j), sk_begin(j + 1), sk_tiles + j}; }

  LADDER_HD constexpr bool next(Cursor& c, Piece& p) const {
    if (c.unit < c.unit_end) {
      const int tile = static_cast<int>(c.unit / k_tiles), kb = static_cast<int>(c.unit % k_tiles);
      const int64_t left = c.unit_end - c.unit;
      const int ke = left < k_tiles - kb ? kb + static_cast<int>(left) : k_tiles;
      p = {tile, kb, ke};
      c.unit += ke - kb;
      return true;
    }
    if (c.dp_tile < num_tiles) {
      p = {c.dp_tile, 0, k_tiles};
      c.dp_tile += clusters;
      return true;
    }
    return false;
  }

  // For the owner (worker j) of stream-K tile `tile`: the workers whose partials it adds are j+1 … last.
  LADDER_HD constexpr int last_contributor(int j, int tile) const {
    const int64_t tile_end = int64_t{tile + 1} * k_tiles;
    int last = j;
    while (last + 1 < clusters && sk_begin(last + 1) < tile_end) ++last;
    return last;
  }

  // Whether to split, and how much: the data-parallel schedule takes ceil(T/C) waves of k_tiles units;
  // stream-K takes T·k_tiles/C units plus a fix-up cost (a partial written and read back, measured on the
  // H200 at about `fixup_units` K-tiles' time per launch). Split only when the idle tail is worth more than
  // twice that. The split covers the partial last wave plus as many whole waves (at most 2) as it takes to
  // give every worker at least half a tile, so that a tile is cut into at most three pieces; but with fewer
  // tiles than workers (one partial wave: 256×4096×14336 has 16 tiles for 66 clusters) and `many_pieces`, every
  // tile is split among the workers, at most kMaxPieces workers a tile on average (the workers are capped at
  // kMaxPieces·tiles; a tile straddled at both ends can have one piece more, 9 at most): an owner adds the
  // others' partials one after another. The cooperative kernel allows it for one row of cluster tiles (M ≤ 256), where
  // each B row is read once: measured 2026-12-01 (dev/2026-12-01-s6-ab/) 256×3584×18944 86.6 → 73.2 µs,
  // 256×4096×14336 69.2 → 63.4, but 512×3584×18944 (two rows) 120 → 138.
  static constexpr int kMaxPieces = 8;
  static constexpr StreamKScheduler make(int num_tiles, int k_tiles, int clusters, int fixup_units = kStreamKFixupUnits,
                                         bool many_pieces = true) {
    if (num_tiles <= 0 || clusters <= 0) return {num_tiles, k_tiles, clusters, 0, fixup_units};
    many_pieces = many_pieces && num_tiles < clusters;
    if (many_pieces && kMaxPieces * num_tiles < clusters) clusters = kMaxPieces * num_tiles;
    StreamKScheduler s{num_tiles, k_tiles, clusters, 0, fixup_units};
    const int tail = num_tiles % clusters;
    if (tail == 0) return s;  // whole waves (fewer tiles than workers: one partial wave, tail = num_tiles)
    const int64_t dp_units = int64_t{num_tiles / clusters + 1} * k_tiles * clusters;  // × C, to stay integral
    const int64_t sk_units = int64_t{num_tiles} * k_tiles + int64_t{fixup_units} * clusters;
    if (dp_units - sk_units < int64_t{fixup_units} * clusters) return s;
    for (int waves = 0; waves <= 2 && waves * clusters + tail <= num_tiles; ++waves) {
      const int sk = tail + waves * clusters;
      // sk·k_tiles/C units per worker ≥ k_tiles/2, and ≥ 1: an owner waits on every worker in its tile's range
      if ((many_pieces || 2 * sk >= clusters) && int64_t{sk} * k_tiles >= clusters) {
        s.sk_tiles = sk;
        break;
      }
    }
    return s;
  }

  // Estimated run time in tile times: whole waves, or, where the last wave is split, the even share of all
  // K-tiles plus the fix-up. Used to compare configurations whose tiles differ (best's cost model).
  constexpr double tile_times() const {
    if (sk_tiles == 0) return static_cast<double>((num_tiles + clusters - 1) / clusters);
    return (static_cast<double>(num_tiles) * k_tiles / clusters + fixup_units) / k_tiles;
  }
};

}  // namespace ladder
