#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""compat/version_nodes: the ELF version nodes of libfreednn (DESIGN D2, issue 8).

Reads the library's dynamic symbol table (readelf --dyn-syms) and checks it against what
tools/gen_personalities.py places in each node:
  - every cuDNN 7.6.5 function (231) is exported as cudnnX@libcudnn.so.7 (non-default);
  - every other declared function has exactly one default version, @@libcudnn.so.9 for what
    cuDNN 9 exports, @@FREEDNN_0 for freednn* and the functions NVIDIA removed by 9.0;
  - no cudnn*/freednn* symbol is exported without a version, or beyond the headers.
With NVIDIA's libcudnn.so.9 at hand (--nvidia-lib), also: every name of our libcudnn.so.9 node
is one NVIDIA's libcudnn.so.9 exports, and none of the FREEDNN_0 cudnn* names is.
Standard library only.
"""
import argparse
import collections
import os
import re
import subprocess
import sys


def dynsyms(lib):
    out = subprocess.run(["readelf", "--dyn-syms", "-W", lib], stdout=subprocess.PIPE,
                         universal_newlines=True, check=True).stdout
    syms = collections.defaultdict(set)  # name -> {(version, default)}
    for line in out.splitlines():
        f = line.split()
        if len(f) < 8 or f[3] != "FUNC" or f[6] == "UND":
            continue
        m = re.match(r"^(\w+?)(?:(@@?)(\S+))?$", f[7])
        if m and m.group(1).startswith(("cudnn", "freednn")):
            syms[m.group(1)].add((m.group(3), m.group(2) == "@@"))
    return syms


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", required=True)
    ap.add_argument("--gen", required=True, help="tools/gen_personalities.py")
    ap.add_argument("--include", required=True)
    ap.add_argument("--nvidia-lib", help="NVIDIA's libcudnn.so.9 (optional)")
    args = ap.parse_args()
    listing = subprocess.run([sys.executable, args.gen, "list", "--include", args.include],
                             stdout=subprocess.PIPE, universal_newlines=True, check=True).stdout
    want = {}
    for line in listing.splitlines():
        name, node, v7 = line.split()
        want[name] = (node, v7 != "-")
    have = dynsyms(args.lib)
    errors = []
    per_node = collections.Counter()
    for name, vers in sorted(have.items()):
        for ver, default in vers:
            per_node[(ver, default)] += 1
        if name not in want:
            errors.append("%s is exported but declared in no public header" % name)
            continue
        node, v7 = want[name]
        expect = {(node, True)} | ({("libcudnn.so.7", False)} if v7 else set())
        if vers != expect:
            errors.append("%s: exported as %s, want %s" % (
                name, sorted(vers, key=str), sorted(expect, key=str)))
    for name in sorted(set(want) - set(have)):
        errors.append("%s is declared but not exported" % name)
    for (ver, default), n in sorted(per_node.items(), key=str):
        print("%4d  %s%s" % (n, "@@" if default else "@", ver))
    v7_count = per_node[("libcudnn.so.7", False)]
    if v7_count != 231:
        errors.append("libcudnn.so.7 holds %d functions, want the 231 of cuDNN 7.6.5" % v7_count)

    if args.nvidia_lib and os.path.exists(args.nvidia_lib):
        nv = dynsyms(args.nvidia_lib)
        nv_names = {n for n, vs in nv.items() if n.startswith("cudnn")}
        ours_v9 = {n for n, (node, _) in want.items() if node == "libcudnn.so.9"}
        ours_own = {n for n, (node, _) in want.items() if node == "FREEDNN_0" and n.startswith("cudnn")}
        print("NVIDIA %s: %d cudnn* functions; ours under libcudnn.so.9: %d" % (
            args.nvidia_lib, len(nv_names), len(ours_v9)))
        for n in sorted(ours_v9 - nv_names):
            errors.append("%s is in our libcudnn.so.9 node but NVIDIA's library lacks it" % n)
        for n in sorted(ours_own & nv_names):
            errors.append("%s is exported by NVIDIA's libcudnn.so.9 but sits in FREEDNN_0" % n)
        rest = sorted(nv_names - ours_v9)
        print("NVIDIA exports %d cudnn* functions freednn does not declare: %s" % (
            len(rest), " ".join(rest)))
    else:
        print("NVIDIA's libcudnn.so.9 not found: comparison with it skipped")
    for e in errors:
        print("FAIL: " + e)
    print("FAIL" if errors else "PASS")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
