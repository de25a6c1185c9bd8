#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/gpu_conv_ab.sh - one convolution direction on a shape set, our cuda rows with and
# without a set of environment switches, back to back per dtype (GPU time by events, median of
# ITERS samples): per line the time ratio old / new and the geometric mean. For switches that
# keep an old kernel path (FREEDNN_WGMMA_DGRAD_TF32_1L=0, ...), so a new path is shipped only
# where it is not slower.
# Usage: bench/gpu_conv_ab.sh BUILD DIR SHAPES N "ENV=0 ..." DT... (OUT: where the CSVs go;
# N 0 keeps each line's own batch; LAYOUT nhwc (default) or nchw)
set -u
build=${1:?build} dir=${2:?direction} shapes=${3:?shape file} n=${4:?batch} envs=${5:?switches}
shift 5
out=${OUT:-.}/conv_ab
mkdir -p "$out"
dnb=$build/tools/dnnbench/dnnbench
nopt=
[ "$n" = 0 ] || nopt=--n=$n
for dt in "$@"; do
    for side in new old; do
        # shellcheck disable=SC2086 # envs is a list of assignments
        if [ $side = new ]; then e=; else e=$envs; fi
        env $e "$dnb" --op=conv --backend=cuda --dir="$dir" --dt="$dt" --layout="${LAYOUT:-nhwc}" \
            --mode=perf ${nopt:+"$nopt"} --iters="${ITERS:-5}" --cache=hot --batch="$shapes" --csv="$out/$dt-$side.csv" \
            >"$out/$dt-$side.log" 2>&1 || echo "dnnbench $dt $side: exit $? ($(tail -n 1 "$out/$dt-$side.log"))"
    done
    python3 - "$out/$dt-new.csv" "$out/$dt-old.csv" "$dt" "$dir" "$envs" <<'PY'
import csv, math, sys
def load(f):
    try:
        return {(r["problem"]): float(r["ms_median"]) for r in csv.DictReader(open(f)) if r["ms_median"]}
    except OSError:
        return {}
new, old = load(sys.argv[1]), load(sys.argv[2])
logs = []
for p in new:
    if p in old and new[p] > 0:
        r = old[p] / new[p]
        logs.append(math.log(r))
        print("  %-40s new %8.3f ms  old %8.3f ms  old/new %.3f" % (p, new[p], old[p], r))
if logs:
    print("%s %s: geomean old/new %.3f over %d lines (old = %s); worst %.3f, best %.3f" % (
        sys.argv[3], sys.argv[4], math.exp(sum(logs) / len(logs)), len(logs), sys.argv[5],
        math.exp(min(logs)), math.exp(max(logs))))
PY
done
