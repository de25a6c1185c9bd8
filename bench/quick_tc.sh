#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/quick_tc.sh - one device trip for the tensor-core forward row alone: build, the row's GPU
# test, the conv test's smoke subset, and fp16/bf16 NHWC forward on ResNet-50 against NVIDIA's
# cuDNN (dnnbench --vs). Output under $OUT (default .). Environment: BUILD, N (default 32).
set -u
cd "$(dirname "$0")/.." || exit 2
out=${OUT:-.}
build=${BUILD:-build-gpu-tc}
command -v nvcc >/dev/null 2>&1 || export PATH=$PATH:/usr/local/cuda/bin
# shellcheck disable=SC2086
cmake -S . -B "$build" -DFREEDNN_CUDA=ON -DCMAKE_BUILD_TYPE=Release ${CMAKE_FLAGS:-} >"$out/configure.log" 2>&1 ||
    { tail -n 20 "$out/configure.log"; exit 1; }
cmake --build "$build" -j 16 --target freednn dnnbench gpu_test_gpu_conv_tc gpu_test_gpu_conv >"$out/build.log" 2>&1 ||
    { grep -E 'error' "$out/build.log" | head -n 30; exit 1; }
timeout 120 "$build/tests/gpu/gpu_test_gpu_conv_tc" >"$out/tc.log" 2>&1
echo "conv_tc rc $?: $(tail -n 2 "$out/tc.log" | tr '\n' ' ')"
grep -E 'differ|FAIL|expected' "$out/tc.log" | head -n 20
timeout 60 "$build/tests/gpu/gpu_test_gpu_conv" --smoke >"$out/conv_smoke.log" 2>&1
echo "conv smoke rc $?: $(tail -n 1 "$out/conv_smoke.log")"
cudnn=$(ls /opt/torch/.venv/lib/python3*/site-packages/nvidia/cudnn/lib/libcudnn.so.9 2>/dev/null | head -n 1)
[ -n "$cudnn" ] || cudnn=$(find / -name libcudnn.so.9 2>/dev/null | head -n 1)
export LD_LIBRARY_PATH=$(dirname "$cudnn"):/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
for dt in f16 bf16; do
    timeout 150 "$build/tools/dnnbench/dnnbench" --op=conv --dir=fwd --dt=$dt --layout=nhwc --backend=cuda \
        --mode=perf --vs="$cudnn" --batch=bench/shapes/resnet50.txt --n="${N:-32}" --csv="$out/tc_$dt.csv" >"$out/tc_$dt.txt" 2>&1
    echo "dnnbench $dt rc $?"
    grep -E '^geomean|FAILED|rror' "$out/tc_$dt.txt" | head -n 8
done
