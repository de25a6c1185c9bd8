#!/bin/sh
# SPDX-License-Identifier: MIT
# The weight file round trip: `lenet test` reading the file lenet_accuracy.sh saved classifies
# the test set exactly as the trained network did in memory (same count of correct images).
# usage: lenet_roundtrip.sh LENET_BINARY   (exit 77 = skipped: no Fashion-MNIST)
set -eu
lenet=$1
data=${FREEDNN_FASHION_MNIST:-/usr/share/datasets/fashion-mnist}
[ -r "$data/t10k-labels-idx1-ubyte.gz" ] || [ -r "$data/t10k-labels-idx1-ubyte" ] || {
  echo "SKIP: no Fashion-MNIST in $data (Debian package dataset-fashion-mnist)"; exit 77; }
[ -r lenet_accuracy.out ] && [ -r lenet_ci.weights ] || {
  echo "FAIL: lenet_accuracy.sh left no weights (it runs first as this test's fixture)"; exit 1; }

"$lenet" test --weights lenet_ci.weights --show 5 >lenet_roundtrip.out 2>lenet_roundtrip.err || {
  cat lenet_roundtrip.out lenet_roundtrip.err; exit 1; }
cat lenet_roundtrip.out
trained=$(awk '/^test accuracy:/ { print $3, $4 }' lenet_accuracy.out)
loaded=$(awk '/^test accuracy:/ { print $3, $4 }' lenet_roundtrip.out)
echo "in memory after training: $trained; read back from the file: $loaded"
[ -n "$loaded" ] && [ "$trained" = "$loaded" ] || { echo "FAIL: accuracies differ"; exit 1; }

# A damaged file is refused with a message, not misread.
head -c 1000 lenet_ci.weights >lenet_truncated.weights
if "$lenet" test --weights lenet_truncated.weights >/dev/null 2>lenet_truncated.err; then
  echo "FAIL: a truncated weight file was accepted"; exit 1
fi
grep -q truncated lenet_truncated.err || { echo "FAIL: no 'truncated' message:"; cat lenet_truncated.err; exit 1; }
echo "PASSED"
