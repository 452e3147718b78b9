#!/usr/bin/env python3
"""Side-by-side table of selected ncu --page details metrics for the five profiled launches."""
import re, sys, os
L = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "logs")
RUNS = [("fit", "ncu1w/fit"), ("cublas1536", "ncu1w/cublas"), ("wg1", "ncukv/wg1"), ("auto", "ncukv/auto"), ("cublasKV", "ncukv/cublas")]
def parse(path):
    d = {}; order = []
    for line in open(path):
        m = re.match(r"^\s{4}(\S.*?)\s{2,}(\S+(?: \S+)?)?\s{2,}([-\d.,]+|no data)\s*$", line)
        if m:
            k = m.group(1).strip()
            if k not in d: d[k] = m.group(3); order.append(k)
    return d, order
data = {}; keys = None
for name, p in RUNS:
    data[name], o = parse(os.path.join(L, p + "-details.txt"))
    if keys is None: keys = o
WANT = ["Duration", "Elapsed Cycles", "SM Active Cycles", "SM Frequency", "Compute (SM) Throughput", "Memory Throughput",
        "SM: Pipe Tensor Cycles Active", "SM: Issue Active", "SM: Inst Executed", "SM: Pipe Alu Cycles Active", "SM: Pipe Fmaheavy Cycles Active",
        "SM: Mio2rf Writeback Active", "SM: Pipe Tma Cycles Active",
        "DRAM Throughput", "L2 Cache Throughput", "L1/TEX Cache Throughput", "L2 Hit Rate", "L1/TEX Hit Rate", "Mem Busy", "Max Bandwidth",
        "L1: Data Pipe Lsu Wavefronts", "L1: Data Bank Reads", "L1: Data Bank Writes", "L2: Lts2xbar Cycles Active",
        "Instructions Executed", "Warp Cycles Per Issued Instruction", "Issued Warp Per Scheduler",
        "Registers Per Thread", "Dynamic Shared Memory Per Block", "Block Size", "Grid Size", "Cluster Size",
        "Theoretical Occupancy", "Achieved Occupancy", "L1 Wavefronts Shared", "L2 Theoretical Sectors Global", "L1 Tag Requests Global", "# Samples"]
print(f"{'metric':42s}" + "".join(f"{n:>12s}" for n, _ in RUNS))
for k in WANT:
    print(f"{k:42s}" + "".join(f"{data[n].get(k, '-'):>12s}" for n, _ in RUNS))
# warp state (all cycles) table: 'Stall X' rows
print("\nWarp State (cycles per issued instruction)")
stall_keys = [k for k in keys if k.startswith("Stall ") or k == "Selected"]
for n, _ in RUNS:
    for k in data[n]:
        if (k.startswith("Stall ") or k == "Selected") and k not in stall_keys: stall_keys.append(k)
for k in stall_keys:
    print(f"{k:42s}" + "".join(f"{data[n].get(k, '-'):>12s}" for n, _ in RUNS))
print("\nPC-sampling totals (All Samples) by reason")
samp = sorted({k for n, _ in RUNS for k in data[n] if k.startswith("smsp__pcsamp_warps_issue_stalled_") and not k.endswith("_not_issued")})
for k in samp:
    print(f"{k[33:]:42s}" + "".join(f"{data[n].get(k, '-'):>12s}" for n, _ in RUNS))

print("\nDerived: tensor-active cycles (= Pipe Tensor % x Elapsed), non-tensor cycles, and top warp-state shares")
def f(x): return float(x.replace(",", ""))
for n, _ in RUNS:
    d = data[n]
    el, ten = f(d["Elapsed Cycles"]), f(d["SM: Pipe Tensor Cycles Active"]) / 100
    act = f(d["SM Active Cycles"])
    tot = sum(f(d[k]) for k in stall_keys if k in d)
    st = sorted(((f(d[k]), k) for k in stall_keys if k in d), reverse=True)[:4]
    print(f"{n:12s} elapsed {el:8.0f}  active {act:8.0f}  tensor {el*ten:8.0f}  elapsed-tensor {el*(1-ten):8.0f}  "
          f"CPI {tot:.2f}: " + ", ".join(f"{k.replace('Stall ','')} {v:.2f} ({100*v/tot:.0f}%)" for v, k in st))
