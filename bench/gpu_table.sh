#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/gpu_table.sh - the GPU table of docs/perf/gpu-table-2026-11-30.md in one short device
# trip: dnnbench --vs NVIDIA's cuDNN 9 on ResNet-50 (bench/shapes/resnet50.txt) at N=32, every
# direction, f16 and bf16 in NHWC (the tensor-core rows); N=256 on the four-shape subset; the
# memory-bound ops on bench/shapes/memops.txt (f32, --graph). Timing only: correctness is the GPU
# tier's (tests/gpu/run.sh). Everything lands in $OUT/gpu-table.tar.gz (the device tool returns
# few files). Usage: bench/gpu_table.sh LIBCUDNN_SO_9 BUILD_DIR
set -u
cd "$(dirname "$0")/.." || exit 2
cudnn=$1 build=$2 out=${OUT:-.}/gpu-table
mkdir -p "$out"
cmake --build "$build" -j "$(nproc)" --target dnnbench freednn >"$out/build.log" 2>&1 || { tail -n 20 "$out/build.log"; exit 1; }
dnb="$build/tools/dnnbench/dnnbench"
run() { # name seconds args...
    local name=$1 cap=$2
    shift 2
    echo "=== $name: dnnbench $*" | tee "$out/$name.txt"
    timeout "$cap" "$dnb" "$@" --csv="$out/$name.csv" >>"$out/$name.txt" 2>&1
    echo "rc $?" >>"$out/$name.txt"
    grep -E '^geomean|^tests:|^rc' "$out/$name.txt"
}
for dt in f16 bf16; do
    run "r50_n32_$dt" 100 --op=conv --backend=cuda --vs="$cudnn" --dir=all --dt=$dt --layout=nhwc \
        --mode=perf --n=32 --iters=5 --batch=bench/shapes/resnet50.txt
done
for dt in f16 bf16; do
    run "r50_n256_$dt" 45 --op=conv --backend=cuda --vs="$cudnn" --dir=all --dt=$dt --layout=nhwc \
        --mode=perf --n=256 --iters=3 --batch=bench/shapes/resnet50_sub.txt
done
for op in act pool softmax bn tensor lrn; do
    run "mem_$op" 15 --op=$op --backend=cuda --vs="$cudnn" --graph --dir=all --dt=f32 --mode=perf \
        --iters=5 --batch=memops
done
tar -czf "${OUT:-.}/gpu-table.tar.gz" -C "${OUT:-.}" gpu-table && rm -rf "$out"
