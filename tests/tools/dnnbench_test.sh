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
        awk -F, 'NR > 1 && (NF != 31 || $10 != "PASSED" || $18 <= 0 || $20 <= 0) { bad = 1 } END { exit bad }' ||
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
        "--backend=tpu n1c1h4k1r1" "--mode=fast n1c1h4k1r1" "--iters=0 n1c1h4k1r1" "--op=pool n1c1h4k1r1" \
        "--op=nonsense n1c1h4k1r1" "--backend=cpu" "n1c1h4z3k1r1" "n1c3h4k1r1g2" "n1c1h2k1r5" \
        "--batch=/nonexistent.txt" "--impl=fd_no_such_impl n1c1h4k1r1" "--algo=1 --impl=fd_conv_fwd_ref n1c1h4k1r1" \
        "1"; do
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
*)
    fail "unknown case"
    ;;
esac
echo "PASS [$case_name]"
