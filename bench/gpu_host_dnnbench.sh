#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/gpu_host_dnnbench.sh - issue 7 item 3 measured with dnnbench: the host time of one
# convolution call with a cached plan, ours and NVIDIA's cuDNN (--vs) in the same process, on the
# problems of bench/host_overhead (N = 1, small, so the GPU never holds the host back).
# dnnbench's host_ms column, two ways: "single", per sample the host clock around one call alone
# (after the device-wide sync dnnbench does between samples, the two libraries' calls
# alternating), median over ITERS samples after WARMUP calls; "burst" (--host-burst=50), the host
# clock around 50 back-to-back calls as a training loop issues them, per call, median over 21
# bursts; "alone", the single-call samples without --vs (NVIDIA's calls, 25-240 us of host code
# each, no longer run between ours and take the CPU caches). The first call of each direction
# made the plan.
# Usage: bench/gpu_host_dnnbench.sh NVIDIA_LIBCUDNN BUILD_GPU [OUT]
set -u
nv=${1:?NVIDIA libcudnn.so.9}
build=${2:?build directory}
out=${3:-${OUT:-.}}
bench=$build/tools/dnnbench/dnnbench
iters=${ITERS:-300}
mkdir -p "$out"
rm -f "$out"/host_[pba]*.csv
i=0
# "label|dnnbench flags|problem" (host_overhead.cu's list)
while IFS='|' read -r label flags prob; do
    [ -n "$label" ] || continue
    # shellcheck disable=SC2086 # flags is a list
    "$bench" --op=conv --backend=cuda --dir=all --mode=perf --cache=hot --algo=heur --iters="$iters" \
        --warmup="${WARMUP:-50}" --max-ms=0 --vs="$nv" $flags --csv="$out/host_p$i.csv" "$prob" \
        >"$out/one.log" 2>&1 || { echo "dnnbench failed on $label:"; tail -n 5 "$out/one.log"; }
    # shellcheck disable=SC2086
    "$bench" --op=conv --backend=cuda --dir=all --mode=perf --cache=hot --algo=heur --iters=21 \
        --warmup="${WARMUP:-50}" --max-ms=0 --vs="$nv" --host-burst=50 $flags --csv="$out/host_b$i.csv" "$prob" \
        >"$out/one.log" 2>&1 || { echo "dnnbench --host-burst failed on $label:"; tail -n 5 "$out/one.log"; }
    # shellcheck disable=SC2086
    "$bench" --op=conv --backend=cuda --dir=all --mode=perf --cache=hot --algo=heur --iters="$iters" \
        --warmup="${WARMUP:-50}" --max-ms=0 $flags --csv="$out/host_a$i.csv" "$prob" \
        >"$out/one.log" 2>&1 || { echo "dnnbench (alone) failed on $label:"; tail -n 5 "$out/one.log"; }
    labels[i]=$label
    i=$((i + 1))
done <<'LIST'
f16 nhwc n1c64h8w8k64 3x3|--dt=f16 --layout=nhwc --math=tensor_op|n1c64h8w8k64r3s3p1u1
f16 nhwc n1c256h14w14k64 1x1|--dt=f16 --layout=nhwc --math=tensor_op|n1c256h14w14k64r1s1p0u1
f16 nhwc n1c64h14w14k64 3x3 s2|--dt=f16 --layout=nhwc --math=tensor_op|n1c64h14w14k64r3s3p1u2
tf32 nhwc n1c64h8w8k64 3x3|--dt=f32 --layout=nhwc --math=default|n1c64h8w8k64r3s3p1u1
f32 nchw n1c64h8w8k64 3x3|--dt=f32 --layout=nchw --math=fma|n1c64h8w8k64r3s3p1u1
LIST
rm -f "$out/one.log"
# the table: problem, direction, our host us, NVIDIA's host us, GPU us of both
python3 - "$out" "${labels[@]}" <<'PY'
import csv, os, statistics, sys
def load(kind):
    rows = {}
    for i, label in enumerate(sys.argv[2:]):
        f = os.path.join(sys.argv[1], "host_%s%d.csv" % (kind, i))
        for r in (csv.DictReader(open(f)) if os.path.exists(f) else []):
            rows[(label, r["dir"])] = r
    return rows
single, burst, alone = load("p"), load("b"), load("a")
if not single and not burst:
    sys.exit("no results")
def us(r, col):
    v = r.get(col, "") if r else ""
    return float(v) * 1e3 if v not in ("", None) else float("nan")
print("%-32s %-10s %9s %9s %9s %9s %9s %9s %9s" % ("problem", "dir", "host_us", "vs_host", "burst_us", "vs_burst",
                                                 "alone_us", "gpu_us", "vs_gpu"))
cols = {"host_us": [], "vs_host": [], "burst_us": [], "vs_burst": [], "alone_us": []}
for key in sorted(set(single) | set(burst), key=lambda k: (sys.argv[2:].index(k[0]), k[1] != "fwd", k[1])):
    s, b = single.get(key), burst.get(key)
    v = [us(s, "host_ms"), us(s, "vs_host_ms"), us(b, "host_ms"), us(b, "vs_host_ms"), us(alone.get(key), "host_ms")]
    for name, x in zip(cols, v):
        if x == x:
            cols[name].append(x)
    print("%-32s %-10s %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f" % (key[0], key[1], *v, us(s or b, "ms_median"),
                                                                us(s or b, "vs_ms_median")))
for name, xs in cols.items():
    if xs:
        print("%-9s median %.2f us, max %.2f, %d of %d <= 5.00" % (name, statistics.median(xs), max(xs),
                                                                sum(x <= 5.0 for x in xs), len(xs)))
PY
