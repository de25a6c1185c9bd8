#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""plot.py - dnnbench's chart: per-shape bars of GFLOP/s (GB/s for the memory-bound ops) from a
dnnbench --csv file.

usage: plot.py CSV PNG      (dnnbench --plot=PNG runs this)
       plot.py --check      (exit 0 when matplotlib can be imported)

One group of bars per (problem, direction) row that was timed: freednn, and the --vs library
next to it when the CSV has one; the title carries the geometric mean of their/our time.
Needs Debian's python3-matplotlib.
"""
import csv
import math
import os
import sys

MISSING = ("dnnbench plot: matplotlib is missing: install the Debian package python3-matplotlib "
           "(apt-get install python3-matplotlib; scripts/install-deps.sh does it)")


def load_matplotlib():
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        return plt
    except ImportError:
        print(MISSING, file=sys.stderr)
        sys.exit(3)


def num(s):
    try:
        return float(s)
    except (TypeError, ValueError):
        return None


def main(argv):
    if len(argv) == 2 and argv[1] == "--check":
        load_matplotlib()
        return 0
    if len(argv) != 3:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    plt = load_matplotlib()
    with open(argv[1], newline="") as f:
        rows = [r for r in csv.DictReader(f) if num(r.get("gbps")) or num(r.get("gflops"))]
    if not rows:
        print("dnnbench plot: %s has no timed rows (run dnnbench with --mode=perf or both)" % argv[1],
              file=sys.stderr)
        return 1
    # memory-bound ops (pool, act, softmax, lrn, bn, tensor) are rated by their traffic
    mem = any(num(r.get("gbps")) for r in rows)
    key, vs_key, ylabel = (("gbps", "vs_gbps", "GB/s of traffic (median time)") if mem
                           else ("gflops", "vs_gflops", "GFLOP/s (median time)"))
    vs = any(num(r.get(vs_key)) for r in rows)
    labels = []
    for r in rows:
        label = "%s %s" % (r["problem"], r["dir"])
        if r.get("tag"):  # long tags would squeeze the bars: the first words only
            tag = r["tag"] if len(r["tag"]) <= 24 else r["tag"][:23].rstrip() + "~"
            label = "%s (%s)" % (label, tag)
        labels.append(label)
    ours = [num(r.get(key)) or 0.0 for r in rows]
    theirs = [num(r.get(vs_key)) or 0.0 for r in rows]

    width = 0.4 if vs else 0.7
    fig_w = max(6.0, 0.45 * len(rows) * (2 if vs else 1) + 2.0)
    fig, ax = plt.subplots(figsize=(min(fig_w, 60.0), 5.5))
    xs = range(len(rows))
    ax.bar([x - (width / 2 if vs else 0) for x in xs], ours, width, label="freednn")
    if vs:
        vs_name = os.path.basename(rows[0].get("vs_lib") or "") or "vs"
        ax.bar([x + width / 2 for x in xs], theirs, width, label=vs_name)
    ax.set_xticks(list(xs))
    ax.set_xticklabels(labels, rotation=60, ha="right", fontsize=7)
    ax.set_ylabel(ylabel)
    r0 = rows[0]
    title = "dnnbench %s %s, backend %s" % (r0["op"], r0["dt"], r0["backend"])
    ratios = [num(r.get("ratio")) for r in rows if num(r.get("ratio"))]
    if ratios:
        geo = math.exp(sum(math.log(x) for x in ratios) / len(ratios))
        title += "; geomean their time / our time = %.3f over %d" % (geo, len(ratios))
    ax.set_title(title, fontsize=9)
    ax.set_ylim(0, 1.2 * max(ours + theirs))
    ax.legend(loc="upper right", fontsize=8)
    fig.tight_layout()
    fig.savefig(argv[2], dpi=110)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
