#!/bin/bash
# session 45: the few-channel FFMA backward data with 16-byte dy copies: test_gpu_conv_simt and its
# sanitizers, --ref=gpu on the small-C layers, f32 NCHW bwd_data against NVIDIA, ncu of the stem
mkdir -p build-carry && tar -xJf build-pack/carry.tar.xz -C build-carry || exit 3
export PATH=$PATH:/usr/local/cuda/bin LD_LIBRARY_PATH=$PWD/build-carry:/usr/local/cuda/lib64
nv=$(ls /opt/torch/.venv/lib/python3*/site-packages/nvidia/cudnn/lib/libcudnn.so.9 | head -1)
date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader
T=build-carry/tests/gpu; B=build-carry/tools/dnnbench/dnnbench
t0=$SECONDS
( timeout 300 $T/gpu_test_gpu_conv_simt > /tmp/t_simt.txt 2>&1; echo "simt rc $? at $((SECONDS - t0)) s" >> /tmp/rc.txt ) &
for tool in memcheck racecheck initcheck; do
  extra=; [ $tool = memcheck ] && extra="--padding 4096 --leak-check full"
  ( timeout 300 compute-sanitizer --tool $tool --error-exitcode 99 $extra $T/gpu_test_gpu_conv_simt --smoke > /tmp/san_$tool.txt 2>&1
    echo "san $tool rc $? at $((SECONDS - t0)) s" >> /tmp/rc.txt ) &
done
awk '!/^#/ && $2<16' bench/shapes/deepbench_train.txt > /tmp/smallc.txt
awk '!/^#/ && $2<16' bench/shapes/resnet50.txt >> /tmp/smallc.txt
( for lay in nchw nhwc; do timeout 200 $B --op=conv --backend=cuda --dir=bwd_data --dt=f32 --layout=$lay --mode=corr --ref=gpu \
    --batch=/tmp/smallc.txt; done > /tmp/corr.txt 2>&1; echo "corr rc $? at $((SECONDS - t0)) s" >> /tmp/rc.txt ) &
wait
cat /tmp/rc.txt; tail -2 /tmp/t_simt.txt; grep -E "FAIL" /tmp/t_simt.txt | head -5
for tool in memcheck racecheck initcheck; do echo "== $tool"; tail -2 /tmp/san_$tool.txt; done
grep -E "^tests:|FAILED" /tmp/corr.txt
cat /tmp/t_simt.txt /tmp/san_*.txt /tmp/corr.txt > $OUT/checks.txt
echo "== perf vs NVIDIA, f32 nchw bwd_data"
timeout 120 $B --op=conv --backend=cuda --vs="$nv" --dir=bwd_data --dt=f32 --layout=nchw --mode=perf --fill=real \
  --n=256 --iters=5 --batch=bench/shapes/resnet50.txt --csv=$OUT/r50_f32_bwd_data.csv > $OUT/r50_f32_bwd_data.txt 2>&1
echo "r50 rc $?"; grep -E "^geomean|^tests:" $OUT/r50_f32_bwd_data.txt; grep -E "c3h224" $OUT/r50_f32_bwd_data.txt | cut -c1-150
timeout 150 $B --op=conv --backend=cuda --vs="$nv" --dir=bwd_data --dt=f32 --layout=nchw --mode=perf --fill=real \
  --iters=5 --batch=bench/shapes/deepbench_train.txt --csv=$OUT/db_f32_bwd_data.csv > $OUT/db_f32_bwd_data.txt 2>&1
echo "db rc $?"; grep -E "^geomean|^tests:" $OUT/db_f32_bwd_data.txt; grep -E "c1h|c3h" $OUT/db_f32_bwd_data.txt | cut -c1-150
date -u
echo "256 3 224 224 64 7 7 3 2 1 1" > /tmp/stem.txt
timeout 120 ncu --clock-control none --section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis \
  --section WarpStateStats --section InstructionStats -k regex:dgrad_smallc -c 1 $B --op=conv --backend=cuda --dir=bwd_data --dt=f32 \
  --layout=nchw --mode=perf --iters=1 --batch=/tmp/stem.txt > $OUT/ncu_stem.txt 2>&1; echo "ncu rc $?"
grep -vE "^==PROF==|^\s*$|----" $OUT/ncu_stem.txt | grep -E "Duration|Throughput|Pipe|Issue|Stall|Warp Cycles|Executed Ipc|Issued|Bank|Shared" | head -40
date -u
