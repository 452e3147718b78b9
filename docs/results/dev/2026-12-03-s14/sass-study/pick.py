import re,sys
lines=open('full64.txt').read().split('\n')
parts={'ours':lines[14:5113],'nvjet':lines[5113:]}
keys=["Duration","Elapsed Cycles","SM Frequency","DRAM Throughput","Memory Throughput","Mem Busy","Max Bandwidth","L2 Hit Rate","L2 Hit Rate For Loads","L1/TEX Hit Rate","Achieved Occupancy","Theoretical Occupancy","Registers Per Thread","Dynamic Shared Memory Per Block","Cluster Size","Grid Size","Block Size","Executed Ipc Active","Issued Warp Per Scheduler","Warp Cycles Per Issued Instruction","Executed Instructions","Issued Instructions","L2 Compression","dram__bytes_read.sum ","lts__t_sectors_srcunit_tex_op_read.sum ","lrc__xbar2gpc_sectors_op_read","lts__t_sectors.sum ","lts__t_requests","lrc__","dram__bytes_read.sum.per_second"]
import collections
for name,L in parts.items():
  print("=====",name)
  seen=set()
  for l in L:
    s=l.strip()
    for k in keys:
      if s.startswith(k) and (k,s) not in seen:
        key=re.split(r'\s{2,}',s)[0]
        if key in seen: continue
        seen.add(key); print("  ",s[:150])
