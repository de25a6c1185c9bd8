#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/gpu_membw.sh - the memory-bound cuda rows against NVIDIA cuDNN 9 on large tensors, in GB/s
# of compulsory traffic (issue 7.4: the target is >= 3.4 TB/s, the H200 copies at 4.2).
# dnnbench --vs, --mode=perf --graph --dir=all, one run per (op, dtype, layout): act (relu),
# pool (3x3 s2 p1 max and 2x2 s2 avg), softmax (channel; C = 256 and C = 64, the warp-per-row
# rows), bn (spatial: fwd_infer, fwd_train, bwd), tensor (add_tensor with a 1xCx1x1 bias, op
# add), lrn; f32 and f16; NCHW and NHWC. Problems: n32c256h56w56 (25.7 M elements, 103 MB in
# f32) and n64c64h112w112 (51.4 M elements, 103 MB in f16), so every tensor is >= 64 MiB.
# Prints per row: ours and NVIDIA's GB/s from the events and from the graph replay (gbytes /
# graph_ms: no launch overhead), and their ratio. Every run is capped (CAP seconds, 14) and the
# whole script stops starting runs after BUDGET seconds (215), so it ends within 240 s.
# Everything lands in $OUT/membw.tar.gz (text tables, CSVs, the summary).
# Usage: bench/gpu_membw.sh LIBCUDNN_SO_9 BUILD_DIR
set -u
cd "$(dirname "$0")/.." || exit 2
[ $# -eq 2 ] || { echo "usage: $0 LIBCUDNN_SO_9 BUILD_DIR" >&2; exit 2; }
cudnn=$1 build=$2
cap=${CAP:-14} budget=${BUDGET:-215}
out=${OUT:-.}/membw
mkdir -p "$out"
cmake --build "$build" -j "$(nproc)" --target dnnbench freednn >"$out/build.log" 2>&1 ||
    { tail -n 20 "$out/build.log"; exit 1; }
dnb="$build/tools/dnnbench/dnnbench"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader \
    >"$out/card.txt" 2>&1
big="n32c256h56w56 n64c64h112w112"
run() { # name op dt layout problems...
    local name=$1 op=$2 dt=$3 lay=$4
    shift 4
    if [ "$SECONDS" -ge "$budget" ]; then
        echo "skipped $name: past the ${budget} s budget" | tee -a "$out/skipped.txt"
        return
    fi
    local t0=$SECONDS
    timeout "$cap" "$dnb" --op="$op" --backend=cuda --vs="$cudnn" --dir=all --dt="$dt" \
        --layout="$lay" --mode=perf --graph --iters=5 --fill=real --csv="$out/$name.csv" "$@" \
        >"$out/$name.txt" 2>&1
    echo "rc $? in $((SECONDS - t0)) s (cap $cap)" >>"$out/$name.txt"
    echo "$name: $(tail -n 1 "$out/$name.txt")"
}
for dt in f32 f16; do
    for lay in nchw nhwc; do
        run "act_${dt}_$lay" act $dt $lay $big
        run "pool_${dt}_$lay" pool $dt $lay n32c256h56w56k3s2p1,mode=max n32c256h56w56k2s2,mode=avg_excl
        run "softmax_${dt}_$lay" softmax $dt $lay $big
        run "bn_${dt}_$lay" bn $dt $lay $big
        run "tensor_${dt}_$lay" tensor $dt $lay n32c256h56w56,op=add_tensor n32c256h56w56,op=add \
            n64c64h112w112,op=add_tensor
        run "lrn_${dt}_$lay" lrn $dt $lay n32c256h56w56
    done
done
# The summary: one line per (op, problem, direction), GB/s of both libraries.
if command -v python3 >/dev/null 2>&1; then
    python3 - "$out" >"$out/summary.txt" <<'EOF'
import csv, glob, os, sys

def num(r, k):
    try:
        return float(r[k])
    except (KeyError, ValueError):
        return float("nan")

print("%-22s %-5s %-4s %-40s %9s %9s %9s %9s %6s" % ("run", "dir", "dt", "problem", "GB/s",
      "vs_GB/s", "graph", "vs_graph", "ratio"))
for f in sorted(glob.glob(os.path.join(sys.argv[1], "*.csv"))):
    for r in csv.DictReader(open(f)):
        gb = num(r, "gbytes")
        g, vg = num(r, "graph_ms"), num(r, "vs_graph_ms")
        ours = gb / g * 1e3 if g > 0 else float("nan")
        theirs = gb / vg * 1e3 if vg > 0 else float("nan")
        print("%-22s %-5s %-4s %-40s %9.1f %9.1f %9.1f %9.1f %6.2f" % (
            os.path.basename(f)[:-4], r["dir"], r["dt"], r["problem"][:40], num(r, "gbps"),
            num(r, "vs_gbps"), ours, theirs, ours / theirs if theirs > 0 else float("nan")))
EOF
else
    grep -h -E "GB/s|^ *[0-9]" "$out"/*.txt >"$out/summary.txt"
fi
cat "$out/summary.txt"
tar -czf "${OUT:-.}/membw.tar.gz" -C "${OUT:-.}" membw && rm -rf "$out"
