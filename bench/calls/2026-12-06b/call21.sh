#!/bin/bash
# session 45: the wide gather tile's block-count rule and its new test cases: test_gpu_conv_simt,
# _dgrad and the sanitizers on the simt smoke set, then f32 NCHW fwd / bwd_data of ResNet-50 and
# DeepBench against NVIDIA
mkdir -p build-carry && tar -xJf build-pack/carry.tar.xz -C build-carry || exit 3
export PATH=$PATH:/usr/local/cuda/bin LD_LIBRARY_PATH=$PWD/build-carry:/usr/local/cuda/lib64
nv=$(ls /opt/torch/.venv/lib/python3*/site-packages/nvidia/cudnn/lib/libcudnn.so.9 | head -1)
date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader
T=build-carry/tests/gpu; B=build-carry/tools/dnnbench/dnnbench
t0=$SECONDS
for t in conv_simt conv_dgrad; do
  ( timeout 200 $T/gpu_test_gpu_$t > /tmp/t_$t.txt 2>&1; echo "$t rc $? at $((SECONDS - t0)) s" >> /tmp/rc.txt ) &
done
for tool in memcheck racecheck initcheck; do
  extra=; [ $tool = memcheck ] && extra="--padding 4096 --leak-check full"
  ( timeout 200 compute-sanitizer --tool $tool --error-exitcode 99 $extra $T/gpu_test_gpu_conv_simt --smoke > /tmp/san_$tool.txt 2>&1
    echo "san $tool rc $? at $((SECONDS - t0)) s" >> /tmp/rc.txt ) &
done
wait
cat /tmp/rc.txt
for t in conv_simt conv_dgrad; do echo "== $t"; grep -E "FAIL" /tmp/t_$t.txt | head -5; tail -1 /tmp/t_$t.txt; done
for tool in memcheck racecheck initcheck; do echo "== $tool"; tail -2 /tmp/san_$tool.txt; done
cat /tmp/t_*.txt /tmp/san_*.txt > $OUT/checks.txt
for d in fwd bwd_data; do
  timeout 60 $B --op=conv --backend=cuda --vs="$nv" --dir=$d --dt=f32 --layout=nchw --mode=perf --fill=real --n=256 --iters=5 \
    --batch=bench/shapes/resnet50.txt --csv=/tmp/r50_$d.csv > /tmp/r50_$d.txt 2>&1; echo "r50 $d rc $?"; grep -E "^geomean" /tmp/r50_$d.txt
  cat /tmp/r50_$d.csv >> $OUT/r50_f32.csv; cat /tmp/r50_$d.txt >> $OUT/r50_f32.txt
done
timeout 60 $B --op=conv --backend=cuda --vs="$nv" --dir=bwd_data --dt=f32 --layout=nchw --mode=perf --fill=real --iters=5 \
  --batch=bench/shapes/deepbench_train.txt --csv=$OUT/db_f32_bwd_data.csv > $OUT/db_f32_bwd_data.txt 2>&1
echo "db rc $?"; grep -E "^geomean" $OUT/db_f32_bwd_data.txt; grep -E "c64h56w56k256r1s1p0u2" $OUT/db_f32_bwd_data.txt | cut -c1-120
date -u
