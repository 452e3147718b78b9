// The shared host/device logic of the persistent steps: pipeline state and tile scheduler (CPU tests).
#include <gtest/gtest.h>

#include <map>
#include <vector>
#include <set>
#include <utility>

#include "device/pipeline.hpp"
#include "device/scheduler.hpp"
#include "hopper/families.hpp"

using namespace ladder;

TEST(PipelineState, WrapsAndFlipsPhase) {
  PipelineState<3> s;
  const std::pair<uint32_t, uint32_t> want[] = {{0, 0}, {1, 0}, {2, 0}, {0, 1}, {1, 1}, {2, 1}, {0, 0}};
  for (const auto& [stage, phase] : want) {
    EXPECT_EQ(s.stage, stage);
    EXPECT_EQ(s.phase, phase);
    s.advance();
  }
}

TEST(PipelineState, ProducerStartsOnTheOppositeParity) {
  PipelineState<4> s;
  EXPECT_EQ(s.producer_phase(), 1u);  // a fresh empty barrier: parity-1 wait passes at once
  for (int i = 0; i < 4; ++i) s.advance();
  EXPECT_EQ(s.producer_phase(), 0u);  // second lap: wait for the consumers' first release
}

TEST(PipelineState, PhaseCarriesAcrossTiles) {
  // Three tiles of 5 K-tiles on a 4-stage ring: the cursor never resets between tiles.
  PipelineState<4> s;
  for (int tile = 0; tile < 3; ++tile)
    for (int k = 0; k < 5; ++k) s.advance();
  EXPECT_EQ(s.stage, 15u % 4);
  EXPECT_EQ(s.phase, (15u / 4) & 1);
}

TEST(PipelineState, AdvanceByNEqualsNSteps) {
  for (int n = 0; n < 40; ++n) {
    PipelineState<5> a, b;
    a.advance(3);
    b.advance(3);
    a.advance(n);
    for (int i = 0; i < n; ++i) b.advance();
    EXPECT_EQ(a.stage, b.stage) << n;
    EXPECT_EQ(a.phase, b.phase) << n;
  }
}

// The run-time-depth ring (small-M family) walks exactly like the compile-time one, for every depth.
template <int S>
void expect_ring_matches_pipeline() {
  PipelineState<S> a;
  RingState b{S};
  for (int step = 0; step < 100; ++step) {
    const int n = step % 7 == 0 ? step % 11 : 1;  // mixed single steps and skips
    if (n == 1) a.advance(), b.advance();
    else a.advance(n), b.advance(n);
    ASSERT_EQ(a.stage, b.stage) << S << " " << step;
    ASSERT_EQ(a.phase, b.phase) << S << " " << step;
    ASSERT_EQ(a.producer_phase(), b.producer_phase()) << S << " " << step;
  }
}
TEST(RingState, MatchesPipelineStateForEveryDepth) {
  expect_ring_matches_pipeline<1>();
  expect_ring_matches_pipeline<2>();
  expect_ring_matches_pipeline<5>();
  expect_ring_matches_pipeline<12>();
  expect_ring_matches_pipeline<24>();
}

TEST(TileScheduler, CoversEveryTileExactlyOnce) {
  for (int tm : {1, 3, 8, 9, 17, 32})
    for (int tn : {1, 2, 7, 16})
      for (int g : {1, 4, 8, 16}) {
        const TileScheduler s{tm, tn, g};
        std::set<std::pair<int, int>> seen;
        for (int i = 0; i < s.num_tiles(); ++i) {
          int m, n;
          s.tile(i, m, n);
          ASSERT_GE(m, 0);
          ASSERT_LT(m, tm);
          ASSERT_GE(n, 0);
          ASSERT_LT(n, tn);
          EXPECT_TRUE(seen.insert({m, n}).second) << "tile (" << m << "," << n << ") twice";
        }
        EXPECT_EQ(static_cast<int>(seen.size()), tm * tn);
      }
}

TEST(TileScheduler, GroupedOrderWalksDownAGroupFirst) {
  const TileScheduler s{16, 4, 8};
  int m, n;
  s.tile(0, m, n);
  EXPECT_EQ(std::make_pair(m, n), std::make_pair(0, 0));
  s.tile(7, m, n);
  EXPECT_EQ(std::make_pair(m, n), std::make_pair(7, 0));  // down the first 8 tile-rows
  s.tile(8, m, n);
  EXPECT_EQ(std::make_pair(m, n), std::make_pair(0, 1));  // then the next column
  s.tile(32, m, n);
  EXPECT_EQ(std::make_pair(m, n), std::make_pair(8, 0));  // second group
}

TEST(TileScheduler, PersistentCtasSplitTheWork) {
  // Static schedule: CTA b takes tiles b, b + grid, …; together they cover each tile once.
  const TileScheduler s{13, 11, 8};
  const int grid = 132;
  std::set<int> seen;
  for (int b = 0; b < grid; ++b)
    for (int t = b; t < s.num_tiles(); t += grid) EXPECT_TRUE(seen.insert(t).second);
  EXPECT_EQ(static_cast<int>(seen.size()), s.num_tiles());
}

// Stream-K: walks every worker's pieces as the kernel's producer and consumers do.
namespace {
struct Walk {
  std::map<std::pair<int, int>, int> unit_owner;           // (tile, k) → worker that computes it
  std::map<int, std::vector<int>> contributors;            // split tile → workers with a partial of it
  std::map<int, int> owner;                                // split tile → worker holding K-tile 0
};
Walk walk(const StreamKScheduler& s) {
  Walk w;
  for (int j = 0; j < s.clusters; ++j) {
    StreamKScheduler::Piece p;
    bool first = true;
    for (auto c = s.start(j); s.next(c, p); first = false) {
      EXPECT_LT(p.k_begin, p.k_end);
      for (int k = p.k_begin; k < p.k_end; ++k)
        EXPECT_TRUE(w.unit_owner.insert({{p.tile, k}, j}).second) << "tile " << p.tile << " k " << k << " twice";
      if (p.k_begin != 0) {
        EXPECT_TRUE(first) << "worker " << j << ": a partial that is not its first piece";
        w.contributors[p.tile].push_back(j);
      } else if (p.k_end != s.k_tiles) {
        w.owner[p.tile] = j;
      }
    }
  }
  return w;
}
}  // namespace

TEST(StreamKScheduler, CoversEveryUnitOnceAndOwnersFindTheirContributors) {
  for (bool many : {true, false})
  for (int tiles : {1, 3, 7, 8, 9, 16, 66, 67, 131, 256, 240, 512, 1000})
    for (int kt : {1, 3, 7, 8, 31, 64, 94, 129, 224})
      for (int workers : {1, 2, 13, 23, 57, 66, 120}) {
        const auto s = StreamKScheduler::make(tiles, kt, workers, /*fixup_units=*/0, many);
        const Walk w = walk(s);
        if (s.sk_tiles > 0)  // an owner waits on every worker after it in its tile's range: none may be empty
          for (int j = 0; j < s.clusters; ++j) EXPECT_GT(s.sk_begin(j + 1), s.sk_begin(j)) << "worker " << j;
        EXPECT_LE(s.clusters, workers);
        if (many && tiles < workers) EXPECT_LE(s.clusters, StreamKScheduler::kMaxPieces * tiles);
        if (!many || tiles >= workers) EXPECT_EQ(s.clusters, workers);
        std::map<int, int> pieces;  // split tile → workers that hold a piece of it
        for (const auto& [tile, list] : w.contributors) pieces[tile] = static_cast<int>(list.size()) + 1;
        for (const auto& [tile, n] : pieces) EXPECT_LE(n, StreamKScheduler::kMaxPieces + 1) << "tile " << tile;
        EXPECT_EQ(static_cast<int64_t>(w.unit_owner.size()), int64_t{tiles} * kt);
        for (const auto& [tile, list] : w.contributors) {
          ASSERT_TRUE(w.owner.count(tile)) << "split tile " << tile << " has no owner";
          const int j = w.owner.at(tile);
          std::vector<int> expect;
          for (int c = j + 1; c <= s.last_contributor(j, tile); ++c) expect.push_back(c);
          EXPECT_EQ(list, expect) << "tile " << tile;
        }
        for (const auto& [tile, j] : w.owner) EXPECT_TRUE(w.contributors.count(tile)) << tile;
      }
}

TEST(StreamKScheduler, SplitsOnlyWhenTheIdleTailPaysForTheFixUp) {
  // 8192³ with 256×256 cluster tiles on 66 clusters: 1024 = 15·66 + 34 tiles of 128 K-tiles; the 34 are split.
  const auto s = StreamKScheduler::make(1024, 128, 66);
  EXPECT_EQ(s.sk_tiles, 34);
  for (int j = 0; j < 66; ++j) {
    const int64_t units = s.sk_begin(j + 1) - s.sk_begin(j);
    EXPECT_GE(units, 34 * 128 / 66);
    EXPECT_LE(units, 34 * 128 / 66 + 1);
  }
  // 4096³: 256 = 3·66 + 58 tiles of 64: the idle tail (7.8 K-tiles per worker) is less than twice the fix-up.
  EXPECT_EQ(StreamKScheduler::make(256, 64, 66).sk_tiles, 0);
  EXPECT_EQ(StreamKScheduler::make(264, 64, 66).sk_tiles, 0);  // whole waves: nothing to balance
  EXPECT_EQ(StreamKScheduler::make(60, 64, 66).sk_tiles, 0);   // one partial wave, short K: not worth it
  EXPECT_EQ(StreamKScheduler::make(36, 256, 66).sk_tiles, 36);  // 1536²×16384: 36 tiles on 66 workers, long K
  // One partial wave of few tiles: each is cut into up to kMaxPieces pieces, one worker each.
  EXPECT_EQ(StreamKScheduler::make(20, 256, 66).sk_tiles, 20);  // 0.3 of a tile a worker, all 66 workers
  EXPECT_EQ(StreamKScheduler::make(20, 256, 66).clusters, 66);
  EXPECT_EQ(StreamKScheduler::make(16, 224, 66).sk_tiles, 16);  // 256×4096×14336: 16 tiles, 5 pieces each
  EXPECT_EQ(StreamKScheduler::make(0, 64, 66).sk_tiles, 0);     // nothing to do
  const auto few = StreamKScheduler::make(4, 128, 66);          // 256×1024×8192: 4 tiles, 8 pieces each
  EXPECT_EQ(few.clusters, 32);
  EXPECT_EQ(few.sk_tiles, 4);
  EXPECT_EQ(StreamKScheduler::make(4, 128, 66, 0).last_contributor(0, 0), 7);  // the owner adds 7 partials
  // Without many pieces (two rows of cluster tiles: B is read twice), the half-a-tile rule as before.
  EXPECT_EQ(StreamKScheduler::make(20, 256, 66, kStreamKFixupUnits, false).sk_tiles, 0);
  EXPECT_EQ(StreamKScheduler::make(28, 296, 66, kStreamKFixupUnits, false).sk_tiles, 0);  // 512×3584×18944
  EXPECT_EQ(StreamKScheduler::make(36, 256, 66, kStreamKFixupUnits, false).sk_tiles, 36);
  // 8192×14336×4096: 1792 = 27·66 + 10; 10 tiles would give 9.7 K-tiles a worker, so one whole wave joins.
  EXPECT_EQ(StreamKScheduler::make(1792, 64, 66).sk_tiles, 76);
  // 3072×3072×4096 (the GPU test's shape): 144 = 2·66 + 12; 12 tiles are too few, one whole wave joins.
  EXPECT_EQ(StreamKScheduler::make(144, 64, 66).sk_tiles, 78);
  // Time estimates in tile times: whole waves, or the even share plus the fix-up.
  EXPECT_DOUBLE_EQ(StreamKScheduler::make(144, 48, 66).tile_times(), 3.0);  // 3072³: 2.18 waves → 3
  EXPECT_NEAR(StreamKScheduler::make(1024, 128, 66).tile_times(), 1024.0 / 66 + 20.0 / 128, 1e-9);
  // With no fix-up cost every partial wave is split.
  EXPECT_EQ(StreamKScheduler::make(256, 64, 66, /*fixup_units=*/0).sk_tiles, 58);
}

// The small-M kernel's token tile above 64 tokens (small_m::fitted_tokens), on the H200's 132 SMs: the tile that
// leaves the busiest SM the fewest token columns, ties to the wider one, 128 beyond three 96-token tiles.
TEST(SmallMTokens, FitsTheTokenTileToTheTokensAndTheSms) {
  struct Case {
    int64_t M, N, K;
    int want;
  };
  const std::vector<Case> cases = {
      {96, 5120, 5120, 96},    // one tile of 96 against 128: a quarter of the columns less
      {192, 3584, 3584, 96},   // two of 96 (56 tiles, split 2) against two of 128
      {192, 5120, 5120, 64},   // three of 64: 120 tiles fill the SMs without a split
      {288, 4096, 4096, 96},   // three of 96: 96 tiles; 64 would take two waves
      {128, 4096, 4096, 128},  // a tie with 64 (split 4 against split 2): the wider tile
      {384, 3584, 3584, 128},  // four tiles of 96 would re-read each weight tile four times
      {640, 9216, 3072, 128},
  };
  for (const Case& c : cases)
    EXPECT_EQ(hopper::small_m::fitted_tokens(c.M, c.K, (c.N + 127) / 128, 132), c.want) << c.M << "x" << c.N << "x" << c.K;
}
