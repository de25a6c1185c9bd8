#!/bin/bash
# SPDX-License-Identifier: MIT
# dnnbench_test.sh CASE DNNBENCH LIBFREEDNN CONV_SAMPLE - one ctest case of tools/dnnbench
# (tests/tools/CMakeLists.txt registers each). Every case asserts what dnnbench printed, wrote
# or returned; a failing check prints the output it looked at.
set -u
case_name=$1 bench=$2 lib=$3 sample=$4
out=$(mktemp -d /tmp/dnnbench-test.XXXXXX)
trap 'rm -rf "$out"' EXIT

fail() {
    echo "FAIL [$case_name]: $*"
    for f in "$out"/*.txt; do [ -f "$f" ] && { echo "--- $(basename "$f")"; cat "$f"; }; done
    exit 1
}
# run NAME ARGS...: runs dnnbench, stdout in NAME.txt, stderr in NAME.err.txt, status in $rc
run() {
    local name=$1
    shift
    "$bench" "$@" >"$out/$name.txt" 2>"$out/$name.err.txt"
    rc=$?
}
expect_rc() { [ "$rc" -eq "$1" ] || fail "exit status $rc, expected $1 ($2)"; }
expect_grep() { grep -qE -- "$2" "$out/$1.txt" || fail "no line matching '$2' in $1.txt"; }
expect_count() { # expect_count NAME REGEX N: exactly N lines of NAME.txt match
    local n
    n=$(grep -cE -- "$2" "$out/$1.txt")
    [ "$n" -eq "$3" ] || fail "$n lines matching '$2' in $1.txt, expected $3"
}

# The memory-bound ops and the rows of their smoke sets with --dir=all (problems x directions).
mem_ops="pool act softmax lrn bn tensor"
declare -A mem_rows=([pool]=12 [act]=18 [softmax]=14 [lrn]=8 [bn]=12 [tensor]=7)
declare -A mem_dirs=([pool]="fwd bwd" [act]="fwd bwd" [softmax]="fwd bwd" [lrn]="fwd bwd"
    [bn]="fwd_infer fwd_train bwd" [tensor]="fwd")

case $case_name in
smoke_ref | smoke_cpu)
    backend=${case_name#smoke_}
    run smoke --batch=smoke --dir=all --backend=$backend
    expect_rc 0 "smoke on $backend"
    expect_grep smoke '^tests:18 passed:18 skipped:0 mistrusted:0 failed:0 executed:0$'
    [ "$(grep -c ' PASSED ' "$out/smoke.txt")" -eq 18 ] || fail "expected 18 PASSED rows"
    # the same set with reals, half precision and NHWC, checked under the tolerance
    run real --batch=smoke --dir=all --backend=$backend --dt=f16 --layout=nhwc --fill=real
    expect_rc 0 "f16 nhwc real fill on $backend"
    expect_grep real '^tests:18 passed:18 '
    ;;
inject_error)
    # a perturbed output element is caught, whatever the fill
    run inject --backend=cpu --inject-error n2c16h14w14k32r3s3p1u1l1g1
    expect_rc 1 "an injected error must fail the run"
    expect_grep inject '^ +0 FAILED +fwd '
    expect_grep inject 'freednn: 1 of 12544 elements out of tolerance against ref'
    expect_grep inject 'failed:1 '
    run inject_real --backend=cpu --dir=bwd_filter --dt=bf16 --fill=real --inject-error n2c16h14w14k32r3s3p1u1l1g1
    expect_rc 1 "an injected error under a tolerance must fail too"
    expect_grep inject_real ' FAILED +bwd_filter '
    # a reference that is almost all zeros proves little: MISTRUSTED, not PASSED
    run zeros --backend=cpu --dir=bwd_data n1c4h10w10k4r1s1p0u5l1g1
    expect_rc 0 "MISTRUSTED is not a failure"
    expect_grep zeros '^ +0 MISTRUSTED +bwd_data '
    # an input changed behind the call's back (its last byte) fails the line: 2x3x7x7 f32 is
    # 588 bytes (a tail after the input hash's 32-byte steps), 2x3x8x8 1536 (inside a step)
    run inject_input --op=act --backend=cpu --dir=fwd --inject-error=input n2c3h7w7 n2c3h8w8
    expect_rc 1 "a changed input must fail the run"
    expect_count inject_input '^ +[01] FAILED +fwd ' 2
    expect_count inject_input 'freednn: the call modified its inputs' 2
    run inject_input16 --op=pool --backend=cpu --dir=bwd --dt=f16 --inject-error=input n2c3h8w8k2s2
    expect_rc 1 "a changed input must fail the run (pool backward, f16)"
    expect_grep inject_input16 'freednn: the call modified its inputs'
    # without the hook the same problems pass
    run clean --backend=cpu --dir=bwd_filter --dt=bf16 --fill=real n2c16h14w14k32r3s3p1u1l1g1
    expect_rc 0 "the unperturbed run"
    ;;
csv)
    run csv --batch=smoke --dir=all --backend=cpu --mode=both --iters=2 --cache=hot --csv="$out/rows.csv"
    expect_rc 0 "csv run"
    [ -f "$out/rows.csv" ] || fail "no CSV written"
    head -1 "$out/rows.csv" | grep -q '^index,op,dir,dt,layout,backend,problem,tag,gflop,status,reason,algo,' ||
        fail "CSV header: $(head -1 "$out/rows.csv")"
    [ "$(wc -l <"$out/rows.csv")" -eq 19 ] || fail "expected a header and 18 rows"
    # columns: status 10, ms_median 18, gflops 20, repro last (quoted fields folded first)
    sed 's/"[^"]*"/Q/g' "$out/rows.csv" |
        awk -F, 'NR > 1 && (NF != 42 || $10 != "PASSED" || $18 <= 0 || $20 <= 0) { bad = 1 } END { exit bad }' ||
        fail "a CSV row lacks PASSED, a time or GFLOP/s: $(cat "$out/rows.csv")"
    grep -q ',conv,bwd_filter,f32,nchw,cpu,n1c8h17w19k12r5s3p2q1u2v1l1g1,"5x3 filter, per-axis pad and stride",' \
        "$out/rows.csv" || fail "the row of the per-axis shape (with its quoted tag) is missing"
    ;;
vs)
    # our own library again, in its own namespace: results agree, geomeans printed
    run vs --batch=smoke --dir=all --backend=cpu --mode=both --iters=3 --cache=hot --vs="$lib"
    expect_rc 0 "--vs with our own library"
    expect_grep vs "^dnnbench: vs .*its own link-map namespace"
    expect_grep vs '^tests:18 passed:18 '
    expect_grep vs '^vs tests:18 passed:18 '
    for dir in fwd bwd_data bwd_filter; do
        expect_grep vs "^geomean conv $dir f32 speedup=[0-9.]+ n=6$"
    done
    [ "$(grep -cE '\| PASSED +[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ ' "$out/vs.txt")" -eq 18 ] ||
        fail "every row needs their status, algo, time, GFLOP/s and ratio"
    # too large for ref (limit 0): their result is checked against ours instead
    run agree --backend=cpu --mode=perf --iters=2 --cache=hot --ref-max-gflop=0 --vs="$lib" --dt=f16 \
        --fill=real n2c16h14w14k32r3s3p1u1l1g1
    expect_rc 0 "--vs agreement without ref"
    expect_grep agree 'vs: agrees with freednn'
    expect_grep agree '^geomean conv fwd f16 speedup='
    # a wrong result of the --vs library fails the line too, ours still passing
    run inject_vs --backend=cpu --vs="$lib" --inject-error=vs n2c16h14w14k32r3s3p1u1l1g1
    expect_rc 1 "an injected error in the --vs library must fail the run"
    expect_grep inject_vs '^ +0 PASSED +fwd .*\| FAILED '
    expect_grep inject_vs 'vs: 1 of 12544 elements out of tolerance against ref'
    run badlib --backend=cpu --vs=/nonexistent/libcudnn.so.9 n2c16h14w14k32r3s3p1u1l1g1
    expect_rc 1 "a --vs library that does not load"
    grep -q 'cannot load /nonexistent/libcudnn.so.9' "$out/badlib.err.txt" || fail "no load error message"
    ;;
usage)
    for args in "--bogus n1c1h4k1r1" "--dt=f8 n1c1h4k1r1" "--dir=sideways n1c1h4k1r1" "--layout=chwn n1c1h4k1r1" \
        "--backend=tpu n1c1h4k1r1" "--mode=fast n1c1h4k1r1" "--iters=0 n1c1h4k1r1" "--op=dropout n1c1h4k1r1" \
        "--op=nonsense n1c1h4k1r1" "--backend=cpu" "n1c1h4z3k1r1" "n1c3h4k1r1g2" "n1c1h2k1r5" \
        "--batch=/nonexistent.txt" "--impl=fd_no_such_impl n1c1h4k1r1" "--algo=1 --impl=fd_conv_fwd_ref n1c1h4k1r1" \
        "--ref=gpu n1c1h4k1r1" "--ref=best n1c1h4k1r1" "--graph=0 n1c1h4k1r1" \
        "--host-burst=0 n1c1h4k1r1" "--host-burst=501 n1c1h4k1r1" "1"; do
        # shellcheck disable=SC2086
        run usage $args
        expect_rc 2 "dnnbench $args"
        grep -q '^usage: dnnbench' "$out/usage.err.txt" || fail "no usage text for: $args"
    done
    # shape-file lines as one argument each
    run usage "1 1 4 4 1 1 1 0 1 1"
    expect_rc 2 "ten numbers"
    run usage "1 1 4 4 1 1 1 0 1 1 1 stride_q=2"
    expect_rc 2 "an unknown key"
    grep -q "unknown field 'stride_q=2'" "$out/usage.err.txt" || fail "no message naming stride_q"
    run help --help
    expect_rc 0 "--help"
    expect_grep help '^usage: dnnbench'
    ;;
repro)
    # the repro printed for a row re-runs the same problem and direction
    run batch --batch=smoke --dir=all --backend=cpu --dt=bf16 --layout=nhwc
    expect_rc 0 "the batch"
    line=$(grep -E '^ +10 PASSED' "$out/batch.txt") || fail "no row 10"
    repro=$(echo "$line" | sed 's/.*  dnnbench /dnnbench /')
    problem=${repro##* }
    [ "$problem" = "n1c8h17w19k12r5s3p2q1u2v1l1g1" ] || fail "row 10's repro names $problem"
    # shellcheck disable=SC2086
    run again ${repro#dnnbench }
    expect_rc 0 "the repro: $repro"
    expect_grep again '^ +0 PASSED +bwd_data +bf16 +n1c8h17w19k12r5s3p2q1u2v1l1g1 '
    grep -qF "  $repro" "$out/again.txt" || fail "the repro does not print itself again"
    expect_grep again '^tests:1 passed:1 '
    ;;
log_cmd)
    # FREEDNN_LOG_CMD=1: every compute call of an application prints a dnnbench line that
    # re-runs its problem
    FREEDNN_LOG_CMD=1 FREEDNN_BACKEND=cpu "$sample" --small >"$out/sample.txt" 2>"$out/sample.err.txt" ||
        fail "conv_sample failed"
    grep '^freednn: dnnbench ' "$out/sample.err.txt" | sed 's/^freednn: dnnbench //' | sort -u >"$out/lines.txt"
    [ "$(wc -l <"$out/lines.txt")" -eq 3 ] || fail "expected one line per direction of conv_sample"
    grep -q -- '--op=conv --dir=fwd --dt=f32 --layout=nchw --backend=cpu --algo=[0-9] --math=default n2c16h12w12k32r3s3p1u1l1g1$' \
        "$out/lines.txt" || fail "the forward line of conv_sample"
    while read -r args; do
        # shellcheck disable=SC2086
        run logged $args
        expect_rc 0 "dnnbench $args"
        expect_grep logged '^tests:1 passed:1 '
    done <"$out/lines.txt"
    ;;
plot)
    run plot --batch=smoke --backend=cpu --mode=perf --iters=2 --cache=hot --plot="$out/chart.png"
    expect_rc 0 "--plot (needs the Debian package python3-matplotlib)"
    [ "$(head -c 8 "$out/chart.png" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ] || fail "no PNG written"
    ;;
impl)
    run list --impl=list
    expect_rc 0 "--impl=list"
    expect_grep list '^fd_conv_fwd_ref +ref +fwd +0 1 2 3 4 5 6 7$'
    run one --impl=fd_conv_bwd_data_ref n2c16h14w14k32r3s3p1u1l1g1
    expect_rc 0 "--impl=fd_conv_bwd_data_ref"
    expect_grep one '^ +0 PASSED +bwd_data .*--backend=ref --impl=fd_conv_bwd_data_ref '
    ;;
mem_smoke_ref | mem_smoke_cpu)
    # every memory-bound op's smoke set, all directions, checked against ref; then the same with
    # half precision, NHWC and real fills under the tolerance
    backend=${case_name#mem_smoke_}
    for op in $mem_ops; do
        n=${mem_rows[$op]}
        run "$op" --op=$op --batch=smoke_$op --dir=all --backend=$backend
        expect_rc 0 "--op=$op smoke on $backend"
        expect_grep "$op" "^tests:$n passed:$n skipped:0 mistrusted:0 failed:0 executed:0\$"
        expect_count "$op" '^ +[0-9]+ PASSED ' "$n"
        run "${op}_real" --op=$op --batch=smoke_$op --dir=all --backend=$backend --dt=f16 --layout=nhwc --fill=real
        expect_rc 0 "--op=$op f16 nhwc real fill on $backend"
        expect_grep "${op}_real" "^tests:$n passed:$n "
    done
    ;;
mem_inject_error)
    # a perturbed output element is caught in every direction of every op, for both fills
    for op in $mem_ops; do
        n=${mem_rows[$op]}
        run "$op" --op=$op --batch=smoke_$op --dir=all --backend=cpu --inject-error
        expect_rc 1 "an injected error must fail --op=$op"
        expect_grep "$op" "^tests:$n passed:0 skipped:0 mistrusted:0 failed:$n "
        expect_count "$op" '^ +freednn: [A-Za-z_]+: 1 of [0-9]+ elements out of tolerance against ref' "$n"
        run "${op}_real" --op=$op --batch=smoke_$op --dir=all --backend=cpu --dt=bf16 --fill=real --inject-error
        expect_rc 1 "an injected error under a tolerance must fail --op=$op too"
        expect_grep "${op}_real" "failed:$n "
    done
    # a backward whose reference is almost all zeros proves little: MISTRUSTED
    run zeros --op=pool --dir=bwd --backend=cpu 'n1c4h8w8k8 mode=max'
    expect_rc 0 "MISTRUSTED is not a failure"
    expect_grep zeros '^ +0 MISTRUSTED +bwd .*n1c4h8w8k8s8p0 mode=max'
    ;;
mem_vs)
    # our own library again, in its own namespace: every op agrees, geomeans per direction
    for op in $mem_ops; do
        n=${mem_rows[$op]}
        run "$op" --op=$op --batch=smoke_$op --dir=all --backend=cpu --mode=both --iters=3 --cache=hot --vs="$lib"
        expect_rc 0 "--op=$op --vs with our own library"
        expect_grep "$op" "^tests:$n passed:$n "
        expect_grep "$op" "^vs tests:$n passed:$n "
        expect_count "$op" '\| PASSED +- +[0-9.]+ +[0-9.]+ +[0-9.]+ ' "$n"
        for dir in ${mem_dirs[$op]}; do
            expect_grep "$op" "^geomean $op $dir f32 speedup=[0-9.]+ n=[0-9]+\$"
        done
    done
    # too large for ref (limit 0): theirs is checked against ours
    run agree --op=pool --dir=all --backend=cpu --mode=perf --iters=2 --cache=hot --ref-max-gflop=0 --vs="$lib" \
        --dt=f16 --fill=real --batch=smoke_pool
    expect_rc 0 "--vs agreement without ref"
    expect_count agree 'vs: agrees with freednn' 12
    # a wrong result of the --vs library fails the line, ours still passing
    run inject_vs --op=bn --dir=bwd --backend=cpu --vs="$lib" --inject-error=vs 'n2c16h14w14 mode=spatial'
    expect_rc 1 "an injected error in the --vs library must fail the run"
    expect_grep inject_vs '^ +0 PASSED +bwd .*\| FAILED '
    expect_grep inject_vs 'vs: dx: 1 of 6272 elements out of tolerance against ref'
    ;;
mem_csv)
    # one CSV row per (problem, direction), timed, with the traffic columns
    for op in $mem_ops; do
        n=${mem_rows[$op]}
        run "$op" --op=$op --batch=smoke_$op --dir=all --backend=cpu --mode=both --iters=2 --cache=hot \
            --csv="$out/$op.csv"
        expect_rc 0 "--op=$op csv run"
        [ "$(wc -l <"$out/$op.csv")" -eq $((n + 1)) ] || fail "--op=$op: expected a header and $n rows"
        # op 2, status 10, ms_median 18, gbytes 31, gbps 32, repro last (quoted fields folded)
        sed 's/"[^"]*"/Q/g' "$out/$op.csv" |
            awk -F, -v op=$op 'NR > 1 && (NF != 42 || $2 != op || $10 != "PASSED" || $18 <= 0 || $31 <= 0 || $32 <= 0) { bad = 1 }
                END { exit bad }' || fail "a --op=$op CSV row lacks PASSED, a time, bytes or GB/s: $(cat "$out/$op.csv")"
    done
    grep -q ",pool,bwd,f32,nchw,cpu,n1c8h13w11k3s1p1 kw=2 sw=2 pw=0 mode=max,\"per-axis window, stride and pad; overlapping rows\"," \
        "$out/pool.csv" || fail "the row of the per-axis pooling shape (with its quoted tag) is missing"
    ;;
mem_usage)
    for args in "--op=pool n1c1h4k3p3" "--op=pool n1c1h4k5" "--op=pool n1c1h4,mode=maxx" "--op=pool n1c1h4,kx=2" \
        "--op=act n1c1h4,coef=2" "--op=act n1c1h4,mode=swish,coef=2" "--op=softmax n1c1h4,algo=slow" \
        "--op=lrn n1c1h4,size=17" "--op=bn n1c1h1" "--op=bn n1c4h4,mode=per_activation" "--op=tensor n1c1h4,op=div" \
        "--op=tensor --dir=bwd n1c1h4" "--op=pool --dir=bwd_filter n1c1h4" "--op=bn --dir=bwd_data_x n2c1h4" \
        "--op=act n1h4" "--op=act c1h4,mode" "--op=pool --impl=fd_act_fwd_ref n1c1h4"; do
        # shellcheck disable=SC2086
        run usage $args
        expect_rc 2 "dnnbench $args"
        grep -q '^usage: dnnbench' "$out/usage.err.txt" || fail "no usage text for: $args"
    done
    # --dir aliases: bwd_data is the backward of these ops; fwd is bn's two forwards
    run alias --op=pool --dir=bwd_data --backend=cpu n1c2h6
    expect_rc 0 "--dir=bwd_data on pool"
    expect_grep alias "^ +0 PASSED +bwd .*--dir=bwd .*'n1c2h6w6k2s2p0 mode=max'\$"
    run bnfwd --op=bn --dir=fwd --backend=cpu n2c2h3
    expect_rc 0 "--dir=fwd on bn"
    expect_grep bnfwd '^ +0 PASSED +fwd_infer '
    expect_grep bnfwd '^ +1 PASSED +fwd_train '
    expect_grep bnfwd '^tests:2 passed:2 '
    # the repro of a row (one quoted word for the problem) re-runs the same line
    run batch --op=act --batch=smoke_act --dir=all --backend=cpu --dt=bf16 --layout=nhwc
    expect_rc 0 "the act batch"
    line=$(grep -E '^ +17 PASSED' "$out/batch.txt") || fail "no row 17"
    repro=$(echo "$line" | sed 's/.*  dnnbench /dnnbench /')
    [ "${repro##* }" = "beta=2'" ] || fail "row 17's repro ends with ${repro##* }"
    eval "run again ${repro#dnnbench }"
    expect_rc 0 "the repro: $repro"
    expect_grep again "^ +0 PASSED +bwd +bf16 +n1c3h7w5 mode=swish beta=2 "
    grep -qF "  $repro" "$out/again.txt" || fail "the repro does not print itself again"
    run list --op=tensor --impl=list
    expect_rc 0 "--impl=list for tensor"
    expect_grep list '^fd_tensor_add_ref +ref +fwd$'
    expect_grep list '^fd_tensor_op_ref +ref +fwd$'
    expect_grep list '^fd_tensor_transform_ref +ref +fwd$'
    # op=transform: NCHW -> NHWC and back against the ref, exact; no broadcast
    for l in nchw nhwc; do
        run "transform_$l" --op=tensor --backend=cpu --layout=$l --dt=f16 --fill=real \
            "n2c5h3w7 op=transform" "n3c16h4w4 op=transform"
        expect_rc 0 "op=transform, $l"
        expect_grep "transform_$l" '^tests:2 passed:2 skipped:0 mistrusted:0 failed:0 executed:0$'
    done
    run transform_bcast --op=tensor "n2c5h3w7 op=transform bcast=c"
    expect_rc 2 "op=transform with a broadcast"
    expect_grep transform_bcast.err 'op=transform takes no broadcast'
    # op=reduce: per channel (keep=c) and over C (keep=nhw), four operators, both layouts, against
    # the ref (the workspace the library asks for); the select operators exact
    for l in nchw nhwc; do
        run "reduce_$l" --op=tensor --backend=cpu --layout=$l --dt=f32 --fill=real \
            "n2c5h3w7 op=reduce" "n3c16h4w4 op=reduce keep=nhw" \
            "n2c8h5w5 op=reduce rop=max" "n2c8h5w5 op=reduce rop=norm2 keep=nhw"
        expect_rc 0 "op=reduce, $l"
        expect_grep "reduce_$l" '^tests:4 passed:4 skipped:0 mistrusted:0 failed:0 executed:0$'
        expect_grep "reduce_$l" "^ +1 PASSED +fwd +f32 +n3c16h4w4 op=reduce rop=add keep=nhw "
    done
    run reduce_bcast --op=tensor "n2c5h3w7 op=reduce bcast=c"
    expect_rc 2 "op=reduce with a broadcast"
    expect_grep reduce_bcast.err 'op=reduce takes no broadcast'
    run reduce_rop --op=tensor "n2c5h3w7 op=add rop=max"
    expect_rc 2 "rop= without op=reduce"
    expect_grep reduce_rop.err 'rop= and keep= belong to op=reduce'
    run impl --op=softmax --impl=fd_softmax_bwd_ref n2c4h3
    expect_rc 0 "--impl=fd_softmax_bwd_ref"
    expect_grep impl "^ +0 PASSED +bwd .*--backend=ref --impl=fd_softmax_bwd_ref "
    ;;
modes)
    # every op family on cpu: --mode=corr checks, perf times, both does both; a repro per row;
    # an injected error fails every row (exit 1); with --vs the geomean lines per direction
    for op in conv $mem_ops; do
        if [ $op = conv ]; then n=18 batch=smoke dirs="fwd bwd_data bwd_filter"; else
            n=${mem_rows[$op]} batch=smoke_$op dirs=${mem_dirs[$op]}; fi
        run "${op}_corr" --op=$op --batch=$batch --dir=all --backend=cpu --mode=corr
        expect_rc 0 "--op=$op --mode=corr"
        expect_grep "${op}_corr" "^tests:$n passed:$n skipped:0 mistrusted:0 failed:0 executed:0\$"
        expect_count "${op}_corr" "^ +[0-9]+ PASSED .* ref +dnnbench --op=$op --dir=[a-z_]+ " "$n"
        run "${op}_perf" --op=$op --batch=$batch --dir=all --backend=cpu --mode=perf --iters=2 --cache=hot
        expect_rc 0 "--op=$op --mode=perf"
        expect_grep "${op}_perf" "^tests:$n passed:0 skipped:0 mistrusted:0 failed:0 executed:$n\$"
        expect_count "${op}_perf" "^ +[0-9]+ EXECUTED .* [0-9]+\.[0-9]+ +[0-9]+\.[0-9]+ +[0-9.]+ +- +- +dnnbench .* --mode=perf " "$n"
        run "${op}_both" --op=$op --batch=$batch --dir=all --backend=cpu --mode=both --iters=2 --cache=hot
        expect_rc 0 "--op=$op --mode=both"
        expect_grep "${op}_both" "^tests:$n passed:$n "
        expect_count "${op}_both" "^ +[0-9]+ PASSED .* [0-9]+\.[0-9]+ +[0-9]+\.[0-9]+ +[0-9.]+ +[0-9.e+-]+ ref +dnnbench .* --mode=both " "$n"
        run "${op}_inj" --op=$op --batch=$batch --dir=all --backend=cpu --mode=both --iters=2 --cache=hot --inject-error
        expect_rc 1 "--op=$op --inject-error"
        expect_grep "${op}_inj" "^tests:$n passed:0 skipped:0 mistrusted:0 failed:$n "
        run "${op}_vs" --op=$op --batch=$batch --dir=all --backend=cpu --mode=perf --iters=2 --cache=hot --vs="$lib"
        expect_rc 0 "--op=$op --mode=perf --vs"
        for dir in $dirs; do
            expect_grep "${op}_vs" "^geomean $op $dir f32 speedup=[0-9.]+ n=[0-9]+\$"
        done
        # above --ref-max-gflop without --vs a checking run has nothing to learn: SKIPPED, reason
        run "${op}_big" --op=$op --batch=$batch --backend=cpu --mode=corr --ref-max-gflop=0
        expect_rc 0 "--op=$op above --ref-max-gflop"
        expect_grep "${op}_big" '^ +0 SKIPPED '
        expect_grep "${op}_big" '^ +freednn: correctness not checked: .* above --ref-max-gflop=0 '
    done
    # SKIPPED with the library's NOT_SUPPORTED reason
    run int8 --backend=cpu --dt=int8 n2c16h14w14k32r3s3p1u1l1g1
    expect_rc 0 "an unsupported data type is not a failure"
    expect_grep int8 '^ +0 SKIPPED +fwd +int8 '
    expect_grep int8 '^ +freednn: .*CUDNN_STATUS_NOT_SUPPORTED'
    ;;
graph)
    # --graph on a host backend: said once, plain timing, empty graph columns, kept in the repro
    run graph --backend=cpu --mode=both --iters=2 --cache=hot --graph=4 --host-burst=3 --csv="$out/graph.csv" n2c16h14w14k32r3s3p1u1l1g1
    expect_rc 0 "--graph on cpu"
    expect_grep graph '^dnnbench: --graph: SKIPPED: no GPU \(backend cpu runs on the host\); plain timing only$'
    expect_grep graph '^dnnbench: --host-burst: SKIPPED: no GPU \(backend cpu runs on the host\); no host_ms column$'
    expect_grep graph '^ +0 PASSED +fwd .* --graph=4 --host-burst=3 n2c16h14w14k32r3s3p1u1l1g1$'
    sed 's/"[^"]*"/Q/g' "$out/graph.csv" |
        awk -F, 'NR > 1 && (NF != 42 || $36 != "ref" || $37 != "" || $38 != "" || $34 != "") { bad = 1 } END { exit bad }' ||
        fail "the CSV's reference / graph / host columns: $(cat "$out/graph.csv")"
    head -1 "$out/graph.csv" | grep -q ',host_ms,vs_host_ms,reference,graph_calls,graph_ms,vs_graph_ms,graph_note,vs_graph_note,repro$' ||
        fail "CSV header: $(head -1 "$out/graph.csv")"
    ;;
gpu)
    # the cuda-only parts: CUDA events on dnnbench's own streams, host time per call, --graph,
    # the naive GPU rows checked against ref, and those rows as the reference (--ref=gpu, or
    # above --ref-max-gflop). Without a GPU every line is "SKIPPED: no GPU" and the exit is 0.
    run cuda --backend=cuda --batch=smoke --dir=all --mode=both --iters=2 --graph=5 --host-burst=3 --csv="$out/cuda.csv"
    expect_rc 0 "--backend=cuda --graph"
    if grep -q '^dnnbench: SKIPPED: no GPU' "$out/cuda.txt"; then
        expect_grep cuda '^tests:18 passed:0 skipped:18 mistrusted:0 failed:0 executed:0$'
        expect_count cuda '^ +freednn: no GPU: ' 18
        for dir in fwd bwd_data bwd_filter; do
            run "naive_$dir" --impl=fd_conv_${dir}_direct --batch=smoke
            expect_rc 0 "--impl=fd_conv_${dir}_direct without a GPU"
            expect_grep "naive_$dir" '^tests:6 passed:0 skipped:6 '
        done
        run gref --backend=cuda --ref=gpu --vs="$lib" n2c16h14w14k32r3s3p1u1l1g1
        expect_rc 0 "--ref=gpu without a GPU"
        expect_grep gref '^ +0 SKIPPED +fwd .* --ref=gpu n2c16h14w14k32r3s3p1u1l1g1$'
        run usage --backend=cpu --ref=gpu n2c16h14w14k32r3s3p1u1l1g1
        expect_rc 2 "--ref=gpu needs --backend=cuda"
        echo "PASS [$case_name] (SKIPPED: no GPU)"
        exit 0
    fi
    expect_grep cuda '^tests:18 passed:18 '
    # host time (34) on every row; graph calls and time (37, 38), or the reason why not (40)
    sed 's/"[^"]*"/Q/g' "$out/cuda.csv" |
        awk -F, 'NR > 1 && (NF != 42 || $34 == "" || $36 != "ref" || (($37 == "" || $38 == "") && $40 == "")) { bad = 1 }
            END { exit bad }' || fail "cuda CSV rows lack host or graph times: $(cat "$out/cuda.csv")"
    # the naive rows against ref on small shapes, in the types the GPU oracle uses and tests
    for dir in fwd bwd_data bwd_filter; do
        for dt in f64 f32 f16; do
            run "naive_${dir}_$dt" --impl=fd_conv_${dir}_direct --batch=smoke --dt=$dt
            expect_rc 0 "--impl=fd_conv_${dir}_direct --dt=$dt"
            expect_grep "naive_${dir}_$dt" '^tests:6 passed:6 '
        done
    done
    # the naive GPU reference: forced, and above --ref-max-gflop
    run gref --backend=cuda --ref=gpu --batch=smoke --dir=all
    expect_rc 0 "--ref=gpu"
    expect_grep gref '^tests:18 passed:18 '
    expect_count gref ' PASSED .* gpu-naive +dnnbench ' 18
    run gauto --backend=cuda --ref-max-gflop=0 --batch=smoke --dir=all --dt=bf16 --fill=real
    expect_rc 0 "gpu-naive above --ref-max-gflop"
    expect_count gauto ' PASSED .* gpu-naive +dnnbench ' 18
    run ginj --backend=cuda --ref=gpu --inject-error n2c16h14w14k32r3s3p1u1l1g1
    expect_rc 1 "an injected error against gpu-naive"
    expect_grep ginj 'freednn: 1 of 12544 elements out of tolerance against gpu-naive'
    # the same library twice, each handle on its own stream, both timed with graphs; loaded
    # into the main namespace (a new link-map namespace would get a CUDA driver of its own)
    export DNB_VS_LOAD=deepbind
    run vs --backend=cuda --batch=smoke --dir=all --mode=both --iters=2 --graph=5 --vs="$lib"
    expect_rc 0 "--vs on cuda"
    expect_grep vs '^vs tests:18 passed:18 '
    expect_grep vs '^geomean conv fwd f32 speedup='
    ;;
*)
    fail "unknown case"
    ;;
esac
echo "PASS [$case_name]"
