#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/gpu_conv_vs_cudnn.sh - our cuda backend against NVIDIA's cuDNN 9 on the GPU, through
# dnnbench's cuda device (docs/dnnbench.md, "The cuda device"); written for the device machine
# (docs/perf/gpu-conv-naive-vs-cudnn-2026-11-30.md). Builds libfreednn with -DFREEDNN_CUDA=ON
# and dnnbench, finds libcudnn.so.9 in the Python package nvidia-cudnn-cu1x, and runs
# --op=conv --dir=all on the shape files given, once per data type.
#
# Environment: BUILD (default build-gpu-bench), OUT (where CSVs and logs go, default .), DTS
# (data types, default "f32 f16"), N (batch, default 32), SHAPES (default bench/shapes/resnet50.txt),
# EXTRA (more dnnbench options), TIME_PER_DT (seconds per data type, default 240),
# CMAKE_FLAGS (extra configure flags).
set -u
cd "$(dirname "$0")/.." || exit 2
build=${BUILD:-build-gpu-bench}
out=${OUT:-.}
mkdir -p "$out"
command -v nvcc >/dev/null 2>&1 || export PATH=$PATH:/usr/local/cuda/bin
echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader 2>&1 | head -n 1
t0=$(date +%s)
# shellcheck disable=SC2086
cmake -S . -B "$build" -DFREEDNN_CUDA=ON -DFREEDNN_TESTS=OFF -DCMAKE_BUILD_TYPE=Release ${CMAKE_FLAGS:-} \
    >"$out/configure.log" 2>&1 || { tail -n 30 "$out/configure.log"; exit 1; }
grep -m1 'freednn: cuda backend' "$out/configure.log"
cmake --build "$build" -j 16 --target dnnbench freednn >"$out/build.log" 2>&1 ||
    { grep -E 'error' "$out/build.log" | head -n 30; exit 1; }
echo "build: $(($(date +%s) - t0)) s"
cudnn_dir=$(python3 -c "import nvidia.cudnn as m; print(list(m.__path__)[0])" 2>&1)
cudnn=$(find "$cudnn_dir" -name 'libcudnn.so.9' 2>/dev/null | head -n 1)
echo "cudnn: ${cudnn:-not found under $cudnn_dir}"
[ -n "$cudnn" ] || exit 1
ls "$(dirname "$cudnn")"
LD_LIBRARY_PATH=$(dirname "$cudnn"):/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export LD_LIBRARY_PATH
python3 -m pip show nvidia-cudnn-cu13 nvidia-cudnn-cu12 2>/dev/null | grep -E '^(Name|Version)'
# a probe: two small shapes, both libraries, checked against ref; if NVIDIA's library misbehaves
# when loaded into the main namespace (the default for libcudnn*), the other way is tried
head -n 5 "${SHAPES:-bench/shapes/resnet50.txt}" >"$out/probe_shapes.txt"
for how in "${DNB_VS_LOAD:-default}" dlmopen; do
    DNB_VS_LOAD=$how timeout 60 "$build/tools/dnnbench/dnnbench" --op=conv --dir=all --dt=f32 --backend=cuda \
        --mode=both --vs="$cudnn" --batch="$out/probe_shapes.txt" --n=2 --iters=3 >"$out/probe.txt" 2>&1
    st=$?
    echo "probe (DNB_VS_LOAD=$how): rc $st"
    grep -E '^dnnbench:|^tests:|^ *[0-9]+ ' "$out/probe.txt" | head -n 12
    if [ $st -eq 0 ]; then export DNB_VS_LOAD=$how; break; fi
done
rm -f "$out/probe_shapes.txt"
for dt in ${DTS:-f32 f16}; do
    echo "=== dt $dt"
    cmd=("$build/tools/dnnbench/dnnbench" --op=conv --dir=all --dt="$dt" --backend=cuda --mode=both
        --vs="$cudnn" --batch="${SHAPES:-bench/shapes/resnet50.txt}" --n="${N:-32}" --csv="$out/r50_$dt.csv")
    # shellcheck disable=SC2206
    cmd+=(${EXTRA:-})
    echo "command: ${cmd[*]}"
    t1=$(date +%s)
    timeout "${TIME_PER_DT:-240}" "${cmd[@]}" >"$out/r50_$dt.txt" 2>&1
    echo "rc $? in $(($(date +%s) - t1)) s"
    grep -E '^dnnbench:|^tests:|^geomean|FAILED|error' "$out/r50_$dt.txt" | head -n 40
done
