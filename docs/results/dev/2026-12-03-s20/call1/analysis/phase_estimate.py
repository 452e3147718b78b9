#!/usr/bin/env python3
"""Rough time split of the math warpgroup(s) of each kernel, from regions.py sample counts.
Method: a warp's PC-sample count is proportional to its resident time; for the warps doing the MMAs
(ours: both consumer WGs; cuBLAS: its one active consumer WG, the other WG only sleeps), share of that
role's samples per phase x SM Active Cycles. Shared (all-warp) regions are apportioned by warp count.
Uncertainty: sampling-weight differences between roles/sleeping warps; treat as +-10 % of SM active."""
import os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from regions import R, L
from dump_sass import load

def samples(key):
    rows = load(os.path.join(L, key + "-sass.csv.gz"))
    out = {}
    for name, ranges in R[key]:
        out[name] = sum(rows[i]["samp"] for a, b in ranges for i in range(a, b + 1) if i < len(rows))
    return out, sum(r["samp"] for r in rows)

CASES = {  # key: (SM active cycles, SM GHz, {phase: [(region prefix, weight)]})
 "ncu1w/fit": (51796, 1.68, {
   "prologue+setup": [("prologue", 8/12), ("consumer setup", 1), ("producer setup", 0)],
   "mainloop (incl. fill)": [("consumer mainloop", 1)],
   "after last HGMMA + epilogue": [("consumer after last HGMMA", 1), ("epilogue", 1)],
   "final cluster.sync": [("__rest__", 1)]}),
 "ncu1w/cublas": (42482, 1.66, {
   "prologue+setup": [("prologue: consumer WGs", 0.5)],
   "mainloop (incl. fill)": [("consumer mainloop", 1)],
   "after last HGMMA + epilogue": [("epilogue", 1)]}),
 "ncukv/wg1": (28424, 1.79, {
   "prologue+setup": [("prologue", 4/5)],
   "mainloop (incl. fill)": [("consumer mainloop", 1)],
   "after last HGMMA + epilogue": [("after last HGMMA", 1), ("CTA barrier before reduce, ACQBULK, reduce setup (int divides)", 4/5), ("reduce+store", 4/5), ("exit", 4/5)]}),
 "ncukv/cublas": (15571, 1.77, {
   "prologue+setup": [("prologue: consumer WGs", 0.5)],
   "mainloop (incl. fill)": [("consumer mainloop", 1)],
   "after last HGMMA + epilogue": [("epilogue", 1)]}),
}
for key, (active, ghz, phases) in CASES.items():
    s, tot = samples(key)
    vals = {}
    for ph, parts in phases.items():
        v = 0
        for pref, w in parts:
            if pref == "__rest__": continue
            v += w * sum(x for k, x in s.items() if k.startswith(pref))
        vals[ph] = v
    if key == "ncu1w/fit":  # consumers are 8 of 12 warps, all resident to the end: the rest of their 2/3 share
        vals["final cluster.sync"] = tot * 8 / 12 - sum(v for k, v in vals.items() if k != "final cluster.sync")
    role = sum(vals.values())
    print(f"\n{key}: math-WG samples {role:.0f} of {tot:.0f}; SM active {active} cycles at {ghz} GHz")
    for ph, v in vals.items():
        cyc = active * v / role
        print(f"  {ph:30s} {v:7.0f} samples {100*v/role:5.1f}%  ~{cyc:7.0f} cycles  ~{cyc/ghz/1000:5.2f} us")
