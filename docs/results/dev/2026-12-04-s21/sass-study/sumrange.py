import sys
sys.path.insert(0,'/work/main/docs/results/dev/2026-12-03-s20/call1/analysis')
from dump_sass import load, STALLS
rows = load(sys.argv[1])
for rng in sys.argv[2:]:
    a,b = map(int, rng.split('-'))
    s = sum(r['samp'] for r in rows[a:b+1]); 
    st = {k: sum(r[k] for r in rows[a:b+1]) for k in STALLS}
    oth = sum(r['other'] for r in rows[a:b+1])
    top = sorted(st.items(), key=lambda x:-x[1])[:5]
    print(f"{rng}: samples {int(s)}  " + " ".join(f"{k[6:]}:{int(v)}" for k,v in top if v) + (f" gmma/wgarr:{int(oth)}" if oth else ""))
