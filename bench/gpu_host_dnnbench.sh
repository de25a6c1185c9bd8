#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/gpu_host_dnnbench.sh - issue 7 item 3 measured with dnnbench: the host time of one
# convolution call with a cached plan, ours and NVIDIA's cuDNN (--vs) in the same process, on the
# problems of bench/host_overhead (N = 1, small, so the GPU never holds the host back).
# dnnbench's host_ms column: per sample, the host clock around the call alone (after the
# device-wide sync dnnbench does between samples, no synchronisation inside), median over
# ITERS samples after WARMUP calls; the first call of each direction made the plan.
# Usage: bench/gpu_host_dnnbench.sh NVIDIA_LIBCUDNN BUILD_GPU [OUT]
set -u
nv=${1:?NVIDIA libcudnn.so.9}
build=${2:?build directory}
out=${3:-${OUT:-.}}
bench=$build/tools/dnnbench/dnnbench
iters=${ITERS:-300}
mkdir -p "$out"
rm -f "$out"/host_p*.csv
i=0
# "label|dnnbench flags|problem" (host_overhead.cu's list)
while IFS='|' read -r label flags prob; do
    [ -n "$label" ] || continue
    # shellcheck disable=SC2086 # flags is a list
    "$bench" --op=conv --backend=cuda --dir=all --mode=perf --cache=hot --algo=heur --iters="$iters" \
        --warmup="${WARMUP:-50}" --max-ms=0 --vs="$nv" $flags --csv="$out/host_p$i.csv" "$prob" \
        >"$out/one.log" 2>&1 || { echo "dnnbench failed on $label:"; tail -n 5 "$out/one.log"; }
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
rows = []
for i, label in enumerate(sys.argv[2:]):
    f = os.path.join(sys.argv[1], "host_p%d.csv" % i)
    for r in (csv.DictReader(open(f)) if os.path.exists(f) else []):
        r["tag"] = label
        rows.append(r)
if not rows:
    sys.exit("no results")
def us(v):
    return float(v) * 1e3 if v not in ("", None) else float("nan")
print("%-32s %-10s %9s %9s %9s %9s" % ("problem", "dir", "host_us", "vs_host", "gpu_us", "vs_gpu"))
ours, theirs = [], []
for r in rows:
    h, v = us(r["host_ms"]), us(r["vs_host_ms"])
    print("%-32s %-10s %9.2f %9.2f %9.2f %9.2f" % (r["tag"], r["dir"], h, v, us(r["ms_median"]), us(r["vs_ms_median"])))
    if h == h: ours.append(h)
    if v == v: theirs.append(v)
if ours:
    print("median host us per call: ours %.2f (max %.2f, %d of %d <= 5.00), NVIDIA %.2f" % (
        statistics.median(ours), max(ours), sum(h <= 5.0 for h in ours), len(ours),
        statistics.median(theirs) if theirs else float("nan")))
PY
