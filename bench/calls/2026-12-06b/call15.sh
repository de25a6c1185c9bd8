#!/bin/bash
# session 45: the few-channel FFMA backward data (fd_conv_bwd_data_simt_smallc): GPU tests, the three
# sanitizers on test_gpu_conv_simt's smoke set, dnnbench --ref=gpu on the small-C layers, then
# f32 NCHW bwd_data of ResNet-50 N=256 and DeepBench against NVIDIA cuDNN, SASS counts, and ncu
mkdir -p build-carry && tar -xJf build-pack/carry.tar.xz -C build-carry || exit 3
export PATH=$PATH:/usr/local/cuda/bin LD_LIBRARY_PATH=$PWD/build-carry:/usr/local/cuda/lib64
nv=$(ls /opt/torch/.venv/lib/python3*/site-packages/nvidia/cudnn/lib/libcudnn.so.9 | head -1)
date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader
T=build-carry/tests/gpu; B=build-carry/tools/dnnbench/dnnbench
t0=$SECONDS
for t in conv_simt conv_dgrad conv; do
  ( timeout 400 $T/gpu_test_gpu_$t > /tmp/t_$t.txt 2>&1; echo "$t rc $? at $((SECONDS - t0)) s" >> /tmp/rc.txt ) &
done
for tool in memcheck racecheck initcheck; do
  extra=; [ $tool = memcheck ] && extra="--padding 4096 --leak-check full"
  ( timeout 400 compute-sanitizer --tool $tool --error-exitcode 99 $extra $T/gpu_test_gpu_conv_simt --smoke > /tmp/san_$tool.txt 2>&1
    echo "san $tool rc $? at $((SECONDS - t0)) s" >> /tmp/rc.txt ) &
done
wait
cat /tmp/rc.txt
for t in conv_simt conv_dgrad conv; do echo "== $t"; grep -E "FAIL|failed" /tmp/t_$t.txt | grep -v " 0 failed" | head -8; tail -2 /tmp/t_$t.txt; done
cat /tmp/t_conv_simt.txt > $OUT/t_simt.txt; cat /tmp/t_conv_dgrad.txt /tmp/t_conv.txt > $OUT/t_dgrad_conv.txt
for tool in memcheck racecheck initcheck; do echo "== $tool"; tail -3 /tmp/san_$tool.txt; cat /tmp/san_$tool.txt >> $OUT/san.txt; done
awk '!/^#/ && $2<16' bench/shapes/deepbench_train.txt > /tmp/smallc.txt
awk '!/^#/ && $2<16' bench/shapes/resnet50.txt >> /tmp/smallc.txt
cat /tmp/smallc.txt
echo "== corr --ref=gpu (small-C lines, f32 nchw and nhwc, bwd_data)"
for lay in nchw nhwc; do
  timeout 200 $B --op=conv --backend=cuda --dir=bwd_data --dt=f32 --layout=$lay --mode=corr --ref=gpu \
    --batch=/tmp/smallc.txt >> $OUT/corr.txt 2>&1; echo "corr $lay rc $?"; grep -E "^tests:" $OUT/corr.txt | tail -1
done
grep -E "FAILED" $OUT/corr.txt | head
echo "== perf vs NVIDIA, f32 nchw bwd_data"
timeout 120 $B --op=conv --backend=cuda --vs="$nv" --dir=bwd_data --dt=f32 --layout=nchw --mode=perf --fill=real \
  --n=256 --iters=5 --batch=bench/shapes/resnet50.txt --csv=$OUT/r50_f32_bwd_data.csv > $OUT/r50_f32_bwd_data.txt 2>&1
echo "r50 rc $?"; grep -E "^geomean|^tests:" $OUT/r50_f32_bwd_data.txt; grep -E "c3h224" $OUT/r50_f32_bwd_data.txt
timeout 150 $B --op=conv --backend=cuda --vs="$nv" --dir=bwd_data --dt=f32 --layout=nchw --mode=perf --fill=real \
  --iters=5 --batch=bench/shapes/deepbench_train.txt > $OUT/db_f32_bwd_data.txt 2>&1
echo "db rc $?"; grep -E "^geomean|^tests:" $OUT/db_f32_bwd_data.txt; grep -E "c1h|c3h" $OUT/db_f32_bwd_data.txt
date -u
echo "== SASS of the new kernel (CT = 3)"
cuobjdump --dump-sass --function '_Z22conv_simt_dgrad_smallcILi3EEv9sd_geom_tPKfS2_Pfdd' build-carry/libfreednn.so.0 > /tmp/sd3.sass 2>&1
for op in FFMA LDS.128 "LDS " LDGSTS BAR; do printf "%s %s\n" "$op" "$(grep -c "$op" /tmp/sd3.sass)"; done
echo "== ncu: the stem bwd_data (ours, NVIDIA's), the f16 1x1 64->256 forward (ours, NVIDIA's)"
echo "256 3 224 224 64 7 7 3 2 1 1" > /tmp/stem.txt; echo "256 64 56 56 256 1 1 0 1 1 1" > /tmp/c64k256.txt
timeout 150 ncu --clock-control none --section SpeedOfLight --section Occupancy --section LaunchStats \
  -k regex:'conv|xmma|cutlass|gemm|sm90|dgrad|wgrad' -c 4 $B --op=conv --backend=cuda --vs="$nv" --dir=bwd_data --dt=f32 \
  --layout=nchw --mode=perf --iters=1 --batch=/tmp/stem.txt > /tmp/ncu1.txt 2>&1; echo "ncu1 rc $?"
timeout 150 ncu --clock-control none --section SpeedOfLight --section Occupancy --section LaunchStats \
  -k regex:'conv|xmma|cutlass|gemm|sm90' -c 4 $B --op=conv --backend=cuda --vs="$nv" --dir=fwd --dt=f16 \
  --layout=nhwc --mode=perf --iters=1 --batch=/tmp/c64k256.txt > /tmp/ncu2.txt 2>&1; echo "ncu2 rc $?"
cat /tmp/ncu1.txt /tmp/ncu2.txt > $OUT/ncu.txt; grep -E "^  [a-zA-Z_].*\(|Duration|Memory Throughput|Compute \(SM\) Throughput|DRAM Throughput|Achieved Occupancy|Registers Per|Block Limit" $OUT/ncu.txt | head -60
date -u
