#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs what building and testing freednn needs on a fresh Debian machine (as root), or,
# without root, names what is missing. Idempotent: does nothing when everything is present.
set -euo pipefail

need_pkgs=()
have() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }

for p in build-essential cmake pkg-config python3 python3-numpy python3-onnx libonnx-testdata \
         python3-matplotlib dataset-fashion-mnist zlib1g-dev \
         libopenblas-dev; do
  have "$p" || need_pkgs+=("$p")
done

if [ ${#need_pkgs[@]} -eq 0 ]; then
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  echo "freednn: missing Debian packages: ${need_pkgs[*]}" >&2
  echo "freednn: install them as root: apt-get install -y ${need_pkgs[*]}" >&2
  exit 1
fi

echo "freednn: installing ${need_pkgs[*]}"
export DEBIAN_FRONTEND=noninteractive
if ! apt-get install -y --no-install-recommends "${need_pkgs[@]}" >/tmp/freednn-apt.log 2>&1; then
  apt-get update >>/tmp/freednn-apt.log 2>&1 || true
  if ! apt-get install -y --no-install-recommends "${need_pkgs[@]}" >>/tmp/freednn-apt.log 2>&1; then
    echo "freednn: apt-get could not install: ${need_pkgs[*]} (log: /tmp/freednn-apt.log)" >&2
    tail -20 /tmp/freednn-apt.log >&2
    exit 1
  fi
fi
