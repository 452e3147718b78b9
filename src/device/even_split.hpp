// The small-M kernel's even split (LADDER_TUNE even=<t>): a K split that is not whole tiles, so that every SM reads
// an even share of the weights whatever the tile count. Plain arithmetic shared by the kernel, its host plan and a CPU
// test that replays every cluster (tests/test_split_reduce.cpp).
//
// Why: a stream's time is its busiest SM's bytes. 14336×4096 at 8-16 tokens has 224 tiles of 64 weight rows on 132
// SMs: two CTAs on 92 SMs, one on 40, so the busiest SM reads 128 K-tiles where an even share is 108.6 (85 %). A whole
// tile split s ways only moves the quantum (224·s CTAs on 132 SMs). Here a cluster of `split` CTAs takes a run of
// whole tiles (balanced over the clusters: ⌊c·T/C⌋ … ⌊(c+1)·T/C⌋), lays their K-tiles end to end, and cuts them into
// `split` contiguous ranges of equal length (±1). With at most `split` tiles a cluster, a range is at most one tile's
// K-tiles, so it touches at most two tiles: the CTA keeps one partial a tile it touches (slot 0: the tile its range
// starts in; slot 1: the next). Each tile's partials are summed in rank order by its owner, as in the whole-tile split,
// so the output is the same bits on every run. At 14336×4096 seven tiles a cluster of eight: 32 clusters, 256 CTAs,
// 56 K-tiles each, the busiest SM 112 K-tiles (97 % of even).
#pragma once
#include <cstdint>

#include "device/descriptors.hpp"  // LADDER_HD

namespace ladder {

struct EvenSplit {
  int tiles;     // the layer's tiles along the weight rows (D's column blocks)
  int clusters;  // clusters along the weight rows (the grid's y)
  int k_tiles;   // K-tiles a tile
  int split;     // CTAs a cluster (its K ranges)

  // Cluster c's tiles: [first(c), first(c + 1)).
  LADDER_HD constexpr int first(int c) const { return static_cast<int>(int64_t{c} * tiles / clusters); }
  LADDER_HD constexpr int count(int c) const { return first(c + 1) - first(c); }
  // Rank r's units of cluster c, [begin, end): unit u is K-tile u % k_tiles of the cluster's tile u / k_tiles.
  LADDER_HD constexpr int begin(int c, int r) const {
    return static_cast<int>(int64_t{count(c)} * k_tiles * r / split);
  }
  LADDER_HD constexpr int end(int c, int r) const { return begin(c, r + 1); }
  // Where rank r's first piece ends: the end of its range, or of the tile its range starts in.
  LADDER_HD constexpr int cut(int c, int r) const {
    const int b = begin(c, r), e = end(c, r), tile_end = (b / k_tiles + 1) * k_tiles;
    return e < tile_end ? e : tile_end;
  }
  // The slot (0 or 1) of rank r's partial of the cluster's tile j (0-based within the cluster), or -1 where r's range
  // does not touch it.
  LADDER_HD constexpr int slot(int c, int r, int j) const {
    const int b = begin(c, r), e = end(c, r);
    if (b == e || e <= j * k_tiles || b >= (j + 1) * k_tiles) return -1;
    return j - b / k_tiles;
  }
  // The rank whose range holds unit u of cluster c (0 <= u < count(c)·k_tiles): the last r with begin(c, r) <= u.
  LADDER_HD constexpr int rank_of(int c, int u) const {
    return static_cast<int>((int64_t{u + 1} * split - 1) / (int64_t{count(c)} * k_tiles));
  }
  // The owner's walk over tile j's partials, as the kernel does it: ranks rank_of(c, j·k_tiles) … rank_of(c, (j+1)·k_tiles
  // - 1) in order, the first one's slot 1 where its range began in the tile before, every other's slot 0 (a rank
  // with an empty range between them adds its zeros).
  LADDER_HD constexpr int first_rank(int c, int j) const { return rank_of(c, j * k_tiles); }
  LADDER_HD constexpr int last_rank(int c, int j) const { return rank_of(c, (j + 1) * k_tiles - 1); }
  LADDER_HD constexpr int first_slot(int c, int j) const { return begin(c, first_rank(c, j)) < j * k_tiles ? 1 : 0; }
  // Every range within one tile's K-tiles (so at most two pieces a CTA): at most `split` tiles a cluster.
  LADDER_HD constexpr bool fits() const {
    return clusters >= 1 && clusters <= tiles && (tiles + clusters - 1) / clusters <= split;
  }
};

}  // namespace ladder
