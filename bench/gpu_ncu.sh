#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/gpu_ncu.sh - Nsight Compute readings of the kernels behind dnnbench rows, ours and NVIDIA
# cuDNN's side by side (dnnbench --vs, one timed iteration, no warm-up): per kernel launch its
# grid, block, registers, duration, DRAM rate (GB/s and % of peak), achieved occupancy,
# instructions issued per cycle per scheduler, L2 hit rate, DRAM megabytes read and written, and
# the top warp stall reasons. What the rows of issue 7.4 that
# stay below NVIDIA lose on (bytes, occupancy, latency, issue) is read from here.
# Clocks are left alone (--clock-control none: METHOD.md of the device notes). NCU_CACHE=none
# keeps the caches between launches (ncu flushes them before each one by default), so a pass
# that re-reads what the pass before it left in L2 shows its real DRAM bytes.
# Each ROW is one dnnbench argument string without --backend / --vs / --mode / --iters, e.g.
#   "--op=softmax --dir=fwd --dt=f32 --layout=nhwc n32c128h56w56"
# Writes OUT_DIR/<k>.csv (ncu's raw page) and prints the summary (OUT_DIR/summary.txt).
# Usage: bench/gpu_ncu.sh LIBCUDNN_SO_9 BUILD_DIR OUT_DIR ROW...
set -u
cd "$(dirname "$0")/.." || exit 2
[ $# -ge 4 ] || { echo "usage: $0 LIBCUDNN_SO_9 BUILD_DIR OUT_DIR ROW..." >&2; exit 2; }
cudnn=$1 build=$2 out=$3
shift 3
mkdir -p "$out"
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -n 1)
[ -n "$ncu" ] || { echo "gpu_ncu: no ncu on this machine" | tee "$out/summary.txt"; exit 1; }
dnb="$build/tools/dnnbench/dnnbench"
k=0
for row in "$@"; do
    k=$((k + 1))
    echo "$row" >"$out/$k.row"
    # shellcheck disable=SC2086 # row: dnnbench's words
    timeout "${ROW_CAP:-90}" "$ncu" --clock-control none --cache-control "${NCU_CACHE:-all}" -c "${LAUNCHES:-24}" --csv --page raw \
        --section SpeedOfLight --section LaunchStats --section Occupancy \
        --section WarpStateStats --section MemoryWorkloadAnalysis \
        --metrics dram__bytes_read.sum,dram__bytes_write.sum \
        "$dnb" --backend=cuda --vs="$cudnn" --mode=perf --iters=1 --warmup=0 --fill=real \
        --ref-max-gflop=0 $row >"$out/$k.csv" 2>"$out/$k.err"
    echo "rc $?" >>"$out/$k.row"
done
python3 - "$out" >"$out/summary.txt" <<'EOF'
import csv, glob, io, os, sys

d = sys.argv[1]
want = [("grid", "launch__grid_size"), ("block", "launch__block_size"),
        ("regs", "launch__registers_per_thread"), ("us", "gpu__time_duration.sum"),
        ("dramGB/s", "dram__bytes.sum.per_second"),
        ("dram%", "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"),
        ("occ%", "sm__warps_active.avg.pct_of_peak_sustained_active"),
        ("issue/cy", "smsp__issue_active.avg.per_cycle_active"),
        ("l2hit%", "lts__t_sector_hit_rate.pct"),
        ("rdMB", "dram__bytes_read.sum"), ("wrMB", "dram__bytes_write.sum")]
for f in sorted(glob.glob(os.path.join(d, "*.csv")), key=lambda p: int(os.path.basename(p)[:-4])):
    k = os.path.basename(f)[:-4]
    print("== row %s: %s" % (k, " / ".join(open(os.path.join(d, k + ".row")).read().split("\n")).strip(" /")))
    text = open(f, errors="replace").read()
    start = text.find('"ID"')
    if start < 0:
        print("   (no ncu records; see %s.err)" % k)
        continue
    recs = list(csv.reader(io.StringIO(text[start:])))
    head, units, body = recs[0], recs[1], recs[2:]
    col = {h: i for i, h in enumerate(head)}
    def val(r, m):
        i = col.get(m)
        if i is None or i >= len(r):
            return float("nan")
        try:
            v = float(r[i].replace(",", ""))
        except ValueError:
            return float("nan")
        u = units[i] if i < len(units) else ""
        if m == "dram__bytes.sum.per_second":  # to GB/s
            v *= {"byte/s": 1e-9, "Kbyte/s": 1e-6, "Mbyte/s": 1e-3, "Gbyte/s": 1.0, "Tbyte/s": 1e3}.get(u, 1.0)
        if m.startswith("dram__bytes_"):  # to MB
            v *= {"byte": 1e-6, "Kbyte": 1e-3, "Mbyte": 1.0, "Gbyte": 1e3}.get(u, 1.0)
        if m == "gpu__time_duration.sum":  # to us
            v *= {"ns": 1e-3, "nsecond": 1e-3, "us": 1.0, "usecond": 1.0, "ms": 1e3, "msecond": 1e3}.get(u, 1.0)
        return v
    stalls = [h for h in head if h.startswith("smsp__average_warps_issue_stalled_") and h.endswith("_per_issue_active.ratio")]
    print("   %-48s %s" % ("kernel", " ".join("%8s" % w for w, _ in want)))
    for r in body:
        name = r[col["Kernel Name"]] if "Kernel Name" in col else "?"
        vals = [val(r, m) for _, m in want]
        print("   %-48s %s" % (name[:48], " ".join("%8.2f" % v for v in vals)))
        top = sorted(((val(r, h), h) for h in stalls), key=lambda t: -t[0] if t[0] == t[0] else 0)[:4]
        if top:
            print("      stalls: " + ", ".join("%s %.2f" % (h.split("stalled_")[-1].replace("_per_issue_active.ratio", ""), v) for v, h in top))
EOF
cat "$out/summary.txt"
