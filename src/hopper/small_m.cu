// The small-M family's entry points (src/hopper/families.hpp), compiled once for h12, h13 and best.
#include "hopper/small_m.cuh"

namespace ladder::hopper::small_m {

void launch(const detail::Problem& p, cudaStream_t stream, bool pdl, const char* step_id) {
  dispatch(p, [&]<class Cfg>() { launch_cfg<Cfg>(p, stream, make_plan<Cfg>(p, step_id), pdl, step_id); });
}

bool grid_fits(const detail::Problem& p) { return (p.out_cols() + 31) / 32 <= 65535; }

std::string check(const detail::Problem& p) {
  if (auto e = detail::require_tma_rows(p); !e.empty()) return e;
  if (p.ep.swiglu && p.N % 2 != 0) return "SwiGLU needs an even N (B = [gate; up])";
  if (!grid_fits(p)) return "N must be at most 2097120 (65535 row blocks)";
  return {};
}

std::string describe(const detail::Problem& p, bool pdl) {
  const Plan pl = plan(p, "small-M");
  return "small-M: swapped operands, " + std::to_string(64 * pl.consumers) + " weight rows x " +
         std::to_string(pl.n_tok) + " tokens per tile, K split " + std::to_string(pl.split) +
         " (cluster, DSMEM reduction), " + std::to_string(pl.stages) + "-stage ring, " + std::to_string(pl.ctas) +
         " CTAs (" + std::to_string(pl.resident) + " resident)" + (pdl ? ", programmatic dependent launch" : "");
}

}  // namespace ladder::hopper::small_m
