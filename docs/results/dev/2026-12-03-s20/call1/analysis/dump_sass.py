#!/usr/bin/env python3
"""Dump ncu SASS source CSV as readable text: idx, offset, samples, not-issued, exec count, top stalls, instruction."""
import csv, gzip, sys, os
STALLS = ["stall_barrier","stall_branch_resolving","stall_dispatch","stall_drain","stall_imc","stall_lg",
          "stall_long_sb","stall_math","stall_membar","stall_mio","stall_misc","stall_no_inst",
          "stall_not_selected","stall_selected","stall_short_sb","stall_sleep","stall_tex","stall_wait"]
def load(path):
    with gzip.open(path, 'rt') as f:
        r = list(csv.reader(f))
    hdr = r[1]; rows = []
    base = None
    for row in r[2:]:
        if len(row) < len(hdr): continue
        d = dict(zip(hdr, row))
        a = int(d["Address"], 16)
        if base is None: base = a
        def num(k):
            v = d.get(k, "0").replace(",", "")
            try: return float(v)
            except: return 0.0
        e = {"off": a - base, "src": d["Source"].strip(), "samp": num("Warp Stall Sampling (All Samples)"),
             "ni": num("Warp Stall Sampling (Not-issued Samples)"), "exe": num("Instructions Executed"),
             "thr": num("Thread Instructions Executed")}
        for s in STALLS: e[s] = num(s)
        e["other"] = e["samp"] - sum(e[s] for s in STALLS)   # gmma / warpgroup_arrive not exported as columns
        rows.append(e)
    return rows
if __name__ == "__main__":
    rows = load(sys.argv[1])
    for i, e in enumerate(rows):
        st = sorted(((e[s], s[6:]) for s in STALLS), reverse=True)
        st = " ".join(f"{n}:{int(v)}" for v, n in st if v > 0)
        if e["other"] > 0: st += f" other(gmma/wgarrive):{int(e['other'])}"
        print(f"{i:5d} {e['off']:#07x} s={int(e['samp']):5d} ni={int(e['ni']):4d} exe={int(e['exe']):8d} | {e['src']:<70s} | {st}")
