#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""mermaid_bars.py - a bar chart of ratios as a Mermaid xychart block (text that GitHub renders in
markdown), with a reference line: the charts of docs/perf/gpu-vs-cudnn.md.

usage: mermaid_bars.py TITLE BAR_LINE LABEL=VALUE...
  e.g. mermaid_bars.py "ResNet-50 N=256" 0.7 "f16 fwd=1.15" "f16 dgrad=0.88"
Prints the fenced block; the y axis runs from 0 to the largest value (or the line) rounded up.
"""
import math
import sys


def main(argv):
    if len(argv) < 4:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    title, line = argv[1], float(argv[2])
    labels, values = [], []
    for item in argv[3:]:
        label, _, value = item.rpartition("=")
        if not label:
            print("mermaid_bars: %r is not LABEL=VALUE" % item, file=sys.stderr)
            return 2
        labels.append(label.replace('"', "'"))
        values.append(float(value))
    top = math.ceil(max(values + [line]) * 2) / 2
    print("```mermaid")
    print("xychart-beta")
    print('    title "%s"' % title.replace('"', "'"))
    print("    x-axis [%s]" % ", ".join('"%s"' % l for l in labels))
    print('    y-axis "NVIDIA time / ours" 0 --> %g' % top)
    print("    bar [%s]" % ", ".join("%.2f" % v for v in values))
    print("    line [%s]" % ", ".join("%g" % line for _ in values))
    print("```")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
