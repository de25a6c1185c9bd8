#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/gpu_membw.sh - the memory-bound cuda rows against NVIDIA cuDNN 9 on large tensors, in GB/s
# of compulsory traffic (issue 7.4: the target is >= 3.4 TB/s, the H200 copies at 4.2).
# dnnbench --vs, --mode=perf --graph --dir=all, one run per (op, dtype, layout): act (relu),
# pool (3x3 s2 p1 max and 2x2 s2 avg), softmax (channel; C = 256 and C = 64, the warp-per-row
# rows), bn (spatial: fwd_infer, fwd_train, bwd), tensor (add_tensor with a 1xCx1x1 bias, op
# add), reduce (cudnnReduceTensor ADD per channel, keep=c, and over C, keep=nhw), lrn; f32 and
# f16; NCHW and NHWC.
# Problems (SIZE=small, the default): 51 MB per tensor, just over the H200's 50 MB L2, so the
# host-side fills and checks stay short: f32 n32c128h56w56 (12.8 M elements; C = 64 rows:
# n16c64h112w112), f16 n32c256h56w56 (25.7 M; n32c64h112w112). SIZE=big: the 103 MB problems
# of 2026-11-30 (n32c256h56w56 and n64c64h112w112 in both types). SIZE=ref: 102.8 M elements
# (411 MB f32, 206 MB f16), the size of performance.md 3.8's anchors: n128c64h112w112 (softmax
# also n32c256h112w112); give these runs a longer CAP (their host fills and checks take seconds).
# Runs skip the host ref oracle (REF_GFLOP=0: --ref-max-gflop=0; the single-threaded ref over
# 25 M elements is what made most runs hit their cap): dnnbench then checks NVIDIA's outputs
# against ours, and the ref checks of these kernels are the tests/gpu programs' job.
# Prints per row: ours and NVIDIA's GB/s from the events and from the graph replay (gbytes /
# graph_ms: no launch overhead), and their ratio. Every run is capped (CAP seconds, 14) and the
# whole script stops starting runs after BUDGET seconds (215), so it ends within 240 s.
# ONLY=regex runs only the matching run names (e.g. ONLY='bn|softmax'); DTS / LAYOUTS narrow
# the types ("f32 f16") and layouts ("nchw nhwc"); DIR the directions (dnnbench --dir: all, the
# default, or fwd / bwd / fwd_infer ...: an A/B of forward kernels in half the device time).
# ENVS='A=1 B=2;C=0' runs every selected row again once per ';'-separated set of environment
# settings, named <run>+e1, <run>+e2, ... (env.txt maps them), right after the plain run, so the
# old and new kernels are timed minutes apart: ENVS='FREEDNN_GPU_BW2=0' times the kernels that
# switch turns off (the 16-byte transpose: tensor op=transform; the 2 x 2 average NCHW kernels
# and the NCHW stride-2 backward at 5 blocks an SM: pool; the cheap zero test of the NHWC
# max-pool forward, which the real fill never reaches). Unset (the default): each row runs once.
# E.g. ONLY='tensor_f|pool_f32_nchw' ENVS='FREEDNN_GPU_BW2=0'. ENVS='FREEDNN_GPU_BW3=0' times the
# third round's variants against the kernels before them (pool: the FLOAT 3x3 / 2 pad 1 NCHW
# max backward gather pool_s2g_max_bwd_f32 against pool_s2_bwd_occ; lrn: the FLOAT column
# kernels' power by ex2 / lg2 instead of powf; softmax: the FLOAT NHWC forward's 1 / sum product;
# tensor op=transform: the pipelined transpose tensor_transpose_pipe;
# FREEDNN_GPU_BW3_S2G_MINB=3 runs the pool gather at 3 blocks an SM instead of 4,
# FREEDNN_GPU_BW3_LRN_AHEAD=0 the FLOAT LRN column kernels with their earlier look-aheads (8
# channels forward, a ring of 4 backward) instead of 16 and 6), e.g.
# ONLY='pool_f32_nchw|lrn_f32_nchw|softmax_f32_nhwc|tensor_f32'
# ENVS='FREEDNN_GPU_BW3=0;FREEDNN_GPU_BW3_S2G_MINB=3 FREEDNN_GPU_BW3_LRN_AHEAD=0'.
# ENVS='FREEDNN_GPU_BW5=0' times the fifth round's 3x3 / 2 pad 1 max-pool backward gathers
# (pooling_s2g.cuh) against the kernels before them: pool_f16_nchw / bf16 NCHW
# pool_s2g_max_bwd_f16 (4 elements a lane) against pool_s2_bwd_occ, pool_*_nhwc
# pool_s2g_max_bwd_nhwc_{f32,f16,bf16} (a 2 x 2 dx block of one 16-byte channel vector a thread)
# against the sweep pool_s2_bwd_vec, e.g. ONLY='pool' ENVS='FREEDNN_GPU_BW5=0'.
# FREEDNN_GPU_POOL_AVGV=0 (pool_*_nhwc avg_excl: the sweeps pool_s2_{fwd,bwd}_vec instead of
# pooling_avgv.cuh's, e.g. ONLY='pool_f(16|32)_nhwc' ENVS='FREEDNN_GPU_POOL_AVGV=0').
# Thirteenth session's switches (each default on): FREEDNN_GPU_LRN_LEAN=0 (lrn: the stamped
# FLOAT column kernels instead of lrn_lean.cuh's, whose backward does not read y),
# FREEDNN_GPU_SM_LEAN=0 (softmax: softmax_wreg without its LEAN instantiations),
# FREEDNN_GPU_SM_FASTEXP=0 (softmax: the FLOAT forward's expf instead of
# __expf), FREEDNN_GPU_SM_WREG=L,N (softmax: every softmax_wreg call in L lanes x N vectors).
# FREEDNN_GPU_SM_FCOLS=0 (softmax: the NCHW forward on softmax_fwd_rows_online instead of
# softmax_fwd_cols, x in registers), e.g. ONLY='softmax_f(16|32)_nchw' ENVS='FREEDNN_GPU_SM_FCOLS=0'.
# FREEDNN_GPU_SM_BCG16=0 (softmax: the NCHW backward of 129-256 channels on softmax_bwd_cols'
# CPT 32 x 8 groups instead of softmax_bwd_cols16's 16 x 16), e.g. ONLY='softmax_f16_nchw' DIR=bwd
# ENVS='FREEDNN_GPU_SM_BCG16=0'.
# FREEDNN_GPU_SM_BCOLS3=0 (softmax: the NCHW backward with alpha 1, beta 0 on softmax_bwd_cols /
# softmax_bwd_cols16 instead of softmax_bwd_cols_lean, a block a tile, the partials folded once a
# pixel, 36-64 registers; the same bits), e.g. ONLY='softmax_f(16|32)_nchw' DIR=bwd
# ENVS='FREEDNN_GPU_SM_BCOLS3=0'.
# FREEDNN_GPU_BN_CLUSTER=0 (bn fwd_train, SPATIAL packed NCHW f32 / f16 / bf16 on compute
# capability 9.0: the per-tile / packed multi-block kernels instead of bn_cl_train, a cluster
# of 2..16 CTAs per channel that reads x once into shared memory), e.g. ONLY='bn_f(32|16)_nchw'
# ENVS='FREEDNN_GPU_BN_CLUSTER=0'.
# FREEDNN_GPU_BN_CLUSTER_BWD=0 (bn bwd, the same data: the packed multi-block / per-tile
# kernels instead of bn_cl_bwd, whose clusters read x and dy once into shared memory), e.g.
# ONLY='bn_f(32|16)_nchw' ENVS='FREEDNN_GPU_BN_CLUSTER_BWD=0'.
# FREEDNN_GPU_BN_CL_KIB=K (both cluster kernels: shares of at most K KiB first, 16..104; the
# default 52 puts 4 CTAs on an SM, 104 two), e.g. ONLY='bn_f(32|16)_nchw'
# ENVS='FREEDNN_GPU_BN_CL_KIB=104;FREEDNN_GPU_BN_CL_KIB=34'. FREEDNN_GPU_BN_CL_K8=0 (the same
# kernels at the smallest K whose shares fit the caps, the rule before 2026-12-03, instead of at
# least 8 CTAs while the shares keep 16 KiB: f16 NCHW training K 4 instead of 8), e.g.
# ONLY='bn_f16_nchw' DIR=fwd_train ENVS='FREEDNN_GPU_BN_CL_K8=0'. FREEDNN_GPU_BN_CL_1PASS=0
# (bn_cl_train's statistics in two passes and two cluster syncs, instead of one pass shifted by
# the channel's first element), e.g. ONLY='bn_f(32|16)_nchw' DIR=fwd_train
# ENVS='FREEDNN_GPU_BN_CL_1PASS=0'.
# FREEDNN_GPU_LRN_NHWC=0 (lrn: the NHWC forward on the per-element lrn_fwd and the backward on
# lrn_bwd_tile instead of lrn_nhwc.cuh's lrn_fwd_nhwc / lrn_bwd_nhwc, 16-byte channel vectors;
# FREEDNN_GPU_LRN_NHWC_BWD=0: the backward alone), e.g. ONLY='lrn_f(16|32)_nhwc'
# ENVS='FREEDNN_GPU_LRN_NHWC=0;FREEDNN_GPU_LRN_NHWC_BWD=0'.
# FREEDNN_GPU_BN_IV2=0 (bn fwd_infer, SPATIAL packed NCHW / NHWC f32 / f16 / bf16: the first
# bn_iv_* mapping instead of bn_iv2_*, whose threads load 4 vectors before the parameter math and
# whose NHWC blocks compute their channels' parameters once, in shared memory),
# FREEDNN_GPU_BN_IV2_BLOCKS=B (bn_iv2_*'s grid cap in blocks; default 2 full-occupancy waves,
# 2112 on the H200), e.g. ONLY='bn_f(32|16)_(nchw|nhwc)'
# ENVS='FREEDNN_GPU_BN_IV2=0;FREEDNN_GPU_BN_IV2_BLOCKS=4224'.
# FREEDNN_GPU_BN_PK2=0 (bn fwd_train / bwd, SPATIAL packed NHWC f32 / f16 / bf16 with a workspace
# or the handle's scratch: the first bn_pk_* NHWC mapping instead of bn_pk2_*, 4 rows' loads a
# thread and trip, 192-row chunks), FREEDNN_GPU_BN_PK2_ROWS=R (bn_pk2_*'s chunk rows before
# rounding to whole trips; default 192), e.g. ONLY='bn_f(16|32)_nhwc'
# ENVS='FREEDNN_GPU_BN_PK2=0;FREEDNN_GPU_BN_PK2_ROWS=96;FREEDNN_GPU_BN_PK2_ROWS=384'.
# FREEDNN_GPU_BN_GR=0 (bn fwd_train, FLOAT NHWC on bn_pk2_* with the lean apply: the three
# launches instead of bn_gr_train_nhwc, one cooperative launch that keeps a chunk a CTA in shared
# memory; =1: HALF / BFLOAT16 on it too), e.g. ONLY='bn_f(16|32)_nhwc' DIR=fwd_train
# ENVS='FREEDNN_GPU_BN_GR=0;FREEDNN_GPU_BN_GR=1'.
# FREEDNN_GPU_BN_PK2_LEAN=0 (bn fwd_train / bwd on bn_pk2_*, ops BN, alpha 1, beta 0: the general
# apply pass bn_pk2_apply*_nhwc instead of the lean bn_pk2_lean*_nhwc, 56-64 registers, 4 blocks
# an SM), e.g. ONLY='bn_f(16|32)_nhwc' ENVS='FREEDNN_GPU_BN_PK2_LEAN=0'. FREEDNN_GPU_ACT_LEAN=0|2
# (ReLU at alpha 1, beta 0: the packed kernels instead of act_*_lean<1>, or two vectors a
# thread), e.g. ONLY='act_' ENVS='FREEDNN_GPU_ACT_LEAN=0;FREEDNN_GPU_ACT_LEAN=2'.
# FREEDNN_GPU_BN_IV3=0 (bn fwd_infer, SPATIAL packed NCHW / NHWC f32 / f16 / bf16, ops BN, alpha
# 1, beta 0: bn_iv2_* instead of the lean bn_iv3_*, one vector a thread, 27-32 registers; =1 the
# lean kernel for NCHW only, =2 NHWC only, =3 both; unset: NCHW and 16-bit NHWC), e.g.
# ONLY='bn_f(32|16)_(nchw|nhwc)'
# ENVS='FREEDNN_GPU_BN_IV3=0'. FREEDNN_GPU_BN_IV3_NHWC_R=R (bn_iv3_nhwc: R trips of 256 vectors a
# block, 1..64, one parameter table a block; default bn_iv3_trips' choice, 6 at n32 56x56 on 132
# SMs; 4: 2.97 waves, 12: one), e.g. ONLY='bn_f(16|32)_nhwc'
# ENVS='FREEDNN_GPU_BN_IV3=1;FREEDNN_GPU_BN_IV3_NHWC_R=1;FREEDNN_GPU_BN_IV3_NHWC_R=12'.
# FREEDNN_GPU_TO_LEAN=0 (tensor add_tensor, alpha 1 and beta 1 or 0, f32 / f16 / bf16: the packed
# kernel tensor_add_packed instead of tensor_bias_lean<B, M>; tensor op add, alphas 1, beta 0:
# tensor_op_dense's exact branch instead of tensor_op_lean, one vector a thread), e.g.
# ONLY='tensor_' ENVS='FREEDNN_GPU_TO_LEAN=0'.
# FREEDNN_GPU_POOL_LEAN=0 (pool_* max forward, 3x3 / 2 pad 1, alpha 1, beta 0, f32 / f16 / bf16:
# the sweeps pool_s2_max_fwd_vec (NHWC) and pool_s2_max_fwd_rows (NCHW) instead of
# pooling_lean.cuh's pool_lean_nhwc_* / pool_lean_nchw_*, a 16-byte channel vector or an 8-byte
# run of a y row a thread), e.g. ONLY='pool_' ENVS='FREEDNN_GPU_POOL_LEAN=0'.
# FREEDNN_GPU_POOL_SMB=0 (pool_*_nchw max backward, 3x3 / 2 pad 1, f32 / f16 / bf16: the gathers
# pool_s2g_max_bwd_* instead of pooling_smb.cuh's shared-memory tiles; FREEDNN_GPU_POOL_SMB_T=N:
# N dx elements a tile, default 4096), e.g. ONLY='pool_f(16|32)_nchw' DIR=bwd
# ENVS='FREEDNN_GPU_POOL_SMB=0;FREEDNN_GPU_POOL_SMB_T=2048'.
# FREEDNN_GPU_POOL_CW=0 (the same backward rows, W <= 128: pooling_smb.cuh's tiles instead of
# pooling_cw.cuh's column walks; FREEDNN_GPU_POOL_CW_R=N: strips of N window rows, default 14
# FLOAT, 28 16-bit), e.g. ONLY='pool_f(16|32)_nchw' DIR=bwd ENVS='FREEDNN_GPU_POOL_CW=0'.
# FREEDNN_GPU_POOL_CWN=0 (pool_*_nhwc max backward, 3x3 / 2 pad 1, f32 / f16 / bf16: the gather
# pool_s2g_max_bwd_nhwc_* instead of pooling_cwn.cuh's column walks; FREEDNN_GPU_POOL_CWN_R=N:
# strips of N window rows, default 14), e.g. ONLY='pool_f(16|32)_nhwc' DIR=bwd
# ENVS='FREEDNN_GPU_POOL_CWN=0;FREEDNN_GPU_POOL_CWN_R=7'.
# FREEDNN_GPU_SM_LEAN2=0|2|3 (softmax NHWC CHANNEL / packed INSTANCE rows of exactly 4, 8, 16 or
# 32 16-byte vectors, not LOG, alpha 1, beta 0, f32 / f16 / bf16: softmax_wreg's shapes instead of
# softmax_lean, one vector a lane, 18-30 registers; =2 softmax_lean with streaming stores,
# st.global.cs; =3 softmax_lean for the 32-vector forward rows too, which default to
# softmax_wreg), e.g. ONLY='softmax_f(16|32)_nhwc'
# ENVS='FREEDNN_GPU_SM_LEAN2=0;FREEDNN_GPU_SM_LEAN2=2'.
# FREEDNN_GPU_LRN_LEAN16=0 (lrn NCHW f16 / bf16, windows 1, 2, 3, 5, alpha 1, beta 0: the
# stamped lrn_{fwd,bwd}_col_<f16,bf16> instead of lrn_lean.cuh's lrn_{fwd,bwd}_lean16, 4 pixels
# a thread over a chunk of channels, whose backward does not read y; =K >= 2: chunks of
# max(K, 8) channels instead of one wave's worth, 32 / 64 forward / backward at n32c256h56w56),
# e.g. ONLY='lrn_f16_nchw' ENVS='FREEDNN_GPU_LRN_LEAN16=0;FREEDNN_GPU_LRN_LEAN16=16;FREEDNN_GPU_LRN_LEAN16=128'.
# FREEDNN_GPU_LRN16_F=0 (lrn NCHW f16 / bf16, the calls above with alpha >= 0, k >= 2^-126 and
# |beta| <= 4, dnnbench's defaults among them: lrn_{fwd,bwd}_lean16, 4 pixels a thread with the
# stamped kernels' double scale and __powf, instead of lrn_lean.cuh's lrn_{fwd,bwd}_lean16f, 2
# pixels a thread at 8 / 3 blocks an SM with the lean FLOAT kernels' float arithmetic; H200
# 2026-12-03, dev/lrn_nchw: f16 forward 2549 -> 3265 GB/s, backward 2160 -> 2733), e.g.
# ONLY='lrn_f16_nchw' ENVS='FREEDNN_GPU_LRN16_F=0'.
# FREEDNN_GPU_RD_FAST=0 (tensor reduce: ADD / AVG / NORM1 / NORM2 / MIN / MAX / AMAX without
# indices, f32 / f16 / bf16, packed NCHW / NHWC to 1xCx1x1 or Nx1xHxW: today's serial / one-block-
# an-output kernels instead of rd_seg / rd_col / rd_row + rd_fin2), e.g. ONLY='reduce'
# ENVS='FREEDNN_GPU_RD_FAST=0'. FREEDNN_GPU_RD_BLOCKS=B (rd_col keep=c NHWC: about B blocks;
# default one full-occupancy wave, 1056 for 16-bit sums on 132 SMs, 792 FLOAT with 4 columns a
# thread, half a wave (528) for FLOAT sums with 2), e.g.
# ENVS='FREEDNN_GPU_RD_FAST=0;FREEDNN_GPU_RD_BLOCKS=2112'. FREEDNN_GPU_RD_COL2=0 (rd_col keep=c
# NHWC FLOAT sums: 4 columns a thread and a full wave instead of 2 and half a wave),
# FREEDNN_GPU_RD_NHW_ROWS=0 (rd_col keep=nhw NCHW: 256 / cb row lanes from the narrowest column
# block instead of 2-8 lanes for about 32 rows a thread), e.g. ONLY='reduce_f'
# ENVS='FREEDNN_GPU_RD_COL2=0 FREEDNN_GPU_RD_NHW_ROWS=0'.
# FREEDNN_GPU_POOL_TILE_ROWS=R (pool_lean_nhwc_*: threads in tiles of R = 1, 2, 4 or 8 output rows
# for every type; default 1), e.g. ONLY='pool_f(16|32)_nhwc'
# DIR=fwd ENVS='FREEDNN_GPU_POOL_TILE_ROWS=1;FREEDNN_GPU_POOL_TILE_ROWS=4'.
# FREEDNN_GPU_PDL=0 (compute capability 9.0+: rd_fin2, bn_pk_combine and the batch-norm apply
# passes as plain launches instead of programmatic dependents of the kernel before them),
# FREEDNN_GPU_BN_PK2_BACK=0 (bn_pk2_lean*: each thread's trips first to last instead of last to
# first), e.g. ONLY='bn_f(16|32)_nhwc|reduce_f' ENVS='FREEDNN_GPU_PDL=0;FREEDNN_GPU_BN_PK2_BACK=0'
# (FLOAT NHWC training takes bn_gr_train_nhwc: add FREEDNN_GPU_BN_GR=0 for the three launches).
# No ReLU-output row: dnnbench's fills are uniform reals or the integers +-1, +-2 (--fill=int
# has no zeros), so the many-zero max-pool input is covered by tests/gpu/test_gpu_pool_act only.
# Everything lands in $OUT/membw.tar.gz (text tables, CSVs, the summary).
# Usage: bench/gpu_membw.sh LIBCUDNN_SO_9 BUILD_DIR
set -u
cd "$(dirname "$0")/.." || exit 2
[ $# -eq 2 ] || { echo "usage: $0 LIBCUDNN_SO_9 BUILD_DIR" >&2; exit 2; }
cudnn=$1 build=$2
cap=${CAP:-14} budget=${BUDGET:-215}
size=${SIZE:-small} ref_gflop=${REF_GFLOP:-0} only=${ONLY:-.} dir=${DIR:-all}
dts=${DTS:-f32 f16} layouts=${LAYOUTS:-nchw nhwc}
IFS=';' read -r -a envsets <<<"${ENVS:-}"
out=${OUT:-.}/membw
mkdir -p "$out"
if [ -z "${PREBUILT:-}" ]; then # PREBUILT: BUILD_DIR holds a dnnbench built elsewhere (tests/gpu/pack_carry.sh)
    cmake --build "$build" -j "$(nproc)" --target dnnbench freednn >"$out/build.log" 2>&1 ||
        { tail -n 20 "$out/build.log"; exit 1; }
fi
dnb="$build/tools/dnnbench/dnnbench"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader \
    >"$out/card.txt" 2>&1
run1() { # name "env settings" op dt layout problems...
    local name=$1 envs=$2 op=$3 dt=$4 lay=$5
    shift 5
    if [ "$SECONDS" -ge "$budget" ]; then
        echo "skipped $name: past the ${budget} s budget" | tee -a "$out/skipped.txt"
        return
    fi
    local t0=$SECONDS
    # shellcheck disable=SC2086 # envs: whitespace-separated VAR=VALUE words
    env $envs timeout "$cap" "$dnb" --op="$op" --backend=cuda --vs="$cudnn" --dir="$dir" \
        --dt="$dt" --layout="$lay" --mode=perf --graph --iters=5 --fill=real \
        --ref-max-gflop="$ref_gflop" --csv="$out/$name.csv" "$@" >"$out/$name.txt" 2>&1
    echo "rc $? in $((SECONDS - t0)) s (cap $cap)" >>"$out/$name.txt"
    echo "$name: $(tail -n 1 "$out/$name.txt")"
}
run() { # name op dt layout problems...; then once per ENVS set
    local name=$1
    shift
    if ! [[ $name =~ $only ]]; then
        return
    fi
    run1 "$name" "" "$@"
    local k
    for k in "${!envsets[@]}"; do
        run1 "$name+e$((k + 1))" "${envsets[$k]}" "$@"
    done
}
for k in "${!envsets[@]}"; do
    echo "e$((k + 1)): ${envsets[$k]}" >>"$out/env.txt"
done
for dt in $dts; do
    # p: the C = 256 (f32 small: 128) problem, p64: the C = 64 one (SIZE=ref: the other way round)
    if [ "$size" = ref ]; then # performance.md 3.8's problem (NVIDIA's anchors) and a C = 256 one
        p=n128c64h112w112 p64=n32c256h112w112
    elif [ "$size" = big ]; then
        p=n32c256h56w56 p64=n64c64h112w112
    elif [ "$dt" = f32 ]; then
        p=n32c128h56w56 p64=n16c64h112w112
    else
        p=n32c256h56w56 p64=n32c64h112w112
    fi
    for lay in $layouts; do
        run "act_${dt}_$lay" act $dt $lay $p
        run "pool_${dt}_$lay" pool $dt $lay ${p}k3s2p1,mode=max ${p}k2s2,mode=avg_excl
        run "softmax_${dt}_$lay" softmax $dt $lay $p $p64
        run "bn_${dt}_$lay" bn $dt $lay $p
        run "tensor_${dt}_$lay" tensor $dt $lay $p,op=add_tensor $p,op=add $p,op=transform
        run "reduce_${dt}_$lay" tensor $dt $lay $p,op=reduce $p,op=reduce,keep=nhw
        run "lrn_${dt}_$lay" lrn $dt $lay $p
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
if [ -f "$out/env.txt" ]; then
    cat "$out/env.txt" "$out/summary.txt" >"$out/summary.tmp" && mv "$out/summary.tmp" "$out/summary.txt"
fi
cat "$out/summary.txt"
tar -czf "${OUT:-.}/membw.tar.gz" -C "${OUT:-.}" membw && rm -rf "$out"
