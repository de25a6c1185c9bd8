#!/bin/sh
# SPDX-License-Identifier: MIT
# LeNet's training loss falls: 200 SGD steps (6400 images, batch 32, seed 1), and the mean loss
# of the last 20 steps must be below RATIO times the mean of the first 20.
# usage: lenet_loss.sh LENET_BINARY   (exit 77 = skipped: no Fashion-MNIST)
set -eu
lenet=$1
ratio=0.6
data=${FREEDNN_FASHION_MNIST:-/usr/share/datasets/fashion-mnist}
[ -r "$data/train-labels-idx1-ubyte.gz" ] || [ -r "$data/train-labels-idx1-ubyte" ] || {
  echo "SKIP: no Fashion-MNIST in $data (Debian package dataset-fashion-mnist)"; exit 77; }

out=lenet_loss.out
"$lenet" train --limit 6400 --batch 32 --seed 1 --trace --weights lenet_loss.weights \
  >"$out" 2>lenet_loss.err || { cat "$out"; tail -c 2000 lenet_loss.err; exit 1; }
awk -v ratio="$ratio" '
  $1 == "step" { loss[n++] = $4 }
  END {
    if (n != 200) { printf "FAIL: expected 200 steps, got %d\n", n; exit 1 }
    for (i = 0; i < 20; i++) { first += loss[i]; last += loss[n - 20 + i] }
    first /= 20; last /= 20
    printf "mean loss: first 20 steps %.4f, last 20 steps %.4f (must be < %.2f x first)\n",
           first, last, ratio
    if (!(last < ratio * first)) { print "FAIL: the loss did not fall enough"; exit 1 }
    print "PASSED"
  }' "$out"
