#!/bin/bash
# session 45: the wgmma rows' staged epilogue (whole rows of 16-byte stores through shared memory):
# the wgmma GPU programs (children forked), memcheck / initcheck / racecheck of their smoke sets,
# (the timings in call18.sh)
mkdir -p build-carry && tar -xJf build-pack/carry.tar.xz -C build-carry || exit 3
export PATH=$PATH:/usr/local/cuda/bin LD_LIBRARY_PATH=$PWD/build-carry:/usr/local/cuda/lib64
nv=$(ls /opt/torch/.venv/lib/python3*/site-packages/nvidia/cudnn/lib/libcudnn.so.9 | head -1)
date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader
T=build-carry/tests/gpu; B=build-carry/tools/dnnbench/dnnbench
t0=$SECONDS
for t in conv_wgmma conv_wgmma_bwd conv; do
  ( timeout 500 $T/gpu_test_gpu_$t > /tmp/t_$t.txt 2>&1; echo "$t rc $? at $((SECONDS - t0)) s" >> /tmp/rc.txt ) &
done
for tool in memcheck initcheck racecheck; do
  for t in conv_wgmma conv_wgmma_bwd; do
    extra=; [ $tool = memcheck ] && extra="--padding 4096"; [ $tool = racecheck ] && extra="--racecheck-report analysis"
    ( timeout 500 env FD_GPU_CHILDREN_APART=1 compute-sanitizer --tool $tool --error-exitcode 99 $extra $T/gpu_test_gpu_$t --smoke \
        > /tmp/san_${tool}_$t.txt 2>&1; echo "san $tool $t rc $? at $((SECONDS - t0)) s" >> /tmp/rc.txt ) &
  done
done
wait
cat /tmp/rc.txt
for t in conv_wgmma conv_wgmma_bwd conv; do echo "== $t"; grep -E "FAIL|failed" /tmp/t_$t.txt | grep -v " 0 failed" | head -8; tail -2 /tmp/t_$t.txt; done
for f in /tmp/san_*.txt; do echo "== $f"; tail -2 $f; done
cat /tmp/t_conv_wgmma.txt /tmp/t_conv_wgmma_bwd.txt /tmp/t_conv.txt /tmp/san_*.txt > $OUT/checks.txt
date -u
date -u
