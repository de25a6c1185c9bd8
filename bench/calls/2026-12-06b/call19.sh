#!/bin/bash
# session 45: ncu of the remaining low ResNet-50 cells, ours and NVIDIA's kernels: what limits each
[ -d build-carry ] || { mkdir -p build-carry && tar -xJf build-pack/carry.tar.xz -C build-carry || exit 3; }
export PATH=$PATH:/usr/local/cuda/bin LD_LIBRARY_PATH=$PWD/build-carry:/usr/local/cuda/lib64
nv=$(ls /opt/torch/.venv/lib/python3*/site-packages/nvidia/cudnn/lib/libcudnn.so.9 | head -1)
date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader
B=build-carry/tools/dnnbench/dnnbench
i=0
for spec in "tf32 nhwc bwd_filter 256 512 7 7 512 3 3 1 1" "f16 nhwc bwd_filter 256 3 224 224 64 7 7 3 2" \
            "f32 nchw fwd 256 256 56 56 64 1 1 0 1" "f16 nhwc fwd 256 3 224 224 64 7 7 3 2"; do
  set -- $spec; i=$((i + 1))
  echo "$4 $5 $6 $7 $8 $9 ${10} ${11} ${12} 1 1" > /tmp/one.txt
  timeout 100 ncu --clock-control none --section SpeedOfLight --section Occupancy --section LaunchStats \
    --section WarpStateStats -k regex:'conv|xmma|cutlass|gemm|grad|sm90|implicit|reduce|winograd|im2col' -c 8 $B --op=conv --backend=cuda --vs="$nv" \
    --dir=$3 --dt=$1 --layout=$2 --mode=perf --iters=1 --batch=/tmp/one.txt > /tmp/ncu_$i.txt 2>&1
  echo "== $spec: ncu rc $?"
  grep -E "^  [a-zA-Z_].*\(|    Duration|Memory Throughput|DRAM Throughput|L2 Cache Throughput|L1/TEX Cache|Compute \(SM\) Throughput|Achieved Occupancy|Registers Per Thread|Grid Size|Warp Cycles Per Issued" /tmp/ncu_$i.txt | cut -c1-150 | head -60
  cat /tmp/ncu_$i.txt >> $OUT/ncu_gaps.txt
done
date -u
