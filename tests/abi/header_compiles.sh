#!/bin/sh
# SPDX-License-Identifier: MIT
# usage: header_compiles.sh CC CXX OUR_INCLUDE CUDA_INCLUDE WORKDIR
# Compiles a translation unit that includes cudnn.h and freednn.h in every mode D1 promises.
set -u
cc=$1 cxx=$2 ours=$3 cuda=$4 work=$5
mkdir -p "$work"
printf '#include "cudnn.h"\n#include "freednn.h"\nint main(void) { return (int)sizeof(cudnnConvolutionFwdAlgoPerf_t) - 48; }\n' > "$work/after.c"
printf '#include <cuda_runtime_api.h>\n#include "cudnn.h"\nint main(void) { cudaStream_t s = 0; (void)s; return 0; }\n' > "$work/cuda_first.c"
cp "$work/after.c" "$work/after.cpp"
cp "$work/cuda_first.c" "$work/cuda_first.cpp"
fail=0 ran=0
try() {
    ran=$((ran + 1))
    if "$@" -o "$work/a.out" 2> "$work/err.txt"; then
        echo "ok:   $*"
    else
        echo "FAIL: $*"; cat "$work/err.txt"; fail=$((fail + 1))
    fi
}
strict_c="-std=c99 -pedantic -Wall -Wextra -Werror -Wstrict-prototypes"
strict_cxx="-std=c++11 -pedantic -Wall -Wextra -Werror"
try "$cc" $strict_c -I"$ours" "$work/after.c"
try "$cxx" $strict_cxx -I"$ours" "$work/after.cpp"
try "$cc" $strict_c -DFREEDNN_NO_CUDA_HEADERS -I"$ours" -I"$cuda" "$work/after.c"
if [ -f "$cuda/cuda_runtime_api.h" ]; then
    try "$cc" $strict_c -I"$ours" -I"$cuda" "$work/after.c"
    try "$cxx" $strict_cxx -I"$ours" -I"$cuda" "$work/after.cpp"
    # NVIDIA's own driver_types.h is not -pedantic clean in C99: C11 for this order.
    try "$cc" -std=c11 -Wall -Wextra -Werror -I"$ours" -I"$cuda" "$work/cuda_first.c"
    try "$cxx" $strict_cxx -I"$ours" -I"$cuda" "$work/cuda_first.cpp"
else
    echo "note: no CUDA toolkit headers at $cuda; the with-toolkit modes were not compiled"
fi
echo "$((ran - fail)) passed, $fail failed"
[ "$fail" -eq 0 ]
