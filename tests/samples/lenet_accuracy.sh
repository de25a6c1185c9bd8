#!/bin/sh
# SPDX-License-Identifier: MIT
# The default training run reaches its accuracy: 1 epoch over all 60000 training images (batch
# 32, lr 0.01, momentum 0.9, seed 1), then the whole test set. Measured 84.98-86.77% over seeds
# 1-4 (samples/lenet/README.md); MIN_ACC sits 3 points below the lowest, above the 80% the
# sample promises. Leaves lenet_ci.weights and lenet_accuracy.out for lenet_roundtrip.sh.
# usage: lenet_accuracy.sh LENET_BINARY   (exit 77 = skipped: no Fashion-MNIST)
set -eu
lenet=$1
min_acc=82
data=${FREEDNN_FASHION_MNIST:-/usr/share/datasets/fashion-mnist}
[ -r "$data/train-labels-idx1-ubyte.gz" ] || [ -r "$data/train-labels-idx1-ubyte" ] || {
  echo "SKIP: no Fashion-MNIST in $data (Debian package dataset-fashion-mnist)"; exit 77; }

rm -f lenet_ci.weights lenet_accuracy.out
"$lenet" train --epochs 1 --batch 32 --lr 0.01 --momentum 0.9 --seed 1 --test-limit 0 \
  --weights lenet_ci.weights >lenet_accuracy.out.tmp 2>lenet_accuracy.err || {
  cat lenet_accuracy.out.tmp; tail -c 2000 lenet_accuracy.err; exit 1; }
cat lenet_accuracy.out.tmp
acc=$(awk '/^test accuracy:/ { sub("%", "", $3); print $3 }' lenet_accuracy.out.tmp)
[ -n "$acc" ] || { echo "FAIL: no 'test accuracy' line"; exit 1; }
if awk -v a="$acc" -v m="$min_acc" 'BEGIN { exit !(a >= m) }'; then
  mv lenet_accuracy.out.tmp lenet_accuracy.out
  echo "PASSED: test accuracy $acc% >= $min_acc%"
else
  echo "FAIL: test accuracy $acc% < $min_acc%"; exit 1
fi
