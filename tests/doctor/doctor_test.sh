#!/bin/sh
# SPDX-License-Identifier: MIT
# doctor_test.sh CASE DOCTOR PYTHON - one freednn-doctor test (see CMakeLists.txt for the cases).
set -u
export LC_ALL=C # the odd-byte path of the shadowing case must match '.'
what=$1 doctor=$2 py=$3
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
out=$tmp/out

fail() {
    echo "doctor/$what: FAIL: $*"
    echo "--- doctor output:"
    cat "$out"
    exit 1
}

# json_assert PYTHON-EXPRESSIONS...: each must hold for d, the parsed JSON on stdin; c(name) is a check.
json_assert() {
    "$py" -c '
import json, sys
d = json.load(sys.stdin)
checks = {c["name"]: c for c in d["checks"]}
def c(name): return checks[name]
for expr in sys.argv[1:]:
    if not eval(expr):
        sys.exit("assertion failed: " + expr)
' "$@" <"$out"
}

names='["gpu", "cuda_runtime", "libcudnn", "backend", "bandwidth", "cpu_blas", "smoke_conv", "library"]'

case $what in
exit_zero)
    (unset FREEDNN_BACKEND; "$doctor" --no-color) >"$out" 2>&1
    rc=$?
    cat "$out"
    [ "$rc" -eq 0 ] || fail "exit status $rc, expected 0"
    grep -q '^summary: .*, 0 failed (exit 0)$' "$out" || fail "no passing summary line"
    for n in gpu cuda_runtime libcudnn backend bandwidth cpu_blas smoke_conv library; do
        grep -Eq "^  (PASS|N/A |WARN)  $n " "$out" || fail "no result line for $n"
    done
    ;;
json)
    (unset FREEDNN_BACKEND; "$doctor" --json) >"$out" 2>"$tmp/err"
    rc=$?
    /usr/bin/python3 -c 'import json,sys; json.load(sys.stdin)' <"$out" || fail "--json output does not parse"
    json_assert "[x['name'] for x in d['checks']] == $names" \
        "all(x['status'] in ('PASS', 'N/A', 'WARN', 'FAIL') for x in d['checks'])" \
        "all(isinstance(x['detail'], str) and x['detail'] for x in d['checks'])" \
        "all(x['fix'] is None or isinstance(x['fix'], str) for x in d['checks'])" \
        "all(isinstance(x['notes'], list) and isinstance(x['facts'], dict) for x in d['checks'])" \
        "sum(d['summary'][k] for k in ('pass', 'na', 'warn', 'fail')) == len(d['checks'])" \
        "d['summary']['fail'] == sum(x['status'] == 'FAIL' for x in d['checks'])" \
        "d['summary']['ok'] == (d['summary']['fail'] == 0) and d['summary']['exit_code'] == $rc" \
        "c('smoke_conv')['facts']['backends']['ref']['status'] == 'PASS'" \
        "c('library')['facts']['freednn_version'] > 0" \
        || fail "JSON content"
    [ "$rc" -eq 0 ] || fail "exit status $rc, expected 0"
    ;;
bogus_backend)
    FREEDNN_BACKEND=bogus "$doctor" --no-color >"$out" 2>&1
    rc=$?
    [ "$rc" -eq 1 ] || fail "exit status $rc, expected 1"
    grep -q '^  FAIL  backend  *cudnnCreate failed' "$out" || fail "no FAIL line for the backend check"
    grep -q 'FREEDNN_BACKEND=bogus' "$out" || fail "FREEDNN_BACKEND not echoed"
    grep -q 'fix: set FREEDNN_BACKEND to ref, cpu or cuda' "$out" || fail "no fix line"
    grep -q '^summary: .*, 1 failed: see the fix lines above (exit 1)$' "$out" || fail "summary"
    FREEDNN_BACKEND=bogus "$doctor" --json >"$out" 2>&1
    rc=$?
    json_assert "c('backend')['status'] == 'FAIL'" "'ref, cpu or cuda' in c('backend')['fix']" \
        "c('smoke_conv')['status'] == 'PASS'" "not d['summary']['ok']" "$rc == 1" \
        || fail "JSON of the failing run"
    ;;
shadowing)
    # Names with a quote, a backslash, a control byte and a byte that is not UTF-8: JSON escaping.
    lib=$tmp/$(printf 'lib"q\\b\001\377')
    mkdir "$lib" || exit 1
    printf 'not a library\n' >"$lib/libcudnn.so.9"
    printf '\177ELF fake: cudnnCreate cudnnDestroy\n' >"$lib/libcudnn.so.8"
    printf '\177ELF fake: cudnnCreate freednnGetVersion\n' >"$lib/libcudnn.so.7"
    LD_LIBRARY_PATH="$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$doctor" --no-color >"$out" 2>&1
    rc=$?
    [ "$rc" -eq 0 ] || fail "exit status $rc, expected 0 (a warning is not a failure)"
    grep -q '^  WARN  libcudnn  *[0-9]* different libcudnn files are visible on the search path: one shadows another' "$out" \
        || fail "no shadowing warning"
    grep -q 'libcudnn.so.9  .*libcudnn.so.9 (LD_LIBRARY_PATH): not an ELF library' "$out" || fail "libcudnn.so.9 not identified"
    grep -q 'lib"q\\b\\x01' "$out" || fail "the control byte in the path is not shown escaped"
    grep -q "libcudnn.so.8  .*libcudnn.so.8 (LD_LIBRARY_PATH): NVIDIA's cuDNN" "$out" || fail "libcudnn.so.8 not identified"
    grep -q 'libcudnn.so.7  .*libcudnn.so.7 (LD_LIBRARY_PATH): freednn$' "$out" || fail "libcudnn.so.7 not identified"
    grep -q 'fix: keep one cuDNN on the search path' "$out" || fail "no fix line"
    LD_LIBRARY_PATH="$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$doctor" --json >"$out" 2>&1
    /usr/bin/python3 -c 'import json,sys; json.load(sys.stdin)' <"$out" || fail "--json output does not parse"
    json_assert "c('libcudnn')['status'] == 'WARN'" "'shadows' in c('libcudnn')['detail']" \
        "[n['kind'] for n in c('libcudnn')['facts']['names']][:3] == ['not-elf', 'nvidia', 'freednn']" \
        "c('libcudnn')['facts']['names'][0]['resolves_to'].endswith('lib\"q\\\\b\\x01\\ufffd/libcudnn.so.9')" \
        "c('libcudnn')['facts']['distinct_files'] >= 3" \
        || fail "JSON of the shadowing run"
    ;;
usage)
    "$doctor" --help >"$out" 2>&1 || fail "--help exit status $?"
    grep -q '^usage: freednn-doctor' "$out" || fail "--help text"
    "$doctor" --bogus >"$out" 2>&1
    rc=$?
    [ "$rc" -eq 2 ] || fail "unknown option: exit status $rc, expected 2"
    grep -q "unknown argument '--bogus'" "$out" || fail "unknown option message"
    ;;
*)
    echo "doctor_test.sh: unknown case $what" >&2
    exit 2
    ;;
esac
echo "doctor/$what: PASS"
