// The small-M kernel's split reduction with the partials pushed to their owners (LADDER_TUNE post=4, the default at
// <= 16 tokens; post=3 at any tile): which groups of its partial tile each CTA of a cluster copies to which owner,
// where they land in the owner's receive area, and how many bytes each owner's receive barrier expects. Plain
// arithmetic shared by the kernel, ladder_cluster_probe's push and a CPU test that replays every copy
// (tests/test_split_reduce.cpp).
#pragma once
#include <cstdint>

#include "device/descriptors.hpp"  // LADDER_HD

namespace ladder {

// A tile's reduction over the `split` CTAs of a cluster. The partial tile holds `items` groups of 4 floats (token
// row m = item / groups, group g = item % groups, at float m·stride + 4g of each CTA's partial; with `up`, SwiGLU's
// up columns of the group a fixed offset further on). CTA q owns items [lo(q), hi(q)); every CTA copies each owner
// those items of its own partial into the owner's slot for it, one copy a run of whole groups in one token row.
struct PushSlots {
  int items, groups, split;
  bool up;

  LADDER_HD constexpr int lo(int q) const { return q * items / split; }
  LADDER_HD constexpr int hi(int q) const { return (q + 1) * items / split; }
  // A slot (one a sender, in sender order): the owner's groups packed, 4 floats each, then their up columns.
  LADDER_HD constexpr int slot_items() const { return (items + split - 1) / split; }
  LADDER_HD constexpr int slot_floats() const { return slot_items() * 4 * (up ? 2 : 1); }
  // Float offsets within a slot of owner q's item `it`: its 4 gate (or only) floats, and its up columns'.
  LADDER_HD constexpr int at(int q, int it) const { return 4 * (it - lo(q)); }
  LADDER_HD constexpr int up_at(int q, int it) const { return 4 * (slot_items() + it - lo(q)); }
  // The run of owner q's groups that starts at item `it`: token row m, first group g, n groups (n >= 1).
  LADDER_HD constexpr void run(int q, int it, int& m, int& g, int& n) const {
    m = it / groups;
    g = it % groups;
    n = groups - g < hi(q) - it ? groups - g : hi(q) - it;
  }
  // The bytes owner q's receive barrier expects: every sender's copies of q's items.
  LADDER_HD constexpr uint32_t bytes_to(int q) const { return static_cast<uint32_t>(split * (hi(q) - lo(q)) * 16 * (up ? 2 : 1)); }
};

}  // namespace ladder
