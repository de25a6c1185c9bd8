#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/gpu_newrows.sh - times the cuda conv rows of the seventh session against NVIDIA cuDNN 9
# (dnnbench --vs, same process, CUDA events, median of --iters samples) and against the rows
# they displace, in one go:
#   smallc   conv_smallc.cu (C <= 4: DeepBench's speech layers and RGB stems), f16 and tf32 NHWC,
#            all three directions; then FREEDNN_SMALLC=0 (the channel-padding rows) on the same
#   wino     conv_winograd.cu, f32 NCHW FMA math: --algo=7 (fwd WINOGRAD_NONFUSED) and --algo=5
#            (bwd data WINOGRAD_NONFUSED) against --algo=heur (the FFMA implicit GEMM) on 3x3
#            stride-1 layers, NVIDIA on its own Get_v7 choice
#   int8     conv_int8.cu, ResNet-50's layers at N=32 (C % 4 == 0 ones), NHWC, forward
#            IMPLICIT_PRECOMP_GEMM: imma (default) with --vs, then FREEDNN_INT8_IMMA=0 (dp4a)
# STEPS narrows ("smallc wino int8"); CSVs and logs go to $OUT/newrows/.
# Usage: bench/gpu_newrows.sh LIBCUDNN_SO_9 BUILD_DIR
set -u
nv=$1
build=$2
out=${OUT:-$PWD/newrows-out}/newrows
mkdir -p "$out"
db="$build/tools/dnnbench/dnnbench"
common=(--op=conv --backend=cuda --mode=perf --fill=real --iters="${ITERS:-5}")
run() { # name, timeout, [VAR=value...] -- dnnbench args...
    local name=$1 cap=$2 envs=()
    shift 2
    while [ "$1" != -- ]; do envs+=("$1"); shift; done
    shift
    local t0=$SECONDS
    env "${envs[@]}" timeout "$cap" "$db" "${common[@]}" --csv="$out/$name.csv" "$@" >"$out/$name.log" 2>&1
    echo "== $name: exit $? in $((SECONDS - t0)) s"
    grep -E '^geomean|^tests:' "$out/$name.log" | tail -n 4
}
smallc_p=(n4c1h161w700k32r5s20p0u2 n8c1h161w700k32r5s20p0u2 n16c1h161w700k32r5s20p0u2
    n32c1h161w700k32r5s20p0u2 n16c1h161w700k64r5s5p1u2 n16c1h48w480k16r3s3p1u1
    n8c3h108w108k64r3s3p1u2 n8c3h224w224k64r3s3p1u1 n16c3h224w224k64r3s3p1u1
    n16c3h224w224k64r7s7p3u2 n32c3h224w224k64r7s7p3u2)
wino_p=(n8c512h7w7k512r3s3p1u1 n16c512h7w7k512r3s3p1u1 n32c512h7w7k512r3s3p1u1
    n32c256h14w14k256r3s3p1u1 n32c128h28w28k128r3s3p1u1 n32c64h56w56k64r3s3p1u1
    n16c256h14w14k256r3s3p1u1 n8c64h56w56k64r3s3p1u1)
for s in ${STEPS:-smallc wino int8}; do
    case $s in
    smallc)
        for dt in f16 tf32; do
            run "smallc_${dt}_vs" 120 -- --dir=all --dt="$dt" --layout=nhwc --vs="$nv" "${smallc_p[@]}"
            run "smallc_${dt}_off" 90 FREEDNN_SMALLC=0 -- --dir=all --dt="$dt" --layout=nhwc "${smallc_p[@]}"
        done ;;
    wino)
        run wino_fwd_heur_vs 90 -- --dir=fwd --dt=f32 --layout=nchw --math=fma --vs="$nv" "${wino_p[@]}"
        run wino_fwd_algo7 90 -- --dir=fwd --dt=f32 --layout=nchw --math=fma --algo=7 "${wino_p[@]}"
        run wino_bwdd_heur_vs 90 -- --dir=bwd_data --dt=f32 --layout=nchw --math=fma --vs="$nv" "${wino_p[@]}"
        run wino_bwdd_algo5 90 -- --dir=bwd_data --dt=f32 --layout=nchw --math=fma --algo=5 "${wino_p[@]}" ;;
    int8)
        grep -vE '^\s*#|^\s*$' bench/shapes/resnet50.txt | awk '$2 % 4 == 0' >"$out/r50_c4.txt"
        run int8_imma_vs 120 -- --dir=fwd --dt=int8 --layout=nhwc --algo=1 --n=32 --vs="$nv" --batch="$out/r50_c4.txt"
        run int8_dp4a 90 FREEDNN_INT8_IMMA=0 -- --dir=fwd --dt=int8 --layout=nhwc --algo=1 --n=32 --batch="$out/r50_c4.txt" ;;
    esac
done
