#!/usr/bin/env python3
"""Prints the protocol A summary tables of docs/benchmarks.md from the simulator's JSON outputs.

Reads docs/benchmarks/openb-<list>.json (the headline lists) and docs/benchmarks/lists/openb-<list>.json (the
others), as bench/simulate-all.sh writes them, and prints Markdown: the faithfulness of every baseline the paper
publishes on every list, ACE against the published FGD on every list, and the counts the aims table quotes.
Nothing is computed here that the JSON does not hold: allocation at 130 % arrival, its standard deviation over
the seeds, and the paper's figure (sim/Published) the simulator wrote beside it.

Usage: python3 bench/tables.py [docs/benchmarks] > docs/benchmarks/tables.md
"""
import json
import pathlib
import sys

ROOT = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "docs/benchmarks")
PAPER_POLICIES = ["random", "best-fit", "fgd", "dot-prod", "packing", "clustering"]


def load():
    runs = {}
    for f in sorted(list(ROOT.glob("openb-*.json")) + list(ROOT.glob("lists/openb-*.json"))):
        d = json.loads(f.read_text())
        runs[d["trace"].removeprefix("openb-")] = {r["policy"]: r for r in d["results"]}
    return dict(sorted(runs.items()))


def at130(r):
    return r["allocationAt"]["130"], r["allocation130Sd"]


def faithfulness(runs):
    print("| list | policy | published @130 (sd) | this simulator (sd) | difference | within 0.5 |")
    print("|---|---|---:|---:|---:|---|")
    off = {}
    for lst, pols in runs.items():
        for p in PAPER_POLICIES:
            r = pols.get(p)
            if r is None or not r.get("published130"):
                continue
            pub = r["published130"]
            mean, sd = at130(r)
            diff = mean - pub["mean"]
            ok = abs(diff) <= 0.5
            off.setdefault(p, []).append((lst, diff, ok))
            print(f"| {lst} | {p} | {pub['mean']:.2f} ({pub['sd']:.2f}) | {mean:.2f} ({sd:.2f}) | {diff:+.2f} | {'yes' if ok else 'no'} |")
    print()
    print("| policy | lists | within 0.5 | largest difference |")
    print("|---|---:|---:|---|")
    for p in PAPER_POLICIES:
        rows = off.get(p, [])
        if not rows:
            continue
        worst = max(rows, key=lambda x: abs(x[1]))
        print(f"| {p} | {len(rows)} | {sum(ok for _, _, ok in rows)} | {worst[1]:+.2f} ({worst[0]}) |")
    print()


def against_fgd(runs):
    print("| list | published FGD (sd) | FGD here (sd) | **ACE** (sd) | ACE, 64 shapes (sd) | ACE − 64 shapes | ACE − published FGD "
          "| beyond both seed spreads | in units of the larger sd | ACE − FGD here | best-fit here | random here |")
    print("|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|")
    counts = {"above": [], "within": [], "below": []}
    for lst, pols in runs.items():
        fgd, ace = pols.get("fgd"), pols.get("ace")
        if fgd is None or ace is None or not fgd.get("published130"):
            continue
        pub = fgd["published130"]
        a, asd = at130(ace)
        f, fsd = at130(fgd)
        d = a - pub["mean"]
        larger = max(asd, pub["sd"])
        beyond = abs(d) > asd and abs(d) > pub["sd"]
        verdict = ("above" if d > 0 else "below") if beyond else "within"
        counts[verdict].append((lst, d))
        s64 = pols.get("ace-shapes-64")
        c64 = f"{at130(s64)[0]:.2f} ({at130(s64)[1]:.2f})" if s64 else "-"
        d64 = f"{a - at130(s64)[0]:+.2f}" if s64 else "-"
        bf = f"{at130(pols['best-fit'])[0]:.2f}" if "best-fit" in pols else "-"
        rnd = f"{at130(pols['random'])[0]:.2f}" if "random" in pols else "-"
        units = d / larger if larger > 0 else 0
        print(f"| {lst} | {pub['mean']:.2f} ({pub['sd']:.2f}) | {f:.2f} ({fsd:.2f}) | **{a:.2f}** ({asd:.2f}) | {c64} | {d64} | {d:+.2f} "
              f"| {'yes, ' + verdict if beyond else 'no'} | {units:+.1f} | {a - f:+.2f} | {bf} | {rnd} |")
    print()
    print(f"ACE against the published FGD: above beyond both seed spreads on {len(counts['above'])} of "
          f"{sum(len(v) for v in counts.values())} lists, within on {len(counts['within'])}"
          f"{' (' + ', '.join(f'`{l}` {d:+.2f}' for l, d in counts['within']) + ')' if counts['within'] else ''}, "
          f"below on {len(counts['below'])}"
          f"{' (' + ', '.join(f'`{l}` {d:+.2f}' for l, d in counts['below']) + ')' if counts['below'] else ''}.")
    print()


def per_list(runs, lst):
    print("| policy | alloc@80 | @90 | @95 | @100 | **@130** | sd | published @130 (sd) | frag@50 | @70 | @80 | @90 | p50 µs | p99 µs |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for p, r in runs[lst].items():
        a, f, t = r["allocationAt"], r["fragRateAt"], r["decisionMicros"]
        pub = r.get("published130")
        pubtxt = f"{pub['mean']:.2f} ({pub['sd']:.2f})" if pub else ""
        name = f"**{p}**" if p == "ace" else p
        print(f"| {name} | {a['80']:.2f} | {a['90']:.2f} | {a['95']:.2f} | {a['100']:.2f} | **{a['130']:.2f}** | "
              f"{r['allocation130Sd']:.2f} | {pubtxt} | {f['50']:.2f} | {f['70']:.2f} | {f['80']:.2f} | {f['90']:.2f} | "
              f"{t['p50']:.1f} | {t['p99']:.1f} |")
    print()


def fleet(path):
    d = json.loads(path.read_text())
    print("| policy | TP on clique % | TP degraded | TP waited % | wait p50 min | wait p95 min | full-BW replica-hours % "
          "| waiting GPU-h | still waiting | other failed | mean alloc % | stranded GPUs | domains clean % | frag % "
          "| small on inference | p50 µs | p99 µs |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in d["results"]:
        name = f"**{r['policy']}**" if r["policy"] == "ace" else r["policy"]
        w, dom, t = r["tpWaitMinutes"], r["nvlinkDomains"], r["decisionMicros"]
        print(f"| {name} | {r['tpPlaced']:.2f} | {r['tpNotFullBandwidth']} | {r['tpWaitedPct']:.2f} | {w['p50']:.1f} | {w['p95']:.1f} "
              f"| {r['tpFullBandwidthHoursPct']:.2f} | {round(r['tpWaitingGpuHours'])} | {r['tpFailed']} | {r['otherFailed']} "
              f"| {r['meanAllocation']:.2f} | {r['strandedGpus']:.2f} | {dom['clean']:.1f} | {dom['fragmented']:.1f} "
              f"| {r['smallOnInference']} | {t['p50']:.1f} | {t['p99']:.1f} |")
    print()


if __name__ == "__main__":
    runs = load()
    if not runs:
        sys.exit(f"no openb-*.json under {ROOT}")
    print("<!-- generated by bench/tables.py from the JSON outputs beside it; do not edit -->")
    print()
    print("## Faithfulness: every baseline the paper publishes, every list (allocation at 130 %, seeds of the run)")
    print()
    faithfulness(runs)
    print("## ACE against the published FGD on every list")
    print()
    against_fgd(runs)
    for lst in runs:
        print(f"## openb-{lst}: every policy of the run")
        print()
        per_list(runs, lst)
    for rate in sorted(ROOT.glob("fleet-rate*/fleet.json")):
        print(f"## Protocol B, {rate.parent.name.removeprefix('fleet-rate')} pods/h (seeds of the run, sums over its traces)")
        print()
        fleet(rate)
