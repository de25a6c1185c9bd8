#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/gpu_table_md.py - the markdown table of docs/perf/gpu-table-*.md from the CSVs that
bench/gpu_table.sh leaves (dnnbench --csv with --vs): one row per problem, one column per
(CSV, direction); a cell is NVIDIA's time / ours (> 1: freednn faster) followed by (our TFLOP/s
/ NVIDIA's); the last line gives the geometric mean of each column and its count.
Usage: bench/gpu_table_md.py LABEL=FILE.csv [LABEL=FILE.csv ...]"""
import csv
import math
import sys

DIRS = ("fwd", "bwd_data", "bwd_filter")


def load(path):
    cells = {}
    order = []
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            key = (r["problem"], r["tag"])
            if key not in order:
                order.append(key)
            try:
                ms, vms = float(r["ms_median"]), float(r["vs_ms_median"])
                tflops = float(r["gflop"]) / ms  # GFLOP / ms = TFLOP/s
            except (KeyError, ValueError, ZeroDivisionError):
                continue
            if r["status"] != "EXECUTED" or r["vs_status"] != "EXECUTED" or ms <= 0 or vms <= 0:
                continue
            cells[(key, r["dir"])] = (vms / ms, tflops, float(r["gflop"]) / vms)
    return order, cells


def main(argv):
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    sets = []
    order = []
    for a in argv:
        label, _, path = a.partition("=")
        o, c = load(path)
        sets.append((label, c))
        order += [k for k in o if k not in order]
    head = ["layer"] + [f"{label} {d}" for label, _ in sets for d in DIRS]
    print("| " + " | ".join(head) + " |")
    print("|---|" + "---:|" * (len(head) - 1))
    logs = {}
    for key in order:
        row = [f"`{key[0]}` {key[1]}"]
        for label, cells in sets:
            for d in DIRS:
                v = cells.get((key, d))
                if v is None:
                    row.append("—")
                    continue
                row.append(f"{v[0]:.2f} ({v[1]:.0f} / {v[2]:.0f})")
                logs.setdefault((label, d), []).append(math.log(v[0]))
        print("| " + " | ".join(row) + " |")
    print()
    parts = []
    for label, _ in sets:
        for d in DIRS:
            v = logs.get((label, d), [])
            if v:
                parts.append(f"{label} {d}: **{math.exp(sum(v) / len(v)):.2f}** (n={len(v)})")
    print("Geomeans: " + "; ".join(parts) + ".")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
