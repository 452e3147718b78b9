// The small-M kernel's split reductions, replayed on the CPU with the kernel's own arithmetic:
//   • the pushed reduction (LADDER_TUNE post=3; device/split_reduce.hpp): every sender's copies of every owner's groups,
//     checked to stay inside the sender's slot, to add up to the bytes the owner's barrier expects, and to put each
//     group where the owner reads it;
//   • the even split (LADDER_TUNE even=<t>; device/even_split.hpp): every K-tile of every tile computed by exactly
//     one CTA, in at most two pieces, and every tile's sum over its contributors' slots the whole K range.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "device/split_reduce.hpp"
#include "device/even_split.hpp"

using ladder::PushSlots;
using ladder::EvenSplit;

namespace {

// The partial tile of CTA r: a distinct value for every (rank, float), so a misplaced copy shows.
float value(int r, int f) { return static_cast<float>(r * 1000003 + f); }

}  // namespace

TEST(PushSlots, EveryOwnerReceivesEachSendersGroupsWhereItReadsThem) {
  int cases = 0;
  for (int groups : {8, 16, 32})  // 64 or 128 weight rows a tile (16, 32 groups), SwiGLU's 32-row halves (8)
    for (bool up : {false, true})
      for (int rows : {1, 2, 7, 8, 16, 31, 64, 96, 128})
        for (int split = 1; split <= 16; ++split) {
          const int items = rows * groups;
          const PushSlots s{items, groups, split, up};
          const int half = 4 * groups;                          // the up columns' offset in the partial (HALF_ROWS)
          const int stride = half * (up ? 2 : 1) + 4;           // the partial's row stride (W_ROWS + 4)
          ASSERT_EQ(s.slot_floats() % 4, 0);                    // slots stay 16-byte aligned
          int owned = 0;
          for (int q = 0; q < split; ++q) {
            ASSERT_EQ(s.lo(q), owned) << "owners' ranges are contiguous";
            ASSERT_LE(s.hi(q) - s.lo(q), s.slot_items());
            owned = s.hi(q);
            std::vector<float> recv(static_cast<size_t>(split) * s.slot_floats(), NAN);
            uint32_t bytes = 0;
            for (int r = 0; r < split; ++r) {  // sender r's copies into owner q's slot r
              const int slot = r * s.slot_floats();
              auto copy = [&](int dst, int src, int n) {
                ASSERT_GE(dst, 0);
                ASSERT_LE(dst + 4 * n, s.slot_floats()) << "a copy leaves its slot";
                for (int f = 0; f < 4 * n; ++f) recv[slot + dst + f] = value(r, src + f);
                bytes += static_cast<uint32_t>(16 * n);
              };
              for (int it = s.lo(q), m, g, n; it < s.hi(q); it += n) {
                s.run(q, it, m, g, n);
                ASSERT_GE(n, 1);
                ASSERT_LE(g + n, groups) << "a run stays in one token row";
                ASSERT_EQ(m * groups + g, it);
                copy(s.at(q, it), m * stride + 4 * g, n);
                if (up) copy(s.up_at(q, it), m * stride + 4 * g + half, n);
              }
            }
            ASSERT_EQ(bytes, s.bytes_to(q)) << "the barrier's tx count";
            for (int it = s.lo(q); it < s.hi(q); ++it)  // what the owner reads, rank by rank
              for (int r = 0; r < split; ++r)
                for (int e = 0; e < 4; ++e) {
                  const int m = it / groups, g = it % groups, slot = r * s.slot_floats();
                  ASSERT_EQ(recv[slot + s.at(q, it) + e], value(r, m * stride + 4 * g + e))
                      << "rows " << rows << " groups " << groups << " split " << split << " owner " << q;
                  if (up)
                    ASSERT_EQ(recv[slot + s.at(q, it) + 4 * s.slot_items() + e], value(r, m * stride + 4 * g + half + e));
                }
          }
          ASSERT_EQ(owned, items) << "every group has an owner";
          ++cases;
        }
  EXPECT_EQ(cases, 3 * 2 * 9 * 16);
}

// The even split, cluster by cluster, as the kernel walks them: each rank's producer loads units [begin, end) (tile
// first + u / k_tiles, K-tile u % k_tiles), its consumers accumulate [begin, cut) into slot 0 and [cut, end) into slot
// 1, and each tile's owner adds slot(c, q, j) of every rank q that touches it, in rank order. A K-tile's "product" here
// is a distinct power-of-two-free integer, so a unit lost, doubled or put in the wrong tile changes some tile's sum.
TEST(EvenSplit, EveryKTileOfEveryTileIsSummedOnce) {
  int cases = 0;
  for (int tiles : {1, 2, 7, 16, 64, 224, 225, 448, 2004})
    for (int split = 2; split <= 16; ++split)
      for (int k_tiles : {1, 3, 64, 128, 65})
        for (int per : {1, 2, 3, 7, 8, 15, 16}) {  // tiles a cluster asked for (the knob)
          if (per > split) continue;
          const int clusters = (tiles + per - 1) / per;
          const EvenSplit s{tiles, clusters, k_tiles, split};
          ASSERT_TRUE(s.fits()) << tiles << " tiles in " << clusters << " clusters of " << split;
          std::vector<int64_t> want(tiles), got(tiles, 0);
          auto product = [&](int tile, int kt) { return int64_t{tile} * 1000003 + kt * 7 + 1; };
          for (int t = 0; t < tiles; ++t)
            for (int kt = 0; kt < k_tiles; ++kt) want[t] += product(t, kt);
          int covered = 0;
          for (int c = 0; c < clusters; ++c) {
            ASSERT_EQ(s.first(c), covered) << "the clusters' tiles are contiguous";
            ASSERT_GE(s.count(c), 1);
            ASSERT_LE(s.count(c), split);
            covered += s.count(c);
            std::vector<int64_t> partial(2 * split, 0);  // rank r's slots 2r, 2r + 1
            int unit = 0;
            for (int r = 0; r < split; ++r) {
              ASSERT_EQ(s.begin(c, r), unit) << "the ranges are contiguous";
              const int b = s.begin(c, r), e = s.end(c, r), cut = s.cut(c, r);
              ASSERT_LE(e - b, k_tiles) << "a range is at most one tile";
              ASSERT_LE(b, cut);
              ASSERT_LE(cut, e);
              for (int u = b; u < e; ++u) {
                const int j = u / k_tiles, slot = u < cut ? 0 : 1;
                ASSERT_EQ(j, b / k_tiles + slot) << "piece " << slot << " lies in one tile";
                ASSERT_EQ(s.slot(c, r, j), slot);
                partial[2 * r + slot] += product(s.first(c) + j, u % k_tiles);
              }
              unit = e;
            }
            ASSERT_EQ(unit, s.count(c) * k_tiles) << "the ranges cover the cluster's K-tiles";
            for (int j = 0; j < s.count(c); ++j) {
              int64_t by_slot = 0;  // every rank that touches tile j, by slot()
              for (int q = 0; q < split; ++q)
                if (const int slot = s.slot(c, q, j); slot >= 0) by_slot += partial[2 * q + slot];
              // the kernel's walk: first_rank … last_rank, the first at first_slot, the others at slot 0
              const int lo = s.first_rank(c, j), hi = s.last_rank(c, j);
              ASSERT_LE(lo, hi);
              ASSERT_GE(s.slot(c, lo, j), 0) << "the first rank touches the tile";
              ASSERT_EQ(s.slot(c, lo, j), s.first_slot(c, j));
              ASSERT_GE(s.slot(c, hi, j), 0) << "the last rank touches the tile";
              for (int q = lo; q <= hi; ++q) {
                const int slot = q == lo ? s.first_slot(c, j) : 0;
                ASSERT_TRUE(s.slot(c, q, j) == slot || s.begin(c, q) == s.end(c, q)) << "rank " << q << " of tile " << j;
                got[s.first(c) + j] += partial[2 * q + slot];
              }
              ASSERT_EQ(got[s.first(c) + j], by_slot);
            }
          }
          ASSERT_EQ(covered, tiles) << "the clusters cover the tiles";
          ASSERT_EQ(got, want) << tiles << " tiles, " << clusters << " clusters of " << split << ", " << k_tiles
                               << " K-tiles";
          ++cases;
        }
  EXPECT_GT(cases, 1000);
  // More tiles a cluster than CTAs: a range could span three tiles, which the kernel's two slots cannot hold.
  EXPECT_FALSE((EvenSplit{224, 28, 64, 7}.fits()));
  EXPECT_TRUE((EvenSplit{224, 32, 64, 8}.fits()));
  EXPECT_FALSE((EvenSplit{4, 5, 64, 8}.fits())) << "an empty cluster";
}
