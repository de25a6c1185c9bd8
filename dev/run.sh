#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# dev/run.sh - one H200 trip for several dev/ sandboxes: each named sandbox is built when its
# binary is missing (nvcc; a binary carried from the development machine is used as is) and run
# with a time cap, its output into OUT/<name>.txt and its last lines into OUT/summary.txt.
# Usage: OUT=dir [CAP=seconds, default 120] bash dev/run.sh NAME[:ARGS] ...
#   e.g. OUT=$OUT bash dev/run.sh pool_bwd softmax_nchw_bwd "lrn_nchw:--only v3"
set -u
cd "$(dirname "$0")" || exit 2
out=${OUT:?OUT must name the output folder}
mkdir -p "$out"
for spec in "$@"; do
    name=${spec%%:*} args=
    [ "$spec" != "$name" ] && args=${spec#*:}
    log="$out/$name.txt"
    if [ ! -x "$name/$name" ]; then
        make -s -C "$name" >"$log.build" 2>&1 || { echo "== $name: build failed" >>"$out/summary.txt"; continue; }
    fi
    start=$(date +%s)
    # shellcheck disable=SC2086 # args: the sandbox's words
    (cd "$name" && timeout "${CAP:-120}" "./$name" $args) >"$log" 2>&1
    rc=$?
    {
        echo "== $name $args: rc $rc, $(($(date +%s) - start)) s"
        tail -n "${TAIL:-60}" "$log"
    } >>"$out/summary.txt"
done
cat "$out/summary.txt"
