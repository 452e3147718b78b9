#!/usr/bin/env python3
"""Group ncu PC-sampling stall samples (SASS source CSV) by code region, per kernel.
Regions are SASS index ranges (index = row number in the CSV after the header, as printed by dump_sass.py),
chosen by reading the SASS (see README.txt in this folder for how each boundary was identified)."""
import os, sys
from collections import defaultdict
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dump_sass import load, STALLS
L = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "logs")

R = {
 "ncu1w/fit": [
  ("prologue: mbarrier init (thread 0), cluster.sync (MEMBAR.GPU+UCGABAR), CCTL.IVALL, ACQBULK", [(0, 91)]),
  ("consumer setup: setmaxnreg.inc, tile scheduler (int divides)", [(92, 353)]),
  ("consumer mainloop: full-bar wait, 4 HGMMA, DEPBAR<=1, empty arrive", [(354, 455), (2298, 2301)]),
  ("consumer after last HGMMA: DEPBAR<=0, last release", [(456, 482)]),
  ("epilogue: register writeback, 72 bounds-checked STG.E/thread", [(483, 2005)]),
  ("producer setup: setmaxnreg.dec, scheduler (thread 0)", [(2006, 2224)]),
  ("producer loop: empty-bar wait, 2 UTMALDG (elect loop)", [(2225, 2288), (2302, 2305)]),
  ("final cluster.sync (MEMBAR.GPU, ERRBAR, UCGABAR_WAIT): all 12 warps", [(2289, 2297)]),
 ],
 "ncu1w/cublas": [
  ("prologue: consumer WGs (parallel mbarrier init, UCGABAR_ARV..WAIT split, setmaxnreg, scheduler)", [(0, 146)]),
  ("prologue: producer WG (its mbarrier init, UCGABAR_ARV/WAIT, setmaxnreg.dealloc)", [(927, 1060)]),
  ("consumer mainloop: 2x4 HGMMA (2 accumulators), DEPBAR<=0, full-bar wait (+NANOSLEEP)", [(147, 203), (827, 897)]),
  ("consumer tile setup (2nd loop copy)", [(898, 926)]),
  ("epilogue: DEPBAR, F2FP, STSM, UTMASTG x12", [(204, 754)]),
  ("2nd consumer WG: ping-pong partner waiting its turn (NANOSLEEP) + next tile", [(755, 826)]),
  ("producer loop: empty-bar wait, 2 UTMALDG.3D, tile-info STS, producer tail", [(1061, 1221)]),
  ("idle producer-WG warps / EXIT", [(1222, 1277)]),
 ],
 "ncukv/wg1": [
  ("prologue: mbarrier init (thread 0), __syncthreads", [(0, 172)]),
  ("consumer mainloop: full-bar wait, 4 HGMMA 64x64, DEPBAR<=1, empty arrive", [(173, 260), (2248, 2251)]),
  ("after last HGMMA: DEPBAR<=0, named barrier, fp32 partial -> SMEM (STS)", [(261, 339)]),
  ("producer: griddepcontrol.wait, loop of 3 UTMALDG (elect loops)", [(340, 839)]),
  ("CTA barrier before reduce, ACQBULK, reduce setup (int divides)", [(840, 932)]),
  ("reduce+store: LD.E.128 partial, F2FP, STG.E.64", [(933, 1572)]),
  ("exit", [(2202, 2247)]),
 ],
 "ncukv/auto": [
  ("prologue: mbarrier init (thread 0), __syncthreads", [(0, 177)]),
  ("consumer mainloop: full-bar wait, 4 HGMMA 64x128, DEPBAR<=1, empty arrive", [(178, 259), (2268, 2271)]),
  ("after last HGMMA: DEPBAR<=0, named barrier, fp32 partial -> SMEM (STS)", [(260, 406)]),
  ("producer: griddepcontrol.wait, loop of 3 UTMALDG (elect loops)", [(407, 903)]),
  ("cluster.sync #1 (MEMBAR.GPU, UCGABAR), ACQBULK, reduce setup", [(904, 997)]),
  ("cluster reduce (DSMEM LD.E.128 x3 ranks) + STG.E.64", [(998, 1613)]),
  ("final cluster.sync (MEMBAR.GPU, UCGABAR_WAIT)", [(2223, 2267)]),
 ],
 "ncukv/cublas": [
  ("prologue: consumer WGs (parallel mbarrier init, UCGABAR split, scheduler)", [(0, 153)]),
  ("prologue: producer WG (mbarrier init, UCGABAR_ARV/WAIT)", [(538, 691)]),
  ("consumer mainloop: full-bar wait, 4 HGMMA 64x64, DEPBAR<=1, empty arrive", [(154, 195), (484, 531)]),
  ("epilogue: DEPBAR, F2FP, STSM, UTMASTG x2", [(196, 403)]),
  ("2nd consumer WG: ping-pong partner waiting its turn (NANOSLEEP) + next tile", [(404, 483)]),
  ("producer loop: empty-bar wait, 2 UTMALDG.3D (1 multicast), producer tail", [(692, 812)]),
  ("idle producer-WG warps / EXIT", [(813, 910)]),
 ],
}

def top(d, n=4):
    items = sorted(d.items(), key=lambda kv: -kv[1])
    tot = sum(d.values()) or 1
    return ", ".join(f"{k} {v:.0f} ({100*v/tot:.0f}%)" for k, v in items[:n] if v > 0)

def run(key):
    rows = load(os.path.join(L, key + "-sass.csv.gz"))
    total = sum(r["samp"] for r in rows)
    print(f"\n=== {key}: {len(rows)} SASS instructions, {total:.0f} samples, {sum(r['exe'] for r in rows):.0f} warp-level instructions executed")
    seen = set()
    for name, ranges in R[key]:
        idx = [i for a, b in ranges for i in range(a, b + 1) if i < len(rows)]
        seen.update(idx)
        s = sum(rows[i]["samp"] for i in idx)
        ex = sum(rows[i]["exe"] for i in idx)
        st = defaultdict(float)
        for i in idx:
            for k in STALLS: st[k[6:]] += rows[i][k]
            st["gmma/wgarrive"] += rows[i]["other"]
        print(f"  {s:6.0f} {100*s/total:5.1f}%  exec {ex:9.0f}  {name}\n{'':24s}{top(st)}")
    rest = [i for i in range(len(rows)) if i not in seen]
    s = sum(rows[i]["samp"] for i in rest)
    print(f"  {s:6.0f} {100*s/total:5.1f}%  exec {sum(rows[i]['exe'] for i in rest):9.0f}  (unassigned)")
    hot = sorted(range(len(rows)), key=lambda i: -rows[i]["samp"])[:12]
    print("  hottest instructions:")
    for i in hot:
        e = rows[i]
        st = {k[6:]: e[k] for k in STALLS}; st["gmma/wgarrive"] = e["other"]
        print(f"    [{i:4d}] {e['samp']:5.0f} ({100*e['samp']/total:4.1f}%) {e['src'][:60]:60s} {top(st, 3)}")

if __name__ == "__main__":
    for k in (sys.argv[1:] or list(R)): run(k)
