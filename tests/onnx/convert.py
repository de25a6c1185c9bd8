# SPDX-License-Identifier: MIT
"""Convert ONNX Conv / ConvTranspose node tests into case files for tests/onnx/onnx_conv.c.

The oracle is Debian's libonnx-testdata (ONNX's own node tests, plus the pytorch-converted and
pytorch-operator sets): nobody on this project wrote it. Every model.onnx under DATA/<set>/<test>/
whose graph is a single Conv or ConvTranspose node is converted, one case file per
test_data_set_*; models are selected by reading them, never by directory name.

Runs at test time under Debian's interpreter (/usr/bin/python3 with python3-onnx and
python3-numpy); the output goes to the build tree and is never committed.

Case file (text, one item per line, values separated by spaces):
    freednn-onnx-case 1
    name <set>/<test>/<data set>
    op Conv|ConvTranspose
    dtype float32|float64
    spatial <nsp>
    kernel_shape <nsp ints>        attribute, else W's spatial dims
    strides <nsp ints>             attribute, else 1
    dilations <nsp ints>           attribute, else 1
    pads_begin <nsp ints>          attribute pads[0:nsp], else 0
    pads_end <nsp ints>            attribute pads[nsp:], else 0
    group <int>                    attribute, else 1
    auto_pad NOTSET|SAME_UPPER|SAME_LOWER|VALID
    output_padding <nsp ints>      ConvTranspose only; attribute, else 0
    output_shape <nsp ints>|-      ConvTranspose only; '-' when absent
    tensor X|W|B|Y <rank> <dims...>
    <values, exact decimal (repr of the float32/float64 value)>
    end
A case the C test must not run carries `skip <reason>` instead of tensors.
"""
import argparse
import glob
import os
import sys

PKG_HINT = ("install the Debian packages python3-onnx, python3-numpy and libonnx-testdata "
            "(scripts/install-deps.sh does, as root)")


def die(msg):
    print("convert.py: error: %s" % msg, file=sys.stderr)
    print("convert.py: %s" % PKG_HINT, file=sys.stderr)
    sys.exit(1)


try:
    import numpy as np
    import onnx
    from onnx import numpy_helper
except ImportError as e:  # the Debian packages are a requirement, not an option (DESIGN D7)
    die("%s cannot import onnx/numpy (%s)" % (sys.executable, e))

OPS = ("Conv", "ConvTranspose")
DTYPES = {np.dtype(np.float32): "float32", np.dtype(np.float64): "float64"}


def attributes(node):
    return {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}


def ints(values):
    return " ".join(str(int(v)) for v in values)


def load_pb(path):
    t = onnx.TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return t


def feeds(model, data_dir):
    """name -> array for every value the node can read: initializers, then input_N.pb."""
    values = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    # Inputs fed by the data set are the graph inputs without an initializer, in order (the
    # ONNX backend test runner's rule); a .pb that names a graph input goes to that input.
    graph_inputs = [i.name for i in model.graph.input]
    fed = [n for n in graph_inputs if n not in values]
    pbs = sorted(glob.glob(os.path.join(data_dir, "input_*.pb")),
                 key=lambda p: int(p.rsplit("_", 1)[1].split(".")[0]))
    for k, path in enumerate(pbs):
        t = load_pb(path)
        name = t.name if t.name in graph_inputs else (fed[k] if k < len(fed) else None)
        if name is None:
            raise ValueError("%s has no graph input to feed" % path)
        values[name] = numpy_helper.to_array(t)
    outs = sorted(glob.glob(os.path.join(data_dir, "output_*.pb")))
    if len(outs) != 1:
        raise ValueError("%s has %d outputs, expected 1" % (data_dir, len(outs)))
    return values, numpy_helper.to_array(load_pb(outs[0]))


def write_tensor(f, tag, a):
    f.write("tensor %s %d %s\n" % (tag, a.ndim, ints(a.shape)))
    # repr of a Python float is the shortest decimal that reads back as the same double, and a
    # float32 value is exactly representable as a double: strtod gets every bit back.
    f.write(" ".join(repr(float(v)) for v in a.reshape(-1)))
    f.write("\n")


def write_case(path, name, node, tensors, y, skip):
    op = node.op_type
    at = attributes(node)
    x, w = tensors[0], tensors[1]
    nsp = w.ndim - 2 if w is not None else 0
    with open(path, "w") as f:
        f.write("freednn-onnx-case 1\nname %s\nop %s\n" % (name, op))
        if skip is None:
            f.write("dtype %s\nspatial %d\n" % (DTYPES[x.dtype], nsp))
            pads = list(at.get("pads", [0] * (2 * nsp)))
            f.write("kernel_shape %s\n" % ints(at.get("kernel_shape", w.shape[2:])))
            f.write("strides %s\n" % ints(at.get("strides", [1] * nsp)))
            f.write("dilations %s\n" % ints(at.get("dilations", [1] * nsp)))
            f.write("pads_begin %s\npads_end %s\n" % (ints(pads[:nsp]), ints(pads[nsp:])))
            f.write("group %d\n" % int(at.get("group", 1)))
            auto_pad = at.get("auto_pad", b"NOTSET")
            f.write("auto_pad %s\n" % (auto_pad.decode() if isinstance(auto_pad, bytes) else auto_pad))
            if op == "ConvTranspose":
                f.write("output_padding %s\n" % ints(at.get("output_padding", [0] * nsp)))
                os_ = at.get("output_shape")
                if os_ is not None and len(os_) == nsp + 2:  # older models give N, C too
                    os_ = os_[2:]
                f.write("output_shape %s\n" % (ints(os_) if os_ is not None else "-"))
            for tag, a in zip("XWB", tensors):
                if a is not None:
                    write_tensor(f, tag, a)
            write_tensor(f, "Y", y)
        else:
            f.write("skip %s\n" % skip)
        f.write("end\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default="/usr/share/libonnx-testdata/data")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    if not os.path.isdir(os.path.join(args.data, "node")):
        die("ONNX node test data not found under %s" % args.data)
    os.makedirs(args.out, exist_ok=True)
    for old in glob.glob(os.path.join(args.out, "*.case")) + glob.glob(os.path.join(args.out, "index.txt")):
        os.remove(old)  # a failed run must not leave the previous run's cases behind

    written, per_op, models = [], {op: 0 for op in OPS}, 0
    for model_path in sorted(glob.glob(os.path.join(args.data, "*", "*", "model.onnx"))):
        test_dir = os.path.dirname(model_path)
        models += 1
        model = onnx.load(model_path)
        if len(model.graph.node) != 1 or model.graph.node[0].op_type not in OPS:
            continue
        node = model.graph.node[0]
        rel = os.path.relpath(test_dir, args.data)
        for data_dir in sorted(glob.glob(os.path.join(test_dir, "test_data_set_*"))):
            name = "%s/%s" % (rel, os.path.basename(data_dir))
            values, y = feeds(model, data_dir)
            tensors = [values.get(n) if n else None for n in list(node.input) + [""] * 3][:3]
            skip = None
            dts = {a.dtype for a in tensors + [y] if a is not None}
            if tensors[0] is None or tensors[1] is None:
                skip = "X or W has no data"
            elif len(dts) != 1 or next(iter(dts)) not in DTYPES:
                skip = "tensor types %s (only float32 and float64 are converted)" % sorted(map(str, dts))
            fname = name.replace("/", "__") + ".case"
            write_case(os.path.join(args.out, fname), name, node, tensors, y, skip)
            written.append(fname)
            per_op[node.op_type] += 1
    with open(os.path.join(args.out, "index.txt"), "w") as f:
        f.write("".join(n + "\n" for n in written))
    print("convert.py: %d cases (%s) from %d models under %s -> %s" % (
        len(written), ", ".join("%d %s" % (per_op[o], o) for o in OPS), models, args.data, args.out))
    if not written:
        die("no Conv or ConvTranspose node test found under %s" % args.data)


if __name__ == "__main__":
    main()
