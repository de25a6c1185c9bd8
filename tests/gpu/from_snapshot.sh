#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/gpu/from_snapshot.sh - run a command on the GPU machine in a committed snapshot of the
# tree rather than the working copy the device tool sends (which carries whatever other work is
# half-written at the time). Here: `git archive -o build-snap/head.tar HEAD` (build-snap/ is
# ignored, so it travels only when the device call carries it, with build-gpu-deps and
# build-data); there: tests/gpu/from_snapshot.sh COMMAND... extracts it to $SNAP_DIR (default
# /tmp/fd-snap), links the carried folders in, sources build-gpu-deps/setup.sh and runs COMMAND
# in it. The snapshot's commit id is printed from the tarball's header.
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
snap=${SNAP_DIR:-/tmp/fd-snap}
[ -f "$here/build-snap/head.tar" ] || { echo "from_snapshot: no build-snap/head.tar (carry build-snap)"; exit 2; }
rm -rf "$snap" && mkdir -p "$snap" && tar -xf "$here/build-snap/head.tar" -C "$snap" || exit 2
echo "from_snapshot: commit $(git get-tar-commit-id <"$here/build-snap/head.tar" 2>/dev/null || echo unknown)"
for d in build-gpu-deps build-data; do
    [ -e "$here/$d" ] && ln -s "$here/$d" "$snap/$d"
done
cd "$snap" || exit 2
# shellcheck disable=SC1091
[ -f build-gpu-deps/setup.sh ] && . build-gpu-deps/setup.sh
command -v nvcc >/dev/null 2>&1 || export PATH=$PATH:/usr/local/cuda/bin
"$@"
