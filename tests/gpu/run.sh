#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/gpu/run.sh - the GPU tier in one go (DESIGN D9; `make test-gpu`): configure a CUDA build
# (build-gpu), build the library and the GPU tests, run them, run compute-sanitizer's memcheck
# (with padding between allocations), racecheck and initcheck on the smoke subset, and end with
# the `N passed, N failed` line. A test program's own checks count one each; every other step
# (configure, build, each sanitizer run) counts as one check.
#
# ONNX conformance on the cuda handle: ONNX_CASES names a directory made by tests/onnx/convert.py
# (the GPU machine may lack python3-onnx; convert here and carry it); default: $BUILD_GPU's own.
#
# Environment: BUILD_GPU (build directory, default build-gpu), JOBS (default: all cores),
# CMAKE_FLAGS (extra configure flags), LOG_DIR (full logs, default $BUILD_GPU/gpu-logs),
# COMPUTE_SANITIZER (the tool, default: found on PATH or under /usr/local/cuda), TEST_TIMEOUT and
# SANITIZER_TIMEOUT (seconds per run, default 600 and 400; a run cut off counts as failed;
# RACECHECK_TIMEOUT, default 1200, replaces the latter for racecheck),
# SANITIZERS (the compute-sanitizer tools to run, default "memcheck racecheck initcheck"),
# R50_TIMEOUT (seconds per ResNet-50 dnnbench run, default 300), R50_SPECS (the "dtype layout"
# pairs of that pass, comma-separated), PARTS (which parts run after the build, default
# "programs onnx r50 sanitizers"; PROGRAMS="find conv_tc" narrows the programs and sanitizer
# runs to those tests/gpu/test_gpu_<name> programs), PAR (programs and sanitizer runs at a
# time, default 4: their host-side references are the slow part), PREBUILT (non-empty: $BUILD_GPU
# holds binaries built elsewhere, e.g. carried to the GPU machine; no configure or build).
set -u
cd "$(dirname "$0")/../.." || exit 2
build=${BUILD_GPU:-build-gpu}
jobs=${JOBS:-$(nproc)}
logs=${LOG_DIR:-$build/gpu-logs}
mkdir -p "$logs"
passed=0
failed=0

say() { printf '%s\n' "$*"; }
tally() { # name status(0 ok) detail
    if [ "$2" -eq 0 ]; then passed=$((passed + 1)); say "PASS  $1  $3"; else failed=$((failed + 1)); say "FAIL  $1  $3"; fi
}
finish() {
    say "gpu tier: logs in $logs"
    say "$passed passed, $failed failed"
    [ "$failed" -eq 0 ]
    exit $?
}
# Adds a program's own "N passed, N failed" line (the last one in its log) to the totals.
add_counts() { # log
    local line p f
    line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$1" | tail -n 1)
    [ -n "$line" ] || return 1
    p=${line%% passed*}
    f=${line#*, }
    f=${f%% failed*}
    passed=$((passed + p))
    failed=$((failed + f))
    return 0
}

say "gpu tier: $(date -u '+%Y-%m-%d %H:%M UTC') on $(hostname)"
if command -v nvidia-smi >/dev/null 2>&1; then
    say "gpu tier: $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | head -n 1)"
fi

# ---- configure and build ------------------------------------------------------------------
if [ -n "${PREBUILT:-}" ]; then # built elsewhere for this GPU and carried: no configure / build
    say "gpu tier: prebuilt $build (PREBUILT)"
else
    t0=$(date +%s)
    # shellcheck disable=SC2086 # CMAKE_FLAGS is a list of flags
    cmake -S . -B "$build" -DFREEDNN_CUDA=ON -DFREEDNN_TESTS=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        ${CMAKE_FLAGS:-} >"$logs/configure.log" 2>&1
    st=$?
    tally configure $st "$(grep -m1 'freednn: cuda backend' "$logs/configure.log" | sed 's/^-- //')"
    if [ $st -ne 0 ]; then tail -n 30 "$logs/configure.log"; finish; fi
    cmake --build "$build" -j "$jobs" --target gpu_tests onnx_conv onnx_ops dnnbench >"$logs/build.log" 2>&1
    st=$?
    tally build $st "library and tests/gpu in $(($(date +%s) - t0)) s (-j $jobs; warnings: $(grep -c 'warning' "$logs/build.log"))"
    if [ $st -ne 0 ]; then grep -E 'error|Error' "$logs/build.log" | head -n 30; finish; fi
fi
tests=$(ls "$build"/tests/gpu/gpu_test_gpu_* 2>/dev/null | sort)
if [ -n "${PROGRAMS:-}" ]; then
    tests=$(for p in $PROGRAMS; do ls "$build/tests/gpu/gpu_test_gpu_$p" 2>/dev/null; done)
fi
parts=" ${PARTS:-programs onnx r50 sanitizers} "
part() { case $parts in *" $1 "*) return 0 ;; esac; return 1; }

# ---- the tests ----------------------------------------------------------------------------
# Runs "$@" in the background once fewer than $PAR jobs run, leaving "status seconds" in $rcf.
PAR=${PAR:-4}
spawn() { # rcfile command...
    local rcf=$1
    shift
    while [ "$(jobs -rp | wc -l)" -ge "$PAR" ]; do wait -n; done
    ( t0=$(date +%s); "$@"; echo "$? $(($(date +%s) - t0))" >"$rcf" ) &
}
part programs || tests_run=
for test_bin in ${tests_run-$tests}; do # PAR at a time (the host-side references are the slow part)
    name=${test_bin##*/gpu_}
    rm -f "$logs/$name.rc"
    spawn "$logs/$name.rc" sh -c 'timeout "$1" "$2" >"$3" 2>&1' sh "${TEST_TIMEOUT:-600}" "$test_bin" "$logs/$name.log"
done
wait
for test_bin in ${tests_run-$tests}; do
    name=${test_bin##*/gpu_}
    read -r st secs <"$logs/$name.rc" || { st=125 secs=0; }
    if [ $st -eq 77 ]; then
        say "SKIP  $name  $(tail -n 1 "$logs/$name.log")"
        say "gpu tier: no usable GPU here; nothing else to run"
        finish
    fi
    grep -E "^$name|runs checked|determinism:|cases, [0-9]+ failed" "$logs/$name.log"
    grep -E 'FAIL|failed:' "$logs/$name.log" | grep -v ' 0 failed' | head -n 20
    if ! add_counts "$logs/$name.log" || [ $st -gt 1 ]; then
        tally "$name" 1 "exit $st without its closing count (crash or timeout?)"
        tail -n 20 "$logs/$name.log"
    else
        say "      $name  exit $st in $secs s: $(tail -n 1 "$logs/$name.log")"
    fi
done

# ---- ONNX node tests on the cuda handle (the default handle where a GPU runs) ------------
onnx=${ONNX_CASES:-$build/tests/onnx/cases}
if ! part onnx; then
    :
elif [ -f "$onnx/index.txt" ] && [ -f "$onnx/ops/index.txt" ]; then
    for prog in onnx_conv onnx_ops; do
        t0=$(date +%s)
        timeout "${TEST_TIMEOUT:-600}" "$build/tests/onnx/$prog" "$onnx" >"$logs/$prog.log" 2>&1
        st=$?
        grep -E '^onnx (conv|ops):' "$logs/$prog.log" | tail -n 2
        grep -E '^FAILED' "$logs/$prog.log" | head -n 10
        if ! add_counts "$logs/$prog.log" || [ $st -gt 1 ]; then
            tally "$prog" 1 "exit $st without its closing count"
        else
            say "      $prog  exit $st in $(($(date +%s) - t0)) s: $(tail -n 1 "$logs/$prog.log")"
        fi
    done
else
    tally onnx 1 "no converted ONNX cases at $onnx (run tests/onnx/convert.py and set ONNX_CASES)"
fi

# ---- every cuda conv row against the naive GPU kernel on ResNet-50 at N = 32 -----------------
# dnnbench --ref=gpu: the naive rows in DOUBLE are the oracle (they are checked against ref on
# the smoke shapes by test_gpu_conv); f16 / bf16 in NHWC reach the tensor-core rows, f32 the
# naive ones. Each line counts one check; a run cut off by R50_TIMEOUT counts as failed.
part r50 || R50_SPECS=
IFS=, read -r -a r50_specs <<<"${R50_SPECS-f16 nhwc,bf16 nhwc,f32 nchw}"
for spec in "${r50_specs[@]}"; do
    set -- $spec
    name="r50_n32_$1"
    t0=$(date +%s)
    timeout "${R50_TIMEOUT:-300}" "$build/tools/dnnbench/dnnbench" --op=conv --backend=cuda --dir=all \
        --dt="$1" --layout="$2" --mode=corr --ref=gpu --n=32 --batch=bench/shapes/resnet50.txt \
        >"$logs/$name.log" 2>&1
    st=$?
    line=$(grep -E '^tests:' "$logs/$name.log" | tail -n 1)
    if [ -z "$line" ] || [ $st -gt 1 ]; then
        tally "$name" 1 "exit $st without its summary (timeout?)"
        continue
    fi
    p=$(echo "$line" | sed -E 's/.* passed:([0-9]+).*/\1/')
    f=$(echo "$line" | sed -E 's/.* failed:([0-9]+).*/\1/')
    passed=$((passed + p))
    failed=$((failed + f))
    say "      $name  exit $st in $(($(date +%s) - t0)) s: $line"
    grep -E ' FAILED ' "$logs/$name.log" | head -n 5
done

# ---- compute-sanitizer on the smoke subsets -----------------------------------------------
part sanitizers || finish
san=${COMPUTE_SANITIZER:-$(command -v compute-sanitizer || true)}
for c in /usr/local/cuda/bin/compute-sanitizer /usr/local/cuda/compute-sanitizer/compute-sanitizer; do
    [ -n "$san" ] || { [ -x "$c" ] && san=$c; }
done
if [ -z "$san" ]; then
    tally compute-sanitizer 1 "not found (set COMPUTE_SANITIZER)"
    finish
fi
say "gpu tier: $("$san" --version 2>&1 | grep -i version | tail -n 1)"
# The wgmma programs' children (test_gpu_conv_wgmma.c's run_child). Under racecheck they run
# apart from the parent (FD_GPU_CHILDREN_APART=1 there, FD_WGMMA_TEST_CHILD=N for child N): one
# after the other inside conv_wgmma_bwd's run they took more than the 565 s one device command
# had left (2026-12-06). The children run one after another, side by side with the parent:
# racecheck held 55 GB of host memory for that parent and up to 53 GB for child 3 (H100 machine,
# 128 GB: all four at once were killed for memory). This way, racecheck of both wgmma programs
# alone: 335 s, 109 GB at the peak (parent 254 s; children 5 + 209 + 121 s). With the rest of
# the tier beside them on such a machine, give them a call of their own (PROGRAMS=...).
children_of() { # program name (test_gpu_...) -> child names
    case $1 in
    test_gpu_conv_wgmma) echo 1 ;;
    test_gpu_conv_wgmma_bwd) echo 2 3 4 ;;
    esac
}
san_timeout() { # tool -> seconds
    # racecheck runs the wgmma programs' smoke sets for minutes: on an H100 with twelve runs at
    # a time, conv_plan took 541 s alone (2026-12-06), so it has a timeout of its own
    if [ "$1" = racecheck ]; then echo "${RACECHECK_TIMEOUT:-1200}"; else echo "${SANITIZER_TIMEOUT:-400}"; fi
}
# One sanitizer run of bin's smoke set into log (spawn runs it in a subshell, so a function will
# do): env_set is "" or one VAR=value for the program.
san_job() { # log, seconds, tool, bin, env_set, sanitizer options...
    local log=$1 t=$2 tool=$3 bin=$4 env_set=$5
    shift 5
    # shellcheck disable=SC2086 # env_set: nothing or one assignment
    timeout "$t" env $env_set "$san" --tool "$tool" --error-exitcode 99 "$@" "$bin" --smoke >"$log" 2>&1
}
start_sanitizer() { # program, tool, extra options...: runs in the background (spawn)
    local bin=$1 tool=$2 name apart=
    name=${1##*/gpu_}
    shift 2
    [ "$tool" = racecheck ] && [ -n "$(children_of "$name")" ] && apart=FD_GPU_CHILDREN_APART=1
    rm -f "$logs/sanitizer-$tool-$name.rc"
    spawn "$logs/sanitizer-$tool-$name.rc" san_job "$logs/sanitizer-$tool-$name.log" \
        "$(san_timeout "$tool")" "$tool" "$bin" "$apart" "$@"
}
children_chain() { # program, name: its children under racecheck, one after another
    local bin=$1 name=$2 ch t0
    for ch in $(children_of "$name"); do
        t0=$(date +%s)
        san_job "$logs/sanitizer-racecheck-$name.child$ch.log" "$(san_timeout racecheck)" racecheck \
            "$bin" "FD_WGMMA_TEST_CHILD=$ch" --racecheck-report analysis
        echo "$? $(($(date +%s) - t0))" >"$logs/sanitizer-racecheck-$name.child$ch.rc"
    done
}
start_children() { # program: children_chain in the background (one spawn)
    local bin=$1 name
    name=${1##*/gpu_}
    rm -f "$logs/sanitizer-racecheck-$name".child*.rc
    spawn "$logs/sanitizer-racecheck-$name.children.rc" children_chain "$bin" "$name"
}
report_sanitizer() { # program, tool, child ("" for the program itself)
    local bin=$1 tool=$2 name st secs summary log
    name=${1##*/gpu_}${3:+.child$3}
    log="$logs/sanitizer-$tool-$name.log"
    read -r st secs <"$logs/sanitizer-$tool-$name.rc" || { st=125 secs=0; }
    summary=$(grep -E '(ERROR|RACECHECK) SUMMARY' "$log" | tail -n 1 | sed 's/^========= //')
    [ -n "$summary" ] || summary="no summary line"
    if [ $st -eq 0 ] && ! grep -qE '^[0-9]+ passed, 0 failed$' "$log"; then
        st=1 # the program itself must pass under the tool too
    fi
    tally "$tool $name" $st "$summary; $(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$log" | tail -n 1) in $secs s"
    [ $st -eq 0 ] || grep -E '^========= (Invalid|Race|Uninitialized|Program hit|Error)' "$log" | sort | uniq -c | head -n 10
}
for test_bin in $tests; do
    for tool in ${SANITIZERS-memcheck racecheck initcheck}; do
        case $tool in
        memcheck) start_sanitizer "$test_bin" memcheck --padding 4096 --leak-check full ;;
        racecheck)
            start_sanitizer "$test_bin" racecheck --racecheck-report analysis
            [ -z "$(children_of "${test_bin##*/gpu_}")" ] || start_children "$test_bin"
            ;;
        *) start_sanitizer "$test_bin" "$tool" ;;
        esac
    done
done
wait
for test_bin in $tests; do
    for tool in ${SANITIZERS-memcheck racecheck initcheck}; do
        report_sanitizer "$test_bin" "$tool" ""
        if [ "$tool" = racecheck ]; then
            for ch in $(children_of "${test_bin##*/gpu_}"); do
                report_sanitizer "$test_bin" racecheck "$ch"
            done
        fi
    done
done
finish
