#!/bin/bash
# session 45: conv_bwd_filter_tc at two blocks per SM on sm_90 (__launch_bounds__(256, 2)): its GPU
# programs, then tf32 backward filter of ResNet-50 N=256: the previous library (carry_base) against
# this one, ours only, and this one against NVIDIA
mkdir -p build-carry build-base && tar -xJf build-pack/carry.tar.xz -C build-carry && tar -xJf build-pack/carry_base.tar.xz -C build-base || exit 3
export PATH=$PATH:/usr/local/cuda/bin
nv=$(ls /opt/torch/.venv/lib/python3*/site-packages/nvidia/cudnn/lib/libcudnn.so.9 | head -1)
date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader
T=build-carry/tests/gpu; t0=$SECONDS
export LD_LIBRARY_PATH=$PWD/build-carry:/usr/local/cuda/lib64
for t in conv_wgrad splitk conv_tf32 conv_tc; do
  ( timeout 110 $T/gpu_test_gpu_$t > /tmp/t_$t.txt 2>&1; echo "$t rc $? at $((SECONDS - t0)) s" >> /tmp/rc.txt ) &
done
wait; cat /tmp/rc.txt
for t in conv_wgrad splitk conv_tf32 conv_tc; do echo "== $t"; grep -E "FAIL" /tmp/t_$t.txt | head -3; tail -1 /tmp/t_$t.txt; done
cat /tmp/t_*.txt > $OUT/checks.txt
for lib in base carry base carry; do
  LD_LIBRARY_PATH=$PWD/build-$lib:/usr/local/cuda/lib64 timeout 40 build-$lib/tools/dnnbench/dnnbench --op=conv --backend=cuda \
    --dir=bwd_filter --dt=tf32 --layout=nhwc --mode=perf --fill=real --n=256 --iters=5 --batch=bench/shapes/resnet50.txt \
    > /tmp/ab_$lib.txt 2>&1; echo "ab $lib rc $?"; echo "== $lib" >> $OUT/ab_tf32_wgrad.txt; cat /tmp/ab_$lib.txt >> $OUT/ab_tf32_wgrad.txt
done
timeout 50 build-carry/tools/dnnbench/dnnbench --op=conv --backend=cuda --vs="$nv" --dir=bwd_filter --dt=tf32 --layout=nhwc \
  --mode=perf --fill=real --n=256 --iters=5 --batch=bench/shapes/resnet50.txt --csv=$OUT/r50_tf32_wgrad.csv > $OUT/r50_tf32_wgrad.txt 2>&1
echo "vs rc $?"; grep -E "^geomean" $OUT/r50_tf32_wgrad.txt
date -u
