#!/bin/bash
# session 45 (after call17): ResNet-50 N=256 every cell, DeepBench f16 / bf16 / tf32 every direction against NVIDIA, and the A/B of
# the staged epilogue (FREEDNN_WGMMA_STAGED_EPILOGUE=0) on the f16 ResNet-50 fwd and bwd_data lines
[ -d build-carry ] || { mkdir -p build-carry && tar -xJf build-pack/carry.tar.xz -C build-carry || exit 3; }
export PATH=$PATH:/usr/local/cuda/bin LD_LIBRARY_PATH=$PWD/build-carry:/usr/local/cuda/lib64
nv=$(ls /opt/torch/.venv/lib/python3*/site-packages/nvidia/cudnn/lib/libcudnn.so.9 | head -1)
date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader
B=build-carry/tools/dnnbench/dnnbench
for spec in "f16 nhwc" "bf16 nhwc" "tf32 nhwc" "f32 nchw"; do
  set -- $spec; t1=$SECONDS
  timeout 110 $B --op=conv --backend=cuda --vs="$nv" --dir=all --dt=$1 --layout=$2 --mode=perf --fill=real --n=256 --iters=5 \
    --batch=bench/shapes/resnet50.txt --csv=/tmp/r50_$1.csv > /tmp/r50_$1.txt 2>&1
  echo "r50 $1: rc $? in $((SECONDS - t1)) s"; grep -E "^geomean" /tmp/r50_$1.txt
  cat /tmp/r50_$1.csv >> $OUT/r50_all.csv; cat /tmp/r50_$1.txt >> $OUT/r50_all.txt
done
for dt in f16 bf16 tf32; do
  t1=$SECONDS
  timeout 120 $B --op=conv --backend=cuda --vs="$nv" --dir=all --dt=$dt --layout=nhwc --mode=perf --fill=real --iters=5 \
    --batch=bench/shapes/deepbench_train.txt --csv=/tmp/db_$dt.csv > /tmp/db_$dt.txt 2>&1
  echo "db $dt: rc $? in $((SECONDS - t1)) s"; grep -E "^geomean" /tmp/db_$dt.txt
  cat /tmp/db_$dt.csv >> $OUT/db_all.csv; cat /tmp/db_$dt.txt >> $OUT/db_all.txt
done
echo "== A/B: f16 R50 fwd / bwd_data with FREEDNN_WGMMA_STAGED_EPILOGUE=0 (ours only)"
for d in fwd bwd_data; do for e in 0 1; do
  FREEDNN_WGMMA_STAGED_EPILOGUE=$e timeout 60 $B --op=conv --backend=cuda --dir=$d --dt=f16 --layout=nhwc --mode=perf \
    --fill=real --n=256 --iters=5 --batch=bench/shapes/resnet50.txt >> $OUT/ab_staged_f16.txt 2>&1; echo "ab $d staged=$e rc $?"
done; done
date -u
