#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/gpu/compat_block.sh - the GPU proof of the binary drop-in (issue 8, item 4;
# docs/compat.md, "Proof on GPU"). Builds tests/gpu/compat_block.c against NVIDIA's cuDNN 9
# headers, linked against NVIDIA's libcudnn.so.9 and the CUDA runtime, then runs that one
# binary twice without relinking:
#   1. on NVIDIA's library (LD_LIBRARY_PATH = NVIDIA's directory), the reference;
#   2. on freednn (LD_LIBRARY_PATH = a directory whose libcudnn.so.9 is libfreednn),
#      FREEDNN_BACKEND=cuda;
# checks from the program's own report (dladdr of cudnnCreate@libcudnn.so.9, /proc/self/maps,
# freednnGetBackend) and from ldd that each run used the library it was meant to, and compares
# every output and gradient of run 2 with run 1 (compat_block --compare: per tensor max abs /
# rel error, relative L2, PASS/FAIL). Ends with `N passed, N failed`; exit 0 only if all pass.
#
# --host: the CPU-only form, for a machine without a GPU (it still needs NVIDIA's headers and
# library to build, and libcudart to link): the same binary with --host (malloc'ed tensors),
# run on freednn's ref backend (the reference) and on its cpu backend. Not part of CI's ctest:
# it needs NVIDIA's files; run it by hand (about 20 s here).
#
# usage: tests/gpu/compat_block.sh [--host] [--no-f16] [--size N,C,H,W] [--iters K]
#            [--freednn BUILD_DIR] [--nvidia-lib DIR] [--nvidia-include DIR] [--cuda DIR]
#            [--work DIR] [--keep] [--tol-scale X]
#   --freednn   freednn's build directory (default $BUILD_GPU or build-gpu; with --host,
#               $BUILD_DIR or build); built (target freednn, FREEDNN_CUDA=ON unless --host)
#               when it holds no libfreednn.so
#   --nvidia-lib     the directory of NVIDIA's libcudnn.so.9 (default: $CUDNN_LIB_DIR, else the
#                    first of /usr/local/cuda/lib64, /usr/local/cuda/lib,
#                    /opt/torch/.venv/lib/python3*/site-packages/nvidia/cudnn/lib,
#                    /usr/lib/x86_64-linux-gnu that has it)
#   --nvidia-include the directory of NVIDIA's cudnn.h (default: $CUDNN_INCLUDE_DIR, else
#                    NVIDIA-LIB/../include, /usr/local/cuda/include, /usr/include)
#   --cuda      the CUDA toolkit (cuda_runtime_api.h, libcudart.so; default $CUDA_HOME or
#               /usr/local/cuda)
#   --size      default 32,64,56,56 (the first stage of ResNet-50); with --host 4,16,28,28
#   --iters K   timed repetitions after the compared run (default 5; with --host 0)
#   --work DIR  where the binary, logs and dumps go (default a new temporary directory); the
#               dumps (about 0.4 GB each at the default size) are deleted at the end unless --keep
# Exit 77 (skipped): NVIDIA's headers or library, or the CUDA toolkit, are absent, or (without
# --host) there is no GPU.
set -u
cd "$(dirname "$0")/../.." || exit 2
root=$(pwd)

host=0 f16=--f16 size='' iters='' fd_build='' nv_lib=${CUDNN_LIB_DIR:-} nv_inc=${CUDNN_INCLUDE_DIR:-}
cuda=${CUDA_HOME:-/usr/local/cuda} work='' keep=0 tol_scale=1
while [ $# -gt 0 ]; do
    case $1 in
        --host) host=1 ;;
        --no-f16) f16= ;;
        --size) size=${2:?}; shift ;;
        --iters) iters=${2:?}; shift ;;
        --freednn) fd_build=${2:?}; shift ;;
        --nvidia-lib) nv_lib=${2:?}; shift ;;
        --nvidia-include) nv_inc=${2:?}; shift ;;
        --cuda) cuda=${2:?}; shift ;;
        --work) work=${2:?}; shift ;;
        --keep) keep=1 ;;
        --tol-scale) tol_scale=${2:?}; shift ;;
        -h|--help) sed -n '2,/^set -u/p' "$0" | grep '^#'; exit 0 ;;
        *) echo "compat_block.sh: unknown argument $1" >&2; exit 2 ;;
    esac
    shift
done
if [ "$host" -eq 1 ]; then
    size=${size:-4,16,28,28} iters=${iters:-0} fd_build=${fd_build:-${BUILD_DIR:-build}}
else
    size=${size:-32,64,56,56} iters=${iters:-5} fd_build=${fd_build:-${BUILD_GPU:-build-gpu}}
fi

passed=0
failed=0
check() { # name status(0 ok) detail
    if [ "$2" -eq 0 ]; then passed=$((passed + 1)); echo "PASS  $1  $3"
    else failed=$((failed + 1)); echo "FAIL  $1  $3"; fi
}
finish() {
    if [ "$keep" -eq 0 ] && [ -n "$work" ]; then rm -f "$work"/*.dump; fi
    echo "$passed passed, $failed failed"
    [ "$failed" -eq 0 ]
    exit $?
}
skip() { echo "SKIP: $*"; exit 77; }

# ---- NVIDIA's files, the toolkit, the GPU -------------------------------------------------
if [ -z "$nv_lib" ]; then
    for d in /usr/local/cuda/lib64 /usr/local/cuda/lib /opt/torch/.venv/lib/python3*/site-packages/nvidia/cudnn/lib \
             /usr/lib/x86_64-linux-gnu; do
        if [ -e "$d/libcudnn.so.9" ]; then nv_lib=$d; break; fi
    done
fi
[ -n "$nv_lib" ] && [ -e "$nv_lib/libcudnn.so.9" ] ||
    skip "NVIDIA's libcudnn.so.9 not found (--nvidia-lib DIR or CUDNN_LIB_DIR)"
nv_lib=$(cd "$nv_lib" && pwd -P)
if [ -z "$nv_inc" ]; then
    for d in "$nv_lib/../include" "$cuda/include" /usr/include/x86_64-linux-gnu /usr/include; do
        if [ -e "$d/cudnn.h" ] && [ -e "$d/cudnn_version.h" ]; then nv_inc=$d; break; fi
    done
fi
[ -n "$nv_inc" ] && [ -e "$nv_inc/cudnn.h" ] ||
    skip "NVIDIA's cudnn.h not found (--nvidia-include DIR or CUDNN_INCLUDE_DIR)"
grep -q 'define CUDNN_MAJOR 9' "$nv_inc/cudnn_version.h" ||
    skip "$nv_inc/cudnn.h is not cuDNN 9's"
[ -e "$cuda/include/cuda_runtime_api.h" ] || skip "no CUDA toolkit at $cuda (--cuda DIR or CUDA_HOME)"
cudart_lib=
for d in "$cuda/lib64" "$cuda/lib" "$cuda/targets/x86_64-linux/lib"; do
    if [ -e "$d/libcudart.so" ]; then cudart_lib=$d; break; fi
done
[ -n "$cudart_lib" ] || skip "no libcudart.so under $cuda"
if [ "$host" -eq 0 ]; then
    command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1 ||
        skip "no GPU (nvidia-smi -L fails); tests/gpu/compat_block.sh --host runs the CPU-only form"
fi

if [ -z "$work" ]; then work=$(mktemp -d "${TMPDIR:-/tmp}/compat_block.XXXXXX"); fi
mkdir -p "$work" && work=$(cd "$work" && pwd -P)
echo "compat_block: $(date -u '+%Y-%m-%d %H:%M UTC') on $(hostname); work directory $work"
echo "NVIDIA cuDNN: headers $nv_inc ($(awk '/define CUDNN_(MAJOR|MINOR|PATCHLEVEL) /{printf "%s%s", sep, $3; sep="."}' "$nv_inc/cudnn_version.h")), library $nv_lib/libcudnn.so.9 -> $(readlink -f "$nv_lib/libcudnn.so.9")"
echo "CUDA: $cuda (runtime $cudart_lib)"
if [ "$host" -eq 0 ]; then nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | head -n 1; fi

# ---- freednn ---------------------------------------------------------------------------------
case $fd_build in /*) ;; *) fd_build=$root/$fd_build ;; esac
fd_so=$(ls "$fd_build"/libfreednn.so.*.*.* 2>/dev/null | head -n 1)
if [ -z "$fd_so" ]; then
    cuda_flag=-DFREEDNN_CUDA=ON
    if [ "$host" -eq 1 ]; then cuda_flag=; fi
    echo "== building freednn in $fd_build"
    { cmake -S "$root" -B "$fd_build" $cuda_flag -DCMAKE_BUILD_TYPE=RelWithDebInfo >"$work/freednn-configure.log" 2>&1 &&
      cmake --build "$fd_build" -j "$(nproc)" --target freednn >"$work/freednn-build.log" 2>&1; }
    st=$?
    check build_freednn $st "$fd_build (logs in $work)"
    [ $st -eq 0 ] || { tail -n 20 "$work/freednn-build.log" "$work/freednn-configure.log" 2>/dev/null; finish; }
    fd_so=$(ls "$fd_build"/libfreednn.so.*.*.* 2>/dev/null | head -n 1)
fi
[ -n "$fd_so" ] || { check freednn_library 1 "no libfreednn.so.X.Y.Z in $fd_build"; finish; }
fd_so=$(readlink -f "$fd_so")
if [ -e "$fd_build/cudnn-names/libcudnn.so.9" ]; then
    fd_names=$fd_build/cudnn-names
else # an older build tree, or an install of libfreednn alone: make the name here
    fd_names=$work/freednn-names
    mkdir -p "$fd_names" && ln -sf "$fd_so" "$fd_names/libcudnn.so.9"
fi
echo "freednn: $fd_so, as libcudnn.so.9 in $fd_names"

# ---- the program -----------------------------------------------------------------------------
exe=$work/compat_block
cc=${CC:-gcc}
$cc -std=c11 -O2 -Wall -Wextra -I"$nv_inc" -I"$cuda/include" "$root/tests/gpu/compat_block.c" \
    -o "$exe" -L"$nv_lib" -L"$cudart_lib" -l:libcudnn.so.9 -lcudart -lm >"$work/compile.log" 2>&1
st=$?
check compile $st "$cc against $nv_inc, linked to $nv_lib/libcudnn.so.9 and $cudart_lib/libcudart.so ($(grep -c warning "$work/compile.log") warnings)"
[ $st -eq 0 ] || { cat "$work/compile.log"; finish; }
echo "== $exe needs: $(readelf -d "$exe" | awk '/NEEDED/ { printf "%s ", $5 }')"

# run NAME LIBDIR EXPECT_FILE BACKEND(or -) -- ENV... : runs the program, checks its library
run_one() {
    local name=$1 libdir=$2 expect=$3 backend=$4
    shift 5
    local log=$work/$name.log dump=$work/$name.dump
    local ldpath=$libdir:$cudart_lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    local flags="$f16 --size $size --iters $iters"
    if [ "$host" -eq 1 ]; then flags="--host $flags"; fi
    echo "== $name: LD_LIBRARY_PATH=$libdir:... $* $exe $flags $dump"
    local resolved
    resolved=$(env LD_LIBRARY_PATH="$ldpath" ldd "$exe" 2>&1 | awk '$1 == "libcudnn.so.9" { print $3 }')
    echo "   ldd: libcudnn.so.9 => $resolved -> $(readlink -f "$resolved" 2>/dev/null)"
    # shellcheck disable=SC2086 # flags is a list of options
    env LD_LIBRARY_PATH="$ldpath" "$@" "$exe" $flags "$dump" >"$log" 2>&1
    local st=$?
    sed 's/^/   /' "$log"
    check "run_$name" $st "exit status $st"
    [ $st -eq 0 ] || return 1
    local real ok=0 why=
    real=$(sed -n 's/^library: cudnnCreate@libcudnn.so.9 is in \([^ ]*\) .*/\1/p' "$log")
    [ "$(readlink -f "$resolved")" = "$expect" ] || { ok=1; why="ldd resolves libcudnn.so.9 elsewhere; "; }
    [ "$real" = "$expect" ] || { ok=1; why="${why}cudnnCreate is in '$real'; "; }
    if [ "$backend" = - ]; then
        grep -q '^library: not freednn' "$log" || { ok=1; why="${why}freednn is in the process; "; }
        ! grep -q '^mapped: .*freednn' "$log" || { ok=1; why="${why}libfreednn is mapped; "; }
    else
        grep -q "^library: freednn, backend $backend\$" "$log" || { ok=1; why="${why}not freednn's $backend backend; "; }
        ! grep -q '^mapped: .*libcudnn' "$log" || { ok=1; why="${why}a libcudnn file is mapped too; "; }
    fi
    check "library_$name" $ok "${why:-used $expect only$([ "$backend" = - ] || echo ", backend $backend")}"
}

if [ "$host" -eq 1 ]; then
    ref=freednn_ref test=freednn_cpu
    run_one "$ref" "$fd_names" "$fd_so" ref -- FREEDNN_BACKEND=ref || finish
    run_one "$test" "$fd_names" "$fd_so" cpu -- FREEDNN_BACKEND=cpu || finish
else
    ref=nvidia test=freednn
    nv_real=$(readlink -f "$nv_lib/libcudnn.so.9")
    # NVIDIA_TF32_OVERRIDE=0 besides the program's CUDNN_FMA_MATH: no TF32 anywhere in NVIDIA's run
    run_one "$ref" "$nv_lib" "$nv_real" - -- NVIDIA_TF32_OVERRIDE=0 || finish
    run_one "$test" "$fd_names" "$fd_so" cuda -- FREEDNN_BACKEND=cuda || finish
fi

echo "== compare: $exe --compare $work/$ref.dump $work/$test.dump --tol-scale $tol_scale"
"$exe" --compare "$work/$ref.dump" "$work/$test.dump" --tol-scale "$tol_scale" >"$work/compare.log" 2>&1
st=$?
cat "$work/compare.log"
p=$(grep -c '^PASS' "$work/compare.log")
f=$(grep -c '^FAIL' "$work/compare.log")
passed=$((passed + p))
failed=$((failed + f))
if [ $st -ne 0 ] && [ "$f" -eq 0 ]; then check compare $st "the comparison itself failed (exit $st)"; fi
grep -h '^time:' "$work/$ref.log" "$work/$test.log" | sed "1s/^/$ref /;2s/^/$test /"
finish
