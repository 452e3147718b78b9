import csv,gzip,sys
src=sys.argv[1]; out=sys.argv[2]
rows=list(csv.reader(gzip.open(src,'rt')))
name=rows[0][1]; hdr=rows[1]; data=rows[2:]
ix={h:i for i,h in enumerate(hdr)}
stalls=[h for h in hdr if h.startswith('stall_') and 'Not Issued' not in h]
base=int(data[0][0],16)
tot=sum(int(r[ix['# Samples']]) for r in data)
with open(out,'w') as f:
  f.write(f"# {name}\n# total samples {tot}\n")
  for r in data:
    off=int(r[0],16)-base
    s=int(r[ix['# Samples']]); ex=r[ix['Instructions Executed']]
    st=sorted(((int(r[ix[h]]),h[6:]) for h in stalls if r[ix[h]] not in ('','-') and int(r[ix[h]])>0),reverse=True)
    sts=' '.join(f"{n}:{c}" for c,n in st[:3])
    f.write(f"{off:05x} {s:5d} {ex:>8} {r[1].strip():70s} {sts}\n")
