// Tuning knobs: every environment setting the library reads, read once, in one place. They exist for tuning
// and diagnosis (`ladder bench --tune`, sanitizer runs), never for correctness; the default is "auto".
//
//   LADDER_TUNE="kernel=small_m,split=8"   force best's kernel family and/or the split (see ladder list);
//                                           also cps=<CTAs per SM>, stages=<ring depth>, fixup=<K-tiles>,
//                                           wg=<consumer warpgroups at 33-128 tokens; 1: 64-row tiles at any M>,
//                                           tok=64|96|128 (small-M's token tile of 128 weight rows above 64 tokens),
//                                           l2promo=<TMA L2 promotion of the operand maps: 0, 64, 128, 256 bytes>,
//                                           l2evict=0|1 (small-M weights' loads hint L2 evict-first),
//                                           wbox=1|2 (small-M's weight boxes a stage),
//                                           relax=0 (small-M's last cluster barrier with its release fence, as
//                                           before the twenty-sixth session; default 1: relaxed, measured faster),
//                                           mc=1|2 (small-M's two-consumer tiles and 64x64 tile: 1, no multicast;
//                                           2, each weight stage multicast to two token tiles wherever it can be;
//                                           the default: the two-consumer tiles where every cluster is resident,
//                                           twenty-ninth session),
//                                           resc=1 (best's cooperative 128x256 residual GEMM: a 3-stage copy that
//                                           loads the whole C before the mainloop; measured no faster, off;
//                                           where defer=2, the default, defers the residual, that runs instead),
//                                           bstatic=1 (every GEMM as if LADDER_FLAG_B_STATIC were set: a measurement
//                                           knob, wrong where the kernel before a GEMM writes its B; no faster in
//                                           the Llama model's decode, twenty-sixth session),
//                                           width=<tile width of best's coop_fit: one of the compiled widths>,
//                                           fitcl=1|2 (CTAs a cluster of best's coop_fit),
//                                           xbox=1 (small-M's token box N_TOK rows even where M < N_TOK),
//                                           post=0 (small-M's reduce as before the fourteenth session: the
//                                           fused copy's per-element epilogue and cluster barriers at split 1;
//                                           coop_fit's fused copy for a plain GEMM too); post=2 (small-M's plain
//                                           copy with the cluster barriers at split 1: racecheck's probe);
//                                           post=1 (small-M's owners pull the partials at any tile, as before the
//                                           twenty-sixth session), post=3 (the partials pushed to their owners by
//                                           bulk copy wherever split > 1 and the slots fit), post=4 (the default:
//                                           pushed only with token tiles of <= 16, where it measured faster),
//                                           defer=0 (the cooperative 128x256 tile's consumers apply GELU,
//                                           SiLU, SwiGLU and beta·C after their mainloop: no epilogue warps),
//                                           defer=1 (the activations in the epilogue warps, beta·C in the consumers,
//                                           as before the twenty-seventh session; default 2: beta·C without an
//                                           activation too, C by TMA into two 64x64 blocks: measured faster),
//                                           wb=0 (the cooperative register writeback stores element
//                                           pairs with per-element checks, as before the twentieth session),
//                                           pdl=0 (best launches every kernel without programmatic dependent
//                                           launch: the A/B of what PDL gains back to back)
//   LADDER_TRACE=1                          print each launch's kernel, grid and split to stderr
//
// An invalid value is an error (ladder::Error, LADDER_ERROR_INVALID_ARGUMENT) at the first GEMM call.
#pragma once
#include <string>
#include <string_view>

namespace ladder::detail {

struct Tuning {
  std::string kernel;  // "" = chosen by the cost model; else a family name best knows (plan.kernel)
  int split = 0;       // 0 = auto; else the small-M kernel's K split (CTAs per cluster)
  int fixup = -1;      // stream-K fix-up cost in K-tiles; -1 = the measured default
  int ctas_per_sm = 0;  // small-M: CTAs per SM the ring depth is sized for (0 = auto)
  int stages = 0;       // small-M: ring depth (0 = fill the SMEM)
  int consumers = 0;    // small-M: consumer warpgroups (weight rows / 64) for M <= 128 (0 = auto)
  int tokens = 0;       // small-M: the token tile (N_TOK) of the 128-row tiles above 64 tokens: 64, 96 or 128 (0 = auto)
  int l2evict = -1;     // small-M: the weights' TMA loads hint L2 evict-first: 1 always, 0 never, -1 = auto
  int xbox = 0;         // small-M: 1 = the token box is always N_TOK rows (the A/B of the M-row box); 0 = auto
  int post = 4;         // small-M: 0 = the reduce before the fourteenth session (fused copy, cluster barriers); 1 = pulled; 2 = plain copy, cluster barriers; 3 = as 1, pushed at split > 1; 4 = as 1, pushed at split > 1 with token tiles of <= 16 (default)
  int defer = 2;        // the cooperative 128x256 tile: 2 = an activation or the residual in epilogue warps beside the mainloop (default); 1 = the activation only; 0 = neither
  int wb = 1;           // the cooperative register writeback: 1 = 8-byte stores inside D; 0 = element pairs
  int pdl = 1;          // best: 1 = every kernel a programmatic dependent launch (h13's change); 0 = none
  int width = 0;        // best's coop_fit: the tile width (0 = the cost model's; else one compiled for the cluster)
  int fit_cluster = 0;  // best's coop_fit: CTAs a cluster (0 = the cost model's; 1 or 2)
  int wbox = 0;         // small-M: the weights' TMA boxes a stage, 1 (one W_ROWS-row box) or 2 (two halves); 0 = auto
  int mcast = 0;        // small-M: token tiles a weight stage is multicast to (1 or 2); 0 = auto (where every cluster is resident)
  int relax = 1;        // small-M: 1 = the cluster barrier before exit arrives relaxed (no release fence; default); 0 = cluster.sync()
  int resc = 0;         // best's cooperative residual GEMM (beta·C, no activation): 1 = the 3-stage copy with the whole C early
  int bstatic = 0;      // 1 = every GEMM's B taken as static (LADDER_FLAG_B_STATIC): small-M loads weights before the wait
  int l2promo = -1;     // the TMA L2 promotion in bytes (0, 64, 128, 256) of small-M's weights and, when set, of
                        // the tile kernels' A and B; -1 = auto (128 for small-M at <= 64 tokens, else 256)
  bool trace = false;
};

// The settings in force: LADDER_TUNE / LADDER_TRACE as read at the first call, unless set_tuning replaced them.
const Tuning& tuning();
// Parses "key=value,key=value" (keys: kernel, split, fixup, cps, stages, wg, tok, width, fitcl, xbox, post, defer, wb, pdl, l2promo, wbox, l2evict, relax, mc, resc, bstatic, trace); throws ladder::Error on a bad spec.
Tuning parse_tuning(std::string_view spec);
// Replaces the settings (the CLI's --tune, tests). Not for use while GEMMs are being launched on other threads.
void set_tuning(const Tuning& t);

}  // namespace ladder::detail
