#!/bin/bash
# session 45: the FFMA gather's 256 x 64 tile for GEMMs of <= 64 columns: simt / dgrad / conv GPU
# programs, sanitizers on test_gpu_conv_simt's smoke set, f32 NCHW ResNet-50 N=256 and DeepBench
# against NVIDIA, and an A/B (FREEDNN_SIMT_WIDE=0) on ResNet-50 f32 fwd and bwd_data
mkdir -p build-carry && tar -xJf build-pack/carry.tar.xz -C build-carry || exit 3
export PATH=$PATH:/usr/local/cuda/bin LD_LIBRARY_PATH=$PWD/build-carry:/usr/local/cuda/lib64
nv=$(ls /opt/torch/.venv/lib/python3*/site-packages/nvidia/cudnn/lib/libcudnn.so.9 | head -1)
date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader
T=build-carry/tests/gpu; B=build-carry/tools/dnnbench/dnnbench
t0=$SECONDS
for t in conv_simt conv_dgrad conv conv_winograd; do
  ( timeout 300 $T/gpu_test_gpu_$t > /tmp/t_$t.txt 2>&1; echo "$t rc $? at $((SECONDS - t0)) s" >> /tmp/rc.txt ) &
done
for tool in memcheck racecheck initcheck; do
  extra=; [ $tool = memcheck ] && extra="--padding 4096 --leak-check full"
  ( timeout 300 compute-sanitizer --tool $tool --error-exitcode 99 $extra $T/gpu_test_gpu_conv_simt --smoke > /tmp/san_$tool.txt 2>&1
    echo "san $tool rc $? at $((SECONDS - t0)) s" >> /tmp/rc.txt ) &
done
wait
cat /tmp/rc.txt
for t in conv_simt conv_dgrad conv conv_winograd; do echo "== $t"; grep -E "FAIL" /tmp/t_$t.txt | head -5; tail -1 /tmp/t_$t.txt; done
for tool in memcheck racecheck initcheck; do echo "== $tool"; tail -2 /tmp/san_$tool.txt; done
cat /tmp/t_*.txt /tmp/san_*.txt > $OUT/checks.txt
t1=$SECONDS
timeout 110 $B --op=conv --backend=cuda --vs="$nv" --dir=all --dt=f32 --layout=nchw --mode=perf --fill=real --n=256 --iters=5 \
  --batch=bench/shapes/resnet50.txt --csv=$OUT/r50_f32.csv > $OUT/r50_f32.txt 2>&1
echo "r50 f32: rc $? in $((SECONDS - t1)) s"; grep -E "^geomean" $OUT/r50_f32.txt
t1=$SECONDS
timeout 120 $B --op=conv --backend=cuda --vs="$nv" --dir=all --dt=f32 --layout=nchw --mode=perf --fill=real --iters=5 \
  --batch=bench/shapes/deepbench_train.txt --csv=$OUT/db_f32.csv > $OUT/db_f32.txt 2>&1
echo "db f32: rc $? in $((SECONDS - t1)) s"; grep -E "^geomean" $OUT/db_f32.txt
for d in fwd bwd_data; do for e in 0 1; do
  FREEDNN_SIMT_WIDE=$e timeout 60 $B --op=conv --backend=cuda --dir=$d --dt=f32 --layout=nchw --mode=perf \
    --fill=real --n=256 --iters=5 --batch=bench/shapes/resnet50.txt >> $OUT/ab_wide_f32.txt 2>&1; echo "ab $d wide=$e rc $?"
done; done
date -u
