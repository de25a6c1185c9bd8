#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/gpu/trip.sh - everything one visit to the GPU machine checks, in one command (device time
# is scarce): the GPU tier (tests/gpu/run.sh: every tests/gpu/test_gpu_* program, the ONNX node
# tests on the cuda handle, compute-sanitizer per $SANITIZERS), the bad-input table against
# NVIDIA's cuDNN (tools/statusvs), LeNet trained on the cuda backend (tests/gpu/lenet_gpu.sh)
# and the binary drop-in proof (tests/gpu/compat_block.sh). Logs and results go to $OUT.
#
# Carried data (ignored build-* folders): build-data/onnx-cases.tar.xz (tests/onnx/convert.py's
# output), build-data/fashion-mnist/, build-data/cudnn-include/ (NVIDIA's headers, for
# compat_block), build-gpu-deps/ (fallbacks for the image).
# Environment: OUT, STEPS (default "tier statusvs lenet compat"; also "bench": bench/
# gpu_tier_bench.sh, "recheck": the programs named by RECHECK, "table": bench/gpu_table.sh with
# TABLE_SETS (default "n32 n256"), "membw": bench/gpu_membw.sh, "wgmma": the dev/wgmma sandbox
# and its SASS check, "heur": bench/heur_vs_find.py on cuda per HEUR_RUNS, "host":
# bench/host_overhead on both libraries, two rounds), SANITIZERS and PAR
# (run.sh's).
set -u
cd "$(dirname "$0")/../.." || exit 2
out=${OUT:-$PWD/trip-out}
mkdir -p "$out"
[ -f build-gpu-deps/setup.sh ] && . build-gpu-deps/setup.sh
command -v nvcc >/dev/null 2>&1 || export PATH=$PATH:/usr/local/cuda/bin
export BUILD_GPU=${BUILD_GPU:-build-gpu}
cudnn=$(ls /opt/torch/.venv/lib/python3*/site-packages/nvidia/cudnn/lib/libcudnn.so.9 2>/dev/null | head -n 1)
echo "trip: $(date -u '+%F %T') NVIDIA cuDNN: ${cudnn:-not found}"
if [ -f build-data/onnx-cases.tar.xz ] && [ ! -d build-data/onnx-cases ]; then
    tar -xJf build-data/onnx-cases.tar.xz -C build-data
fi
export ONNX_CASES=${ONNX_CASES:-$PWD/build-data/onnx-cases}
step() { # name, command...
    local name=$1 t0=$SECONDS
    shift
    echo "=== $name"
    "$@" >"$out/$name.log" 2>&1
    local st=$?
    tail -n "${TAIL:-25}" "$out/$name.log"
    echo "=== $name: exit $st in $((SECONDS - t0)) s"
}
if [ ! -f "$BUILD_GPU/CMakeCache.txt" ]; then # configured as tests/gpu/run.sh does
    # shellcheck disable=SC2086
    cmake -S . -B "$BUILD_GPU" -DFREEDNN_CUDA=ON -DFREEDNN_TESTS=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        ${CMAKE_FLAGS:-} >"$out/configure.log" 2>&1 || tail -n 20 "$out/configure.log"
fi
for s in ${STEPS:-tier statusvs lenet compat}; do
    case $s in
    tier) LOG_DIR=$out/tier JOBS=$(nproc) step tier tests/gpu/run.sh ;;
    statusvs)
        cmake --build "$BUILD_GPU" -j "$(nproc)" --target statusvs >/dev/null 2>&1
        step statusvs "$BUILD_GPU/tools/statusvs/statusvs" --device --vs "$cudnn" "$BUILD_GPU/libfreednn.so" ;;
    recheck) # a few test programs again, no sanitizers: RECHECK="bn tensor"
        for t in ${RECHECK:-bn tensor}; do
            cmake --build "$BUILD_GPU" -j "$(nproc)" --target "gpu_test_gpu_$t" >/dev/null 2>&1
            step "recheck_$t" "$BUILD_GPU/tests/gpu/gpu_test_gpu_$t"
        done ;;
    lenet) step lenet bash tests/gpu/lenet_gpu.sh build-data/fashion-mnist ;;
    bench) OUT=$out/bench BUDGET_S=${BENCH_BUDGET_S:-330} step bench bash bench/gpu_tier_bench.sh "$cudnn" "$BUILD_GPU" ;;
    table) OUT=$out step table bash bench/gpu_table.sh "$cudnn" "$BUILD_GPU" ${TABLE_SETS:-n32 n256} ;;
    membw) OUT=$out step membw bash bench/gpu_membw.sh "$cudnn" "$BUILD_GPU" ;;
    heur) # Get_v7 against Find on cuda: HEUR_RUNS="set dt layout[,...]" (set: deepbench or r50)
        cmake --build "$BUILD_GPU" -j "$(nproc)" --target dnnbench >/dev/null 2>&1
        IFS=, read -r -a runs <<<"${HEUR_RUNS:-deepbench f16 nhwc,r50 f16 nhwc}"
        for r in "${runs[@]}"; do
            set -- $r
            shapes=bench/shapes/deepbench_train.txt nopt=()
            [ "$1" = r50 ] && shapes=bench/shapes/resnet50.txt nopt=(--n="${HEUR_N:-32}")
            step "heur_$1_$2_$3" timeout "${HEUR_CAP:-150}" python3 bench/heur_vs_find.py "$shapes" \
                "${nopt[@]}" --backend=cuda --dt="$2" --layout="$3" --out="$out/heur_$1_$2_$3" \
                --dnnbench="$BUILD_GPU/tools/dnnbench/dnnbench"
        done ;;
    host) # host time per convolution call, ours and NVIDIA's, two rounds (issue 7 item 3)
        cmake --build "$BUILD_GPU" -j "$(nproc)" --target freednn >/dev/null 2>&1
        make -s -C bench/host_overhead >/dev/null 2>&1
        step host bash -c "for i in 1 2; do HOST_PROBES=1 bench/host_overhead/host_overhead $BUILD_GPU/libfreednn.so; \
            bench/host_overhead/host_overhead $cudnn; done" ;;
    wgmma) step wgmma bash -c 'make -C dev/wgmma && timeout 60 dev/wgmma/fwd && make -C dev/wgmma sass' ;;
    compat) step compat bash tests/gpu/compat_block.sh --freednn "$BUILD_GPU" --nvidia-lib "$(dirname "$cudnn")" \
        --nvidia-include build-data/cudnn-include ;;
    esac
done
# one archive for the many per-program logs (the device tool returns a bounded number of files)
if [ -d "$out/tier" ]; then
    tar -czf "$out/tier-logs.tar.gz" -C "$out" tier && rm -rf "$out/tier"
fi
