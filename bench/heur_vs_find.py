#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""heur_vs_find.py - does cudnnGet*Algorithm_v7 pick what Find picks? (issue 5 item 3)

For one shape file (bench/shapes/*.txt), every direction: runs dnnbench twice, --algo=heur
(the library's heuristic, cudnnGet*Algorithm_v7) and --algo=find (cudnnFind*Algorithm), with
the tuning cache off so the heuristic run sees no cached Find, and prints per layer both
choices, the time dnnbench measured for each (ms_min: the least of --iters samples, the least
noisy figure on a shared machine) and two verdicts:
  first   the heuristic's algorithm is Find's first ("picks the fastest", the cpu criterion);
  10%     the heuristic's algorithm runs within 10% of Find's (the criterion of the cuda issue).
Find times each algorithm once, so on a noisy machine its own first can be wrong. --retime
re-times both algorithms of every disagreement back to back (dnnbench --algo=A, --algo=B,
ROUNDS rounds alternating, the least ms_min of each) and reports a third count: the
heuristic's algorithm was at least as fast as Find's ("fastest after re-timing"; ties within
2% count for the heuristic, below dnnbench's repeatability here).

Decisions: dnnbench does the timing (the same cold-cache protocol for both choices; see
docs/dnnbench.md); rows dnnbench did not execute are listed and left out of the counts; two
algorithms served by one implementation time the same in Find, whose stable sort then keeps
the heuristic's order, so comparing the algorithm numbers compares implementations.

usage: bench/heur_vs_find.py SHAPES [--n=N] [--threads=T] [--dir=all|fwd|bwd_data|bwd_filter]
           [--iters=K] [--backend=cpu] [--dt=f32] [--layout=nchw|nhwc] [--dnnbench=PATH]
           [--out=DIR] [--retime[=ROUNDS]] [--only=REGEX] [--find-csv=FILE]
--find-csv takes Find's choices and times from an earlier run's find.csv (same shapes, N and
threads) instead of running Find again, to re-measure a changed heuristic; say so when quoting.
"""
import csv
import os
import re
import subprocess
import sys
import time

TOL = 0.10
TIE = 0.02


def parse_args(argv):
    o = {"n": None, "threads": "1", "dir": "all", "iters": "5", "backend": "cpu",
         "dnnbench": os.environ.get("DNNBENCH", "build/tools/dnnbench/dnnbench"),
         "out": None, "retime": 0, "only": None, "shapes": None, "find-csv": None,
         "dt": "f32", "layout": None}
    for a in argv:
        if a.startswith("--") and "=" in a:
            k, v = a[2:].split("=", 1)
            if k not in o or k == "shapes":
                sys.exit("heur_vs_find: unknown option " + a + "\n" + __doc__)
            o[k] = int(v) if k == "retime" else v
        elif a == "--retime":
            o["retime"] = 2
        elif a in ("-h", "--help"):
            print(__doc__)
            sys.exit(0)
        elif o["shapes"] is None:
            o["shapes"] = a
        else:
            sys.exit("heur_vs_find: one shape file\n" + __doc__)
    if o["shapes"] is None:
        sys.exit(__doc__)
    if o["out"] is None:
        o["out"] = "heur_vs_find-" + time.strftime("%Y%m%d-%H%M%S")
    return o


def env_of(o):
    e = dict(os.environ)
    e["OMP_NUM_THREADS"] = o["threads"]
    e["FREEDNN_TUNE_CACHE"] = "off"
    return e


def dnnbench(o, algo, csv_path, problems=None, direction=None):
    cmd = [o["dnnbench"], "--op=conv", "--backend=" + o["backend"], "--dt=" + o["dt"],
           "--mode=perf", "--dir=" + (direction or o["dir"]), "--algo=" + str(algo),
           "--iters=" + o["iters"], "--csv=" + csv_path]
    if o["layout"] is not None:
        cmd.append("--layout=" + o["layout"])
    if problems is None:
        cmd.append("--batch=" + o["shapes"])
        if o["n"] is not None:
            cmd.append("--n=" + o["n"])
    else:
        cmd += problems
    r = subprocess.run(cmd, env=env_of(o), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True)
    if r.returncode not in (0, 1) or not os.path.exists(csv_path):
        sys.exit("heur_vs_find: %s failed (%d):\n%s" % (" ".join(cmd), r.returncode,
                                                         r.stdout[-4000:]))
    with open(csv_path) as f:
        return list(csv.DictReader(f))


def num(s):
    try:
        return float(s)
    except (TypeError, ValueError):
        return None


def retime(o, problem, direction, a, b, tag):
    """Least ms_min of algorithms a and b over o['retime'] alternating rounds."""
    best = {a: None, b: None}
    for r in range(o["retime"]):
        for algo in ((a, b) if r % 2 == 0 else (b, a)):
            rows = dnnbench(o, algo, os.path.join(o["out"], "retime-%s-%d-%d.csv" % (tag, algo, r)),
                            [problem], direction)
            t = num(rows[0]["ms_min"]) if rows and rows[0]["status"] == "EXECUTED" else None
            if t is not None and (best[algo] is None or t < best[algo]):
                best[algo] = t
    return best[a], best[b]


def main():
    o = parse_args(sys.argv[1:])
    os.makedirs(o["out"], exist_ok=True)
    only = re.compile(o["only"]) if o["only"] else None
    t0 = time.time()
    heur = dnnbench(o, "heur", os.path.join(o["out"], "heur.csv"))
    t1 = time.time()
    if o["find-csv"]:
        with open(o["find-csv"]) as f:
            find = list(csv.DictReader(f))
    else:
        find = dnnbench(o, "find", os.path.join(o["out"], "find.csv"))
    t2 = time.time()
    print("# %s: shapes %s, n=%s, threads %s, backend %s, dt %s, layout %s, iters %s; heur run %.0f s, "
          "find %s" % (time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), o["shapes"],
                       o["n"] or "as listed", o["threads"], o["backend"], o["dt"],
                       o["layout"] or "default", o["iters"], t1 - t0,
                       "from " + o["find-csv"] if o["find-csv"] else "run %.0f s" % (t2 - t1)))
    fkey = {(r["dir"], r["problem"], r["index"]): r for r in find}
    dirs = []
    stats = {}
    print("%-10s %-34s %5s %9s %5s %9s %5s %5s  %s" % ("dir", "problem", "heur", "ms", "find", "ms",
                                                      "first", "10%", "re-timed (heur / find ms)"))
    for i, h in enumerate(heur):
        f = fkey.get((h["dir"], h["problem"], h["index"]))
        d = h["dir"]
        if only and not only.search(h["problem"]):
            continue
        if d not in stats:
            dirs.append(d)
            stats[d] = {"n": 0, "first": 0, "within": 0, "after": 0, "left": 0}
        s = stats[d]
        if f is None or h["status"] != "EXECUTED" or f["status"] != "EXECUTED":
            s["left"] += 1
            print("%-10s %-34s left out: heur %s, find %s" % (d, h["problem"], h["status"],
                                                              f["status"] if f else "missing"))
            continue
        ha, fa = int(h["algo"]), int(f["algo"])
        ht, ft = num(h["ms_min"]), num(f["ms_min"])
        same = ha == fa
        within = same or ht <= (1 + TOL) * ft
        after, note = same, ""
        if not same and o["retime"]:
            rh, rf = retime(o, h["problem"], d, ha, fa, "%d" % i)
            if rh is not None and rf is not None:
                after = rh <= (1 + TIE) * rf
                note = "%.3f / %.3f -> %s" % (rh, rf, "heur" if after else "find")
        s["n"] += 1
        s["first"] += same
        s["within"] += within
        s["after"] += after
        print("%-10s %-34s %5d %9.3f %5d %9.3f %5s %5s  %s" % (d, h["problem"], ha, ht, fa, ft,
                                                             "yes" if same else "NO",
                                                             "yes" if within else "NO", note),
              flush=True)
    tot = {"n": 0, "first": 0, "within": 0, "after": 0, "left": 0}
    print()
    for d in dirs + ["overall"]:
        s = stats[d] if d != "overall" else tot
        if d != "overall":
            for k in tot:
                tot[k] += s[k]
        n = max(s["n"], 1)
        line = ("summary %-10s layers %3d  Find's first %3d (%5.1f%%)  within 10%% %3d (%5.1f%%)"
                % (d, s["n"], s["first"], 100.0 * s["first"] / n, s["within"], 100.0 * s["within"] / n))
        if o["retime"]:
            line += "  fastest after re-timing %3d (%5.1f%%)" % (s["after"], 100.0 * s["after"] / n)
        if s["left"]:
            line += "  (%d left out)" % s["left"]
        print(line)
    print("# total %.0f s; CSVs in %s" % (time.time() - t0, o["out"]))


if __name__ == "__main__":
    main()
