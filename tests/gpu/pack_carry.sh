#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/gpu/pack_carry.sh - packs a cuda build made on the development machine for a trip to the
# GPU machine: the device tool carries at most 64 MiB of ignored paths, and the library with its
# sm_80 / sm_90 / sm_90a images is about 80 MiB even without debug sections, so the library and
# dnnbench go as one xz archive (about 14 MiB), unpacked there into a folder that
# bench/gpu_membw.sh takes with PREBUILT=1.
# Usage: tests/gpu/pack_carry.sh [BUILD_DIR (default build-gpuc)] [ARCHIVE (build-pack/carry.tar.xz)]
#   BUILD_DIR: configured with -DFREEDNN_CUDA=ON and built with
#   `cmake --build BUILD_DIR --target freednn dnnbench`.
# On the GPU machine (run's carry: ["build-pack"]):
#   mkdir -p build-carry && tar -xJf build-pack/carry.tar.xz -C build-carry &&
#   export LD_LIBRARY_PATH=$PWD/build-carry:/usr/local/cuda/lib64 &&
#   PREBUILT=1 bash bench/gpu_membw.sh "$nv" build-carry
# Where BUILD_DIR also holds the GPU tier's programs (-DFREEDNN_TESTS=ON, target gpu_tests), they
# go too, for `PREBUILT=1 BUILD_GPU=build-carry tests/gpu/run.sh` (or tests/gpu/session_call.sh
# with BUILD_GPU=build-carry and PREBUILT=1 in its environment).
set -eu
cd "$(dirname "$0")/../.."
build=${1:-build-gpuc}
archive=${2:-build-pack/carry.tar.xz}
lib=$(readlink -f "$build/libfreednn.so" || true)
if [ ! -f "$lib" ] || [ ! -x "$build/tools/dnnbench/dnnbench" ]; then
    echo "pack_carry: $build has no libfreednn.so and tools/dnnbench/dnnbench" >&2
    exit 2
fi
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/tools/dnnbench" "$(dirname "$archive")"
name=$(basename "$lib")
strip --strip-debug -o "$stage/$name" "$lib"
ln -s "$name" "$stage/libfreednn.so.0"
ln -s libfreednn.so.0 "$stage/libfreednn.so"
strip --strip-debug -o "$stage/tools/dnnbench/dnnbench" "$build/tools/dnnbench/dnnbench"
tests=$(ls "$build"/tests/gpu/gpu_test_gpu_* 2>/dev/null || true)
if [ -n "$tests" ]; then # configured with -DFREEDNN_TESTS=ON and built with the gpu_tests target
    mkdir -p "$stage/tests/gpu"
    for t in $tests; do strip --strip-debug -o "$stage/tests/gpu/${t##*/}" "$t"; done
fi
tar -C "$stage" -cf - . | xz -T0 -6 >"$archive"
echo "pack_carry: $archive ($(du -h "$archive" | cut -f1)) from $build ($(git log -1 --format=%h) $(git status --short -- src include | wc -l | tr -d ' ') changed source files)"
