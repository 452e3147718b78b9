#!/usr/bin/env python3
"""Executed-instruction mix (warp-level executions, by opcode) of a SASS index range, per warp that ran it."""
import os, sys
from collections import Counter
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dump_sass import load
L = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "logs")
def mix(key, ranges, warps, label):
    rows = load(os.path.join(L, key + "-sass.csv.gz"))
    c = Counter()
    for a, b in ranges:
        for i in range(a, b + 1):
            t = rows[i]["src"].split()
            op = t[1] if t and t[0].startswith("@") else (t[0] if t else "?")
            c[op.split(".")[0]] += rows[i]["exe"]
    tot = sum(c.values())
    print(f"{key} {label}: {tot/warps:.0f} instructions per warp ({warps} warps)")
    print("   " + ", ".join(f"{k} {v/warps:.1f}" for k, v in c.most_common(16)))
mix("ncu1w/fit", [(483, 2005)], 1056, "epilogue")
mix("ncu1w/cublas", [(204, 754)], 528, "epilogue")
mix("ncu1w/fit", [(354, 455)], 1056 * 64, "mainloop body, per k-tile")
mix("ncu1w/cublas", [(147, 203), (834, 890)], 528 * 63, "mainloop body, per k-tile")
mix("ncu1w/fit", [(2225, 2288)], 132 * 64, "producer loop body, per k-tile (first-try path)")
mix("ncu1w/cublas", [(1061, 1091), (1180, 1210)], 132 * 64, "producer loop body, per k-tile")
mix("ncukv/wg1", [(753, 839)], 128 * 64, "producer loop body, per k-tile")
mix("ncukv/cublas", [(692, 724)], 128 * 64, "producer loop body, per k-tile")
mix("ncukv/wg1", [(261, 339), (840, 1572)], 640, "after-mainloop (partial->SMEM, barrier, reduce, store), per warp of 5")
mix("ncukv/cublas", [(196, 403)], 512, "epilogue")
