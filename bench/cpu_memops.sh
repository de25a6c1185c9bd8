#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/cpu_memops.sh - issue 5 item 2 in one run: this machine's bandwidth (bench/membw) and,
# per memory-bound op family on the cpu backend, dnnbench's compulsory-traffic GB/s (median of
# --iters samples, cold cache) as a fraction of it; reduce and dropout through
# bench/memops_extra (min of ITERS calls, cold cache). f32, n8c64h112w112 (6.4 M elements, 25.7 MB
# per tensor: larger than the L3), NCHW and NHWC, one thread unless THREADS says otherwise.
# Usage: bench/cpu_memops.sh BUILD_DIR [OUT_DIR]   (BUILD_DIR holds tools/dnnbench/dnnbench)
# Prints one line per (op, direction, layout): ms, GB/s, fraction of the reading taken first, and
# the fraction of the larger of two readings taken just before and after the line's family
# (localBW, lfrac: this shared machine's bandwidth moves within minutes); ends with the counts.
set -u
build=${1:?usage: bench/cpu_memops.sh BUILD_DIR [OUT_DIR]}
out=${2:-/tmp/cpu-memops}
threads=${THREADS:-1}
iters=${ITERS:-20}
mkdir -p "$out"
cd "$(dirname "$0")/.." || exit 2
# Threads bound one per core unless the caller says otherwise (both for bench/membw's reading
# and for the ops): unbound, a woken OpenMP worker was at times placed on the master's core on
# the 2-vCPU VMs, and a line ran at half speed for that sample (the same measure as
# bench/compare's --threads re-exec).
if [ "$threads" -gt 1 ]; then
    export OMP_PROC_BIND=${OMP_PROC_BIND:-spread} OMP_PLACES=${OMP_PLACES:-cores}
fi
make -s -C bench/membw >/dev/null 2>&1 || { echo "cpu_memops: cannot build bench/membw"; exit 2; }
OMP_NUM_THREADS=$threads bench/membw/membw --reps=5 | tee "$out/membw.txt"
# the bandwidth: the best of copy / scale / triad at this thread count (STREAM byte counting)
bw=$(awk -v t="$threads" '$1 == "threads=" t { if ($3 > b) b = $3 } END { print b + 0 }' "$out/membw.txt")
dnb="$build/tools/dnnbench/dnnbench"
P=n8c64h112w112
# The bandwidth of this shared machine moves between minutes (two-core triad 45-86 GB/s in one
# afternoon), so each family's lines are also held to a reading taken just before and just after
# them (bench/membw --reps=3, the larger of the two: "local"), besides the one reading above.
bw_now() { # tag: appends "tag GB/s" to $out/bw-local.txt
    OMP_NUM_THREADS=$threads bench/membw/membw --reps=3 |
        awk -v t="$threads" -v tag="$1" '$1 == "threads=" t { if ($3 > b) b = $3 } END { print tag, b + 0 }' \
            >>"$out/bw-local.txt"
}
: >"$out/bw-local.txt"
run() { # name op dirs layout problems...
    local name=$1 op=$2 dirs=$3 layout=$4
    shift 4
    bw_now "$name-$layout"
    OMP_NUM_THREADS=$threads "$dnb" --backend=cpu --op="$op" --dir="$dirs" --layout="$layout" --mode=perf \
        --iters="$iters" --csv="$out/$name-$layout.csv" "$@" >"$out/$name-$layout.txt" 2>&1
    bw_now "$name-$layout"
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
            bw_now "extra-$layout-$1-$2-${3:-}"
            OMP_NUM_THREADS=$threads "$extra" --backend=cpu --reps="$iters" "$1" "$2" ${3:+"$3"} "$layout" 8 64 112 112 \
                >>"$out/extra.txt" 2>&1
            bw_now "extra-$layout-$1-$2-${3:-}"
        done
    done
fi
python3 - "$out" "$bw" <<'PY'
import csv, glob, os, re, sys
out, bw = sys.argv[1], float(sys.argv[2])
local = {}  # tag -> the larger reading around that family's lines
for line in open(os.path.join(out, 'bw-local.txt')):
    tag, v = line.split()
    local[tag] = max(local.get(tag, 0.0), float(v))
ok = [0, 0, 0]  # lines, at 0.7 of the one reading, at 0.7 of the local one
def show(op, d, lay, prob, ms, g, tag):
    lb = local.get(tag) or bw
    ok[0] += 1
    ok[1] += g / bw >= 0.7
    ok[2] += g / lb >= 0.7
    print(f"{op:8} {d:10} {lay:6} {prob[:44]:44} {ms:8.3f} {g:7.1f} {g / bw:5.2f} {lb:7.1f} {g / lb:5.2f}")
print(f"{'op':8} {'dir':10} {'layout':6} {'problem':44} {'ms':>8} {'GB/s':>7} {'frac':>5} {'localBW':>7} {'lfrac':>5}")
for f in sorted(glob.glob(os.path.join(out, '*.csv'))):
    tag = os.path.basename(f)[:-4]
    for r in csv.DictReader(open(f)):
        if r.get('status') != 'EXECUTED' or not r.get('gbps'):
            continue
        show(r['op'], r['dir'], r['layout'], r['problem'], float(r['ms_median']), float(r['gbps']), tag)
for line in open(os.path.join(out, 'extra.txt')):
    m = re.match(r'(\w+)\s+(.*) (nchw|nhwc) (\d+ \d+ \d+ \d+).*: cpu, min of \d+: wall ([\d.]+) ms \(([\d.]+) GB/s\)', line)
    if not m:
        continue
    op, what, lay, dims, ms, g = m.groups()
    tag = 'extra-%s-%s-%s' % (lay, op, '-'.join(what.split() + ([''] if len(what.split()) < 2 else [])))
    d = 'all'
    if op == 'dropout':
        d, what = what.split()[0], ''
    prob = 'n%sc%sh%sw%s %s' % (*dims.split(), what)
    show(op, d, lay, prob.strip(), float(ms), float(g), tag)
print(f"bandwidth used for the fractions: {bw} GB/s (bench/membw, best of copy/scale/triad, {os.environ.get('THREADS', '1')} thread(s))")
print(f"lines at >= 0.7: {ok[1]} of {ok[0]} against that reading, {ok[2]} of {ok[0]} against the readings just before and after each family (localBW)")
PY
