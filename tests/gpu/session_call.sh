#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/gpu/session_call.sh - one device call's worth of the GPU tier and benchmarks, with
# everything it writes packed into few files under $OUT (the device tool brings back a handful of
# files only): $OUT/summary.txt (every step's tail), $OUT/logs.tar.gz (the full logs).
# STEPS (in order, default "build programs onnx host"): build (tests/gpu/run.sh's configure and
# build), programs / onnx / r50 / sanitizers (tests/gpu/run.sh's parts, PROGRAMS narrows;
# programs:X / sanitizers:X take the list PROGRAMS_X),
# host (bench/gpu_host_dnnbench.sh and bench/host_overhead on both libraries), membw
# (bench/gpu_membw.sh with MEMBW_ONLY / MEMBW_ENVS / MEMBW_DIR / MEMBW_BUDGET / MEMBW_CAP),
# extra (the command line EXTRA, with OUT set to the log folder). DEADLINE (seconds from the
# start, default 570): a step that would start past it is skipped, the tier parts are cut at it.
# ONNX cases: build-data/onnx-cases.tar.xz (carried), unpacked to build-data/cases.
set -u
cd "$(dirname "$0")/../.." || exit 2
out=${OUT:?OUT}
export PATH=$PATH:/usr/local/cuda/bin
build=${BUILD_GPU:-build-gpu}
logs=/tmp/session-logs
mkdir -p "$logs"
nv=$(ls /opt/torch/.venv/lib/python3*/site-packages/nvidia/cudnn/lib/libcudnn.so.9 2>/dev/null | head -n 1)
deadline=${DEADLINE:-570}
sum=$out/summary.txt
say() { echo "$*" >>"$sum"; }
left() { echo $((deadline - SECONDS)); }
tier() { # part [name], cut at the deadline; the programs of $PROGRAMS
    local f=$logs/tier-${2:-$1}.txt
    BUILD_GPU=$build LOG_DIR=$logs/tier-${2:-$1} JOBS=$(nproc) PAR=${PAR:-8} PARTS="$1" ONNX_CASES=$PWD/build-data/cases \
        TEST_TIMEOUT=${TEST_TIMEOUT:-300} SANITIZER_TIMEOUT=${SANITIZER_TIMEOUT:-150} R50_TIMEOUT=${R50_TIMEOUT:-150} \
        timeout "$(left)" stdbuf -oL tests/gpu/run.sh >"$f" 2>&1
    echo "tier $1: exit $?" >>"$f"
    grep -vE '^PASS ' "$f" >>"$sum"
    grep -E '^PASS ' "$f" | cut -c1-150 >>"$sum"
}
say "session_call: $(date -u '+%F %T') $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -n 1); NVIDIA cuDNN: ${nv:-none}"
if [ -f build-data/onnx-cases.tar.xz ] && [ ! -d build-data/cases ]; then
    tar -xJf build-data/onnx-cases.tar.xz -C build-data
fi
for s in ${STEPS:-build programs onnx host}; do
    if [ "$(left)" -lt 20 ]; then
        say "=== $s: skipped (deadline)"
        continue
    fi
    t0=$SECONDS
    say "=== $s"
    case $s in
    build)
        BUILD_GPU=$build LOG_DIR=$logs/build JOBS=$(nproc) PARTS=none tests/gpu/run.sh >"$logs/build.txt" 2>&1
        tail -n 3 "$logs/build.txt" >>"$sum" ;;
    programs | onnx | r50 | sanitizers) tier "$s" ;;
    programs:* | sanitizers:*) # the list PROGRAMS_<suffix>: "programs:a" runs $PROGRAMS_a
        v=PROGRAMS_${s#*:}
        PROGRAMS=${!v:-} tier "${s%%:*}" "${s/:/-}" ;;
    host)
        bash bench/gpu_host_dnnbench.sh "$nv" "$build" "$logs/host" >"$logs/host.txt" 2>&1
        cat "$logs/host.txt" >>"$sum"
        make -s -C bench/host_overhead >/dev/null 2>&1
        for lib in "$build/libfreednn.so" "$nv"; do
            bench/host_overhead/host_overhead "$lib" >>"$logs/host_overhead.txt" 2>&1
        done
        cat "$logs/host_overhead.txt" >>"$sum" ;;
    membw)
        OUT=$logs/membw BUDGET=${MEMBW_BUDGET:-100} CAP=${MEMBW_CAP:-12} ONLY=${MEMBW_ONLY:-.} \
            ENVS=${MEMBW_ENVS:-} DIR=${MEMBW_DIR:-all} \
            bash bench/gpu_membw.sh "$nv" "$build" >"$logs/membw.txt" 2>&1
        tail -n 60 "$logs/membw.txt" >>"$sum" ;;
    extra) # EXTRA: a command line of its own (bash -c), its output into the summary
        OUT=$logs bash -c "${EXTRA:-true}" >"$logs/extra.txt" 2>&1
        tail -n "${EXTRA_TAIL:-80}" "$logs/extra.txt" >>"$sum" ;;
    *) say "unknown step $s" ;;
    esac
    say "=== $s: $((SECONDS - t0)) s"
done
tar -czf "$out/logs.tar.gz" -C /tmp session-logs 2>/dev/null
