#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/cpu_memops.sh - issue 5 item 2 in one run: this machine's bandwidth (bench/membw) and,
# per memory-bound op family on the cpu backend, dnnbench's compulsory-traffic GB/s (median of
# --iters samples, cold cache) as a fraction of it; reduce and dropout through
# bench/memops_extra (min of ITERS calls, cold cache). f32, n8c64h112w112 (6.4 M elements, 25.7 MB
# per tensor: larger than the L3), NCHW and NHWC, one thread unless THREADS says otherwise.
# Usage: bench/cpu_memops.sh BUILD_DIR [OUT_DIR]   (BUILD_DIR holds tools/dnnbench/dnnbench)
# Prints one line per (op, direction, layout): ms, GB/s, fraction; ends with the bandwidth used.
set -u
build=${1:?usage: bench/cpu_memops.sh BUILD_DIR [OUT_DIR]}
out=${2:-/tmp/cpu-memops}
threads=${THREADS:-1}
iters=${ITERS:-20}
mkdir -p "$out"
cd "$(dirname "$0")/.." || exit 2
make -s -C bench/membw >/dev/null 2>&1 || { echo "cpu_memops: cannot build bench/membw"; exit 2; }
OMP_NUM_THREADS=$threads bench/membw/membw --reps=5 | tee "$out/membw.txt"
# the bandwidth: the best of copy / scale / triad at this thread count (STREAM byte counting)
bw=$(awk -v t="$threads" '$1 == "threads=" t { if ($3 > b) b = $3 } END { print b + 0 }' "$out/membw.txt")
dnb="$build/tools/dnnbench/dnnbench"
P=n8c64h112w112
run() { # name op dirs layout problems...
    local name=$1 op=$2 dirs=$3 layout=$4
    shift 4
    OMP_NUM_THREADS=$threads "$dnb" --backend=cpu --op="$op" --dir="$dirs" --layout="$layout" --mode=perf \
        --iters="$iters" --csv="$out/$name-$layout.csv" "$@" >"$out/$name-$layout.txt" 2>&1
}
for layout in nchw nhwc; do
    run act act all $layout "$P mode=relu" "$P mode=clipped_relu" "$P mode=sigmoid" "$P mode=tanh" \
        "$P mode=elu" "$P mode=swish"
    run tensor tensor fwd $layout "$P op=add_tensor bcast=c" "$P op=add_tensor bcast=none" "$P op=mul bcast=none" \
        "$P op=max bcast=c" "$P op=min bcast=none"
    run pool pool all $layout "${P}k3s2p1 mode=max" "${P}k2s2 mode=avg_incl" "${P}k3s1p1 mode=avg_excl"
    run bn bn all $layout "$P mode=spatial" "$P mode=per_activation"
    run softmax softmax all $layout "$P algo=accurate mode=channel" "$P algo=log mode=instance" \
        "n256c1000h1w1 algo=accurate mode=channel"
    run lrn lrn all $layout "$P size=5"
done
# reduce and dropout: dnnbench has no driver for them; bench/memops_extra times them through the
# API (f32, the same problem, min of ITERS calls, each after a cache flush; GB/s of compulsory
# traffic: reduce 4 B per element read, dropout 9: x or dy, y or dx, one mask byte)
extra=$out/memops_extra
gcc -O2 -Iinclude bench/memops_extra/memops_extra.c -L"$build" -lfreednn -Wl,-rpath,"$(cd "$build" && pwd)" \
    -lm -o "$extra" 2>"$out/memops_extra.build.log" || { echo "cpu_memops: cannot build memops_extra"; extra=; }
: >"$out/extra.txt"
if [ -n "$extra" ]; then
    for layout in nchw nhwc; do
        for a in "reduce add chan" "reduce add overc" "reduce add all" "reduce norm2 chan" "reduce max overc" \
            "dropout fwd" "dropout bwd"; do
            set -- $a
            OMP_NUM_THREADS=$threads "$extra" --backend=cpu --reps="$iters" "$1" "$2" ${3:+"$3"} "$layout" 8 64 112 112 \
                >>"$out/extra.txt" 2>&1
        done
    done
fi
python3 - "$out" "$bw" <<'PY'
import csv, glob, os, sys
out, bw = sys.argv[1], float(sys.argv[2])
print(f"{'op':8} {'dir':10} {'layout':6} {'problem':44} {'ms':>8} {'GB/s':>7} {'frac':>5}")
for f in sorted(glob.glob(os.path.join(out, '*.csv'))):
    for r in csv.DictReader(open(f)):
        if r.get('status') != 'EXECUTED' or not r.get('gbps'):
            continue
        g = float(r['gbps'])
        print(f"{r['op']:8} {r['dir']:10} {r['layout']:6} {r['problem'][:44]:44} {float(r['ms_median']):8.3f} {g:7.1f} {g / bw:5.2f}")
import re
for line in open(os.path.join(out, 'extra.txt')):
    m = re.match(r'(\w+)\s+(.*) (nchw|nhwc) (\d+ \d+ \d+ \d+).*: cpu, min of \d+: wall ([\d.]+) ms \(([\d.]+) GB/s\)', line)
    if not m:
        continue
    op, what, lay, dims, ms, g = m.groups()
    d = 'all'
    if op == 'dropout':
        d, what = what.split()[0], ''
    prob = 'n%sc%sh%sw%s %s' % (*dims.split(), what)
    print(f"{op:8} {d:10} {lay:6} {prob.strip()[:44]:44} {float(ms):8.3f} {float(g):7.1f} {float(g) / bw:5.2f}")
print(f"bandwidth used for the fractions: {bw} GB/s (bench/membw, best of copy/scale/triad, {os.environ.get('THREADS', '1')} thread(s))")
PY
