#!/usr/bin/env python3
# Protocol B without boards (issue 20): the same arrivals, lifetimes and queue (a TP replica that does not fit waits,
# retried oldest first at every departure), but GPUs fungible inside a pool: TP 4/8 need k free GPUs anywhere on the
# 64 HGX nodes (512), TP 2 on the NVLink pairs (64 GPUs) then HGX; small pods on the L4 pool (in milli-GPU), then
# pairs, then HGX; batch in the protocol's order (pairs, HGX, L4), with --batch-off-inference pairs, L4, HGX, or
# with --batch=l4,nvl,hgx in any order (that one is ACE's batch-pool rule: slicing, general, inference).
# A reference for how much of the waiting is load, not fragmentation; not a proven bound (backfilling queues are not
# monotone). Traces: simulate --generate-fleet FILE --seed N --rate R.
# --tp-only drops every pod but the TP replicas (the online counterpart of sim.WaitBound's relaxation, which knows the
# whole trace: simulate --trace fleet --wait-bound).
# usage: bench/fleet-fluid.py [--batch-off-inference | --batch=POOL,POOL,...] [--tp-only] TRACE.csv...
import csv, heapq, sys
BATCH = ['nvl', 'l4', 'hgx'] if '--batch-off-inference' in sys.argv else ['nvl', 'hgx', 'l4']
for a in sys.argv:
    if a.startswith('--batch='): BATCH = a[len('--batch='):].split(',')
def run(path, hgx=512, nvl=64, l4=64):
    pods=[r for r in csv.DictReader(open(path)) if '--tp-only' not in sys.argv or r['kind'].startswith('tp')]
    free={'hgx':hgx,'nvl':nvl,'l4':l4*1000}
    dep=[]; waiting=[]; tp=0; waited=0; waits=[]
    def place(p):
        k=int(p['gpus']); kind=p['kind']
        if kind.startswith('tp'):
            order=['nvl','hgx'] if k==2 else ['hgx']
            for pool in order:
                if free[pool]>=k: free[pool]-=k; return (pool,k)
            return None
        m=int(p['milli'])*k
        if kind=='batch':
            for pool in BATCH:
                amt = m if pool=='l4' else k
                if free[pool]>=amt: free[pool]-=amt; return (pool,amt)
            return 'fail'
        if free['l4']>=m: free['l4']-=m; return ('l4',m)
        for pool in ['nvl','hgx']:
            if free[pool]>=k: free[pool]-=k; return (pool,k)
        return 'fail'
    for p in pods:
        t=float(p['arrival_s'])
        while dep and dep[0][0]<=t:
            dt,pool,amt=heapq.heappop(dep); free[pool]+=amt
            for w in list(waiting):
                r=place(w)
                if r and r!='fail':
                    waiting.remove(w); waits.append(dt-float(w['arrival_s'])); heapq.heappush(dep,(dt+float(w['duration_s']),)+r)
        r=place(p)
        if p['kind'].startswith('tp'): tp+=1
        if r=='fail' or r is None:
            if p['kind'].startswith('tp'): waiting.append(p); waited+=1
            continue
        heapq.heappush(dep,(t+float(p['duration_s']),)+r)
    end=float(pods[-1]['arrival_s'])
    for w in waiting: waits.append(end-float(w['arrival_s']))
    return tp,waited,waits
T=W=0; allw=[]
for f in [a for a in sys.argv[1:] if not a.startswith('--')]:
    tp,w,ws=run(f); T+=tp; W+=w; allw+=ws
allw=sorted(x/60 for x in allw)
q=lambda a,qq: a[max(0,min(len(a)-1,int(-(-qq*len(a)//1))-1))] if a else 0
print("tp",T,"waited",W,"%.2f%%"%(100*W/T),"p50 %.1f p95 %.1f"%(q(allw,.5),q(allw,.95)))
