#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/gpu_table.sh - the GPU tables of docs/perf/ in short device trips: dnnbench --vs NVIDIA's
# cuDNN 9, every direction, timing only (correctness is the GPU tier's: tests/gpu/run.sh).
# Sets (arguments after the two paths; default "n32"):
#   n32       ResNet-50 (bench/shapes/resnet50.txt) at N=32: f16, bf16, tf32 in NHWC; f32 (FMA
#             math) in NHWC and NCHW
#   n256      the same at N=256
#   deepbench the DeepBench training set (bench/shapes/deepbench_train.txt, its own N): f16,
#             bf16, tf32 NHWC and f32 NCHW (DB_SPECS picks "dtype layout" pairs, comma-separated;
#             DB_LINES a sed range of its problem lines, e.g. "77,\$")
#   mem       the memory-bound ops on bench/shapes/memops.txt (f32, --graph)
# Data: --fill=real (small-integer fills are mostly zeros at large K, which flatters tensor-core
# power draw); above 20 GFLOP a call's agreement between the two libraries is not checked
# (dnnbench --vs-check-max-gflop) and large inputs repeat a 1 M-element random tile: both keep
# the host from eating the trip. Each run has a cap (seconds); CAP_SCALE multiplies them;
# TABLE_SPECS picks the "dtype layout" pairs of n32 / n256 (comma-separated); TABLE_DIRS one
# direction (dnnbench --dir: fwd, bwd_data, bwd_filter; default all) for every set.
# Everything lands in $OUT/gpu-table-<sets>.tar.gz (the device tool returns few files).
# Usage: bench/gpu_table.sh LIBCUDNN_SO_9 BUILD_DIR [SET...]
set -u
cd "$(dirname "$0")/.." || exit 2
cudnn=$1 build=$2
shift 2
sets=${*:-n32}
tag=$(echo "$sets" | tr ' ' '-')
out=${OUT:-.}/gpu-table-$tag
mkdir -p "$out"
cmake --build "$build" -j "$(nproc)" --target dnnbench freednn >"$out/build.log" 2>&1 || { tail -n 20 "$out/build.log"; exit 1; }
dnb="$build/tools/dnnbench/dnnbench"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader >"$out/card.txt" 2>&1
run() { # name seconds args...
    local name=$1 cap
    cap=$(awk -v c="$2" -v s="${CAP_SCALE:-1}" 'BEGIN { printf "%d", c * s }')
    shift 2
    echo "=== $name: dnnbench $*" | tee "$out/$name.txt"
    local t0=$SECONDS
    timeout "$cap" "$dnb" "$@" --csv="$out/$name.csv" >>"$out/$name.txt" 2>&1
    echo "rc $? in $((SECONDS - t0)) s (cap $cap)" >>"$out/$name.txt"
    grep -E '^geomean|^tests:|^rc' "$out/$name.txt"
}
conv() { # name cap n-option shapes dt layout
    run "$1" "$2" --op=conv --backend=cuda --vs="$cudnn" --dir="${TABLE_DIRS:-all}" --dt="$5" --layout="$6" \
        --mode=perf --fill=real $3 --iters=5 --batch="$4"
}
for set in $sets; do
    case $set in
    n32 | n256)
        n=${set#n}
        cap=$([ "$n" = 32 ] && echo 50 || echo 100)
        IFS=, read -r -a specs <<<"${TABLE_SPECS:-f16 nhwc,bf16 nhwc,tf32 nhwc,f32 nhwc,f32 nchw}"
        for spec in "${specs[@]}"; do
            set -- $spec
            conv "r50_${set}_$1_$2" "$cap" --n="$n" bench/shapes/resnet50.txt "$1" "$2"
        done ;;
    deepbench)
        IFS=, read -r -a specs <<<"${DB_SPECS:-f16 nhwc,bf16 nhwc,tf32 nhwc,f32 nchw}"
        db=bench/shapes/deepbench_train.txt
        if [ -n "${DB_LINES:-}" ]; then # a range of the problem lines, e.g. "1,13" or "77,\$"
            db=$out/deepbench_lines.txt
            grep -v '^#' bench/shapes/deepbench_train.txt | sed -n "${DB_LINES}p" >"$db"
        fi
        for spec in "${specs[@]}"; do
            set -- $spec
            conv "db_train_$1_$2" 80 "" "$db" "$1" "$2"
        done ;;
    mem)
        for op in act pool softmax bn tensor lrn; do
            run "mem_$op" 15 --op=$op --backend=cuda --vs="$cudnn" --graph --dir=all --dt=f32 \
                --mode=perf --iters=5 --batch=memops
        done ;;
    *) echo "unknown set $set (n32, n256, deepbench, mem)" ;;
    esac
done
tar -czf "${OUT:-.}/gpu-table-$tag.tar.gz" -C "${OUT:-.}" "gpu-table-$tag" && rm -rf "$out"
