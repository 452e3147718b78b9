// The small-M kernel's pushed split reduction (LADDER_TUNE post=3), replayed on the CPU with the kernel's own
// arithmetic (device/split_reduce.hpp): every sender's copies of every owner's groups, checked to stay inside the
// sender's slot, to add up to the bytes the owner's barrier expects, and to put each group where the owner reads it.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "device/split_reduce.hpp"

using ladder::PushSlots;

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
