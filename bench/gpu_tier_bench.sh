#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/gpu_tier_bench.sh - the GPU tier of dnnbench in one command, for the H200 device machine
# (docs/dnnbench.md, "bench/gpu_tier_bench.sh"): our cuda backend against NVIDIA's cuDNN 9
# (--vs), every convolution direction in f32, tf32, f16 and bf16 at N=32 (checked and timed) and
# N=256 (timed), then the memory-bound ops, all with --graph, bounded to about six minutes.
#
# usage: bench/gpu_tier_bench.sh [LIBCUDNN_SO_9 [BUILD_DIR]]
#   LIBCUDNN_SO_9  NVIDIA's library (default: the first
#                  /opt/torch/.venv/lib/python3*/site-packages/nvidia/cudnn/lib/libcudnn.so.9)
#   BUILD_DIR      a build of this tree (default build-gpu-tier); configured with
#                  -DFREEDNN_CUDA=ON -DFREEDNN_TESTS=OFF -DCMAKE_BUILD_TYPE=Release when it has
#                  no CMakeCache.txt, and brought up to date (dnnbench, freednn) in any case
# Environment: OUT (results: logs, CSVs, PNGs; default ./gpu-tier-out), BUDGET_S (the whole
# run's wall time, default 360), DTS (default "f32 tf32 f16 bf16").
#
# Decisions, for the time budget:
# - correctness at N=32 only, every row: ref on the host up to 0.05 GFLOP, the naive GPU rows
#   in DOUBLE above it (--ref=auto; the host ref would take seconds per row); the naive rows
#   themselves are first checked against ref on the smoke set (--impl=fd_conv_*_direct);
# - N=256: --mode=perf on bench/shapes/resnet50_sub.txt (four shapes): generating 200 M
#   inputs on the host and the naive kernels (up to 0.25 s per call) make the full set too slow;
# - few samples (--iters=3, --max-ms=30; N=256: 2), --graph (CUDA-graph replay of up to 20
#   calls, fewer for long calls), one `timeout` per step taken from what is left of BUDGET_S;
#   rows are written to the CSV as they finish, so a step that runs out keeps what it did;
# - the charts are drawn afterwards from the CSVs with tools/dnnbench/plot.py, by the first
#   python3 that has matplotlib (dnnbench --plot would stop the run where there is none).
set -u
cd "$(dirname "$0")/.." || exit 2
t_start=$(date +%s)
budget=${BUDGET_S:-360}
out=${OUT:-./gpu-tier-out}
mkdir -p "$out"
log=$out/gpu_tier.log
say() { echo "$*" | tee -a "$log"; }
left() { echo $((budget - ($(date +%s) - t_start))); }
: >"$log"

cudnn=${1:-}
if [ -z "$cudnn" ]; then
    for f in /opt/torch/.venv/lib/python3*/site-packages/nvidia/cudnn/lib/libcudnn.so.9; do
        [ -e "$f" ] && { cudnn=$f; break; }
    done
fi
build=${2:-build-gpu-tier}
if [ -z "$cudnn" ] || [ ! -e "$cudnn" ]; then
    say "no libcudnn.so.9 (give its path as the first argument)"
    exit 1
fi

say "date: $(date -u '+%Y-%m-%d %H:%M UTC'), source $(git rev-parse --short HEAD 2>/dev/null || echo '?')$(git diff --quiet 2>/dev/null || echo ' + working tree')"
say "gpu: $(nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader 2>&1 | head -n 1)"
say "cudnn: $cudnn"

# ---- build -------------------------------------------------------------------------------------
command -v nvcc >/dev/null 2>&1 || export PATH=$PATH:/usr/local/cuda/bin
if [ ! -f "$build/CMakeCache.txt" ]; then
    cmake -S . -B "$build" -DFREEDNN_CUDA=ON -DFREEDNN_TESTS=OFF -DCMAKE_BUILD_TYPE=Release \
        >"$out/configure.log" 2>&1 || { tail -n 30 "$out/configure.log" | tee -a "$log"; exit 1; }
fi
cmake --build "$build" -j "$(nproc)" --target dnnbench freednn >"$out/build.log" 2>&1 ||
    { grep -E 'error' "$out/build.log" | head -n 30 | tee -a "$log"; exit 1; }
bench=$build/tools/dnnbench/dnnbench
say "build: ready after $(($(date +%s) - t_start)) s"

# NVIDIA's sub-libraries (libcudnn_ops.so.9, ...) next to it; dnnbench's own CUDA runtime
# (dlopen'd libcudart.so.13/.12) from the toolkit or the same Python environment
cudnn_dir=$(dirname "$cudnn")
rt_dir=""
[ -d "$cudnn_dir/../../cuda_runtime/lib" ] && rt_dir=$cudnn_dir/../../cuda_runtime/lib
export LD_LIBRARY_PATH=$cudnn_dir${rt_dir:+:$rt_dir}:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

# run NAME CAP_S ARGS...: one dnnbench step under `timeout`, its output in NAME.txt; prints the
# summary lines. Skipped when less than 5 s of the budget are left.
run() {
    local name=$1 cap=$2 rem
    shift 2
    rem=$(($(left) - 2))
    [ "$cap" -gt "$rem" ] && cap=$rem
    if [ "$cap" -lt 5 ]; then
        say "=== $name: not run (the time budget is spent)"
        return
    fi
    say "=== $name (at most $cap s): dnnbench $*"
    local t1 rc
    t1=$(date +%s)
    timeout -k 5 "$cap" "$bench" "$@" >"$out/$name.txt" 2>&1
    rc=$?
    say "rc $rc$([ $rc -eq 124 ] && echo ' (timed out: the CSV holds the rows that finished)') in $(($(date +%s) - t1)) s"
    grep -E '^dnnbench:|^tests:|^vs tests:|^geomean|^ +[0-9]+ FAILED|\| FAILED|graph: (call|capture)' "$out/$name.txt" |
        head -n 30 | tee -a "$log"
}

common=(--op=conv --backend=cuda --vs="$cudnn" --graph)

# 1. the naive GPU rows (the oracle of step 2) against ref, small shapes, every direction
for dir in fwd bwd_data bwd_filter; do
    run "naive_$dir" 15 --backend=cuda --impl=fd_conv_${dir}_direct --batch=smoke --mode=corr
done

# 2. N=32: checked (ref / gpu-naive) and timed, both libraries, every shape and direction
# f16 and bf16 in NHWC, the layout of the tensor-core rows (and NVIDIA's fast one); f32 and
# tf32 in NCHW (no fast row of ours yet: the naive kernels serve them)
layout_of() { case $1 in f16 | bf16) echo nhwc ;; *) echo nchw ;; esac; }
for dt in ${DTS:-f32 tf32 f16 bf16}; do
    run "r50_n32_$dt" 40 "${common[@]}" --dir=all --dt="$dt" --layout="$(layout_of "$dt")" --mode=both --n=32 \
        --ref-max-gflop=0.05 --iters=3 --max-ms=30 --batch=bench/shapes/resnet50.txt \
        --csv="$out/r50_n32_$dt.csv"
done

# 3. N=256: timed only, four shapes
for dt in ${DTS:-f32 tf32 f16 bf16}; do
    run "r50_n256_$dt" 20 "${common[@]}" --dir=all --dt="$dt" --layout="$(layout_of "$dt")" --mode=perf --n=256 --iters=2 \
        --warmup=1 --max-ms=30 --batch=bench/shapes/resnet50_sub.txt --csv="$out/r50_n256_$dt.csv"
done

# 4. the memory-bound ops: their smoke sets checked against ref, the large ResNet-50 tensors
#    timed (and checked between the two libraries), f32
for op in pool act softmax lrn bn tensor; do
    run "mem_$op" 10 --op=$op --backend=cuda --vs="$cudnn" --graph --dir=all --dt=f32 --mode=both \
        --ref-max-gflop=0.01 --iters=3 --max-ms=30 --batch="smoke_$op" --batch=memops \
        --csv="$out/mem_$op.csv"
done

# 5. charts
py=""
for p in /usr/bin/python3 python3 /opt/torch/.venv/bin/python; do
    if command -v "$p" >/dev/null 2>&1 && "$p" tools/dnnbench/plot.py --check >/dev/null 2>&1; then
        py=$p
        break
    fi
done
if [ -n "$py" ]; then
    for csv in "$out"/*.csv; do
        [ -s "$csv" ] || continue
        "$py" tools/dnnbench/plot.py "$csv" "${csv%.csv}.png" >>"$log" 2>&1 ||
            say "no chart for $csv"
    done
    say "charts: $(find "$out" -maxdepth 1 -name '*.png' | wc -l) PNG files"
else
    say "charts: not drawn (no python3 with matplotlib here; run tools/dnnbench/plot.py CSV PNG elsewhere)"
fi
say "total: $(($(date +%s) - t_start)) s; results in $out"
