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
