// best's rules on the H200's 132 SMs, without a GPU: the cost model's pick (family and tile) for the shapes whose
// rule was decided by a measurement (the comments in src/hopper/best.cu and families.hpp say which run). The GPU tests
// check the same picks in the launch trace where the GPU has 132 SMs; these run in CI.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "hopper/families.hpp"
#include "runtime/runtime.hpp"

using namespace ladder;

namespace {
struct Pick {
  int64_t M, N, K;
  const char* want;
  const char* why;
};

detail::Problem problem(int64_t M, int64_t N, int64_t K) {
  detail::Problem p{};
  p.M = M, p.N = N, p.K = K, p.lda = K, p.ldb = K, p.ldd = N;
  return p;  // null pointers: 16-byte aligned, so TMA reads and stores them
}

// The H200's SM count for each test, the device's again after; LADDER_TUNE (a tuning run's forced picks) skips them.
class BestModel : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const char* tune = std::getenv("LADDER_TUNE"); tune != nullptr && *tune != '\0')
      GTEST_SKIP() << "LADDER_TUNE is set (" << tune << "): best's picks are forced";
    detail::set_sm_count_for_tests(132);
  }
  void TearDown() override { detail::set_sm_count_for_tests(0); }
};

void expect_picks(const std::vector<Pick>& picks) {
  for (const Pick& c : picks)
    EXPECT_EQ(hopper::best_model_pick(problem(c.M, c.N, c.K)), c.want) << c.M << "x" << c.N << "x" << c.K << ": " << c.why;
}
}  // namespace

// Small M: swapped operands and the narrowest token tile (one warpgroup of 64 weight rows) up to 32 tokens.
TEST_F(BestModel, DecodeTakesSmallM) {
  expect_picks({{1, 4096, 4096, "small_m 64x8", "the narrowest token tile"},
                {16, 1024, 8192, "small_m 64x16", ""},
                {32, 14336, 4096, "small_m 64x32", "the fitted tile only from 33 tokens (a tie at 32)"}});
}

// 33-64 tokens of a plain GEMM with K >= 4096: the 1-CTA fitted cooperative tile where one wave fills >= 95 % of
// the SMs (twenty-eighth session); not with a fused epilogue, a shorter K, a narrow fitted tile or several waves.
TEST_F(BestModel, FittedTileFrom33Tokens) {
  expect_picks({{64, 14336, 4096, "coop_fit 128x112 cluster 1", "128 tiles of 112"},
                {40, 28672, 4096, "coop_fit 128x224 cluster 1", "128 tiles of 224"},
                {64, 28672, 8192, "coop_fit 128x224 cluster 1", ""},
                {40, 28672, 1032, "small_m 128x64", "K < 4096 was not measured"},
                {64, 8192, 8192, "small_m 128x64", "the fitted tile would be 128x64: lost"},
                {64, 128256, 4096, "small_m 128x64", "its waves are 87 % full"},
                {64, 57344, 4096, "small_m 128x64", "two waves were not measured"}});
  detail::Problem biased = problem(64, 14336, 4096);
  float bias_storage = 0;
  biased.ep.bias = &bias_storage;
  EXPECT_FALSE(biased.ep.plain());
  EXPECT_EQ(hopper::best_model_pick(biased), "small_m 128x64") << "a fused epilogue keeps small-M below 65 tokens";
}

// Where small-M's one-wave 64×64 tiles are bound by what the SMs take in (>= 80 % of a wave, M >= N/2, K > 3072):
// 128 weight rows × 64 tokens (twenty-eighth session); elsewhere the 64×64 tiles stay.
TEST_F(BestModel, IntakeBoundTokensTakeTheWideTile) {
  expect_picks({{512, 1024, 4096, "small_m 128x64", "12.8 against 14.7 us on the H200"},
                {500, 1000, 4000, "small_m 128x64", ""},
                {448, 1024, 4096, "small_m 64x64", "M < N/2"},
                {384, 1024, 4096, "small_m 64x64", "96 tiles: under 80 % of a wave"},
                {512, 1024, 2048, "small_m 64x64", "a short K lost"},
                {128, 4096, 4096, "small_m 64x64", "fewer tokens than half the rows"}});
}

// The few-tile and prefill shapes' families (the README's few-tile section), unchanged by the rules above.
TEST_F(BestModel, FewTileShapesKeepTheirFamilies) {
  expect_picks({{128, 14336, 4096, "coop_fit 128x112 cluster 1", "65-128 tokens"},
                {256, 8192, 8192, "pingpong_deep", ""},
                {512, 4096, 4096, "pingpong_deep", ""},
                {512, 14336, 4096, "coop_fit 128x224 cluster 2", "two full waves"},
                {1536, 1536, 4096, "coop_fit 128x144 cluster 2", "cuBLAS's own decomposition"},
                {2560, 2560, 2560, "coop_fit 128x208 cluster 2", ""}});
}

// The earlier sessions' rules, as the GPU tests pin them in the launch trace (SmallM.FittedTokenTilesMatchReferences,
// CoopFit.BestPicksTheFittedTile, StreamK.OneCtaTileMatchesReferences) and the comments in best.cu and families.hpp
// give their measurements: small-M's fitted token tiles, the narrow layers' 64×64 tiles, the 2-CTA fitted tile from
// K = 3072, the 1-CTA 128×224 tile at 3 blocks of 128 rows, and the 1-CTA 128×256 stream-K tile.
TEST_F(BestModel, EarlierRulesHold) {
  expect_picks({{96, 5120, 5120, "small_m 128x96", "65-96 tokens in one 96-token tile"},
                {192, 3584, 3584, "small_m 128x96", "two 96-token tiles"},
                {192, 5120, 5120, "small_m 128x64", "more tiles where 96 and 128 cannot fill the SMs"},
                {128, 1024, 4096, "small_m 64x64", "a layer of at most 1/16 of the SMs in 128-row tiles"},
                {192, 9216, 3072, "coop_fit 128x144 cluster 2", "one wave from K = 3072, even blocks"},
                {512, 9216, 3072, "coop_fit 128x144 cluster 2", "two waves"},
                {384, 9216, 3072, "coop_fit 128x224 cluster 1", "three blocks of 128 rows"},
                {384, 28672, 8192, "coop1", "three blocks with 9/10 of a wave: coop1 in place of the 128x224 tile"},
                {100, 34000, 1024, "coop1", "one tile row with a wave of 128x256 tiles"},
                {600, 6144, 1032, "coop1", "five blocks, 9/10 of a wave"}});
}
