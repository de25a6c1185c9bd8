# SPDX-License-Identifier: MIT
"""Convert ONNX node tests into case files for tests/onnx/onnx_conv.c and tests/onnx/onnx_ops.c.

The oracle is Debian's libonnx-testdata (ONNX's own node tests, plus the pytorch-converted and
pytorch-operator sets): nobody on this project wrote it. Every model.onnx under DATA/<set>/<test>/
whose graph is a single node of an op listed below is converted, one case file per
test_data_set_*; models are selected by reading them, never by directory name.
  - Conv, ConvTranspose: OUT/<case>.case in the format below (read by onnx_conv.c),
    listed in OUT/index.txt.
  - every op of GENERIC_OPS (pooling, batch normalization, LRN, activations, softmax, dropout,
    elementwise, reductions): OUT/ops/<case>.case in the generic format 2 below (read by
    onnx_ops.c), listed in OUT/ops/index.txt. The converter does not judge these cases: it
    writes every attribute, input and output; onnx_ops.c decides what cuDNN can express.

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

Generic case file (format 2, onnx_ops.c):
    freednn-onnx-case 2
    name <set>/<test>/<data set>
    op <op type>
    opset <version of the default ONNX domain the model imports>
    attr <name> int <v> | float <v> | string <word> | ints <n> <v...> | floats <n> <v...>
    attr <name> unsupported <ONNX attribute type>     (tensor, graph, ... attributes)
    input <k> absent                                  (optional input k not given)
    input <k> <dtype> <rank> <dims...>                (k: position in the node's inputs)
    <values>
    output <k> <dtype> <rank> <dims...>               (k: position in the node's outputs)
    <values>
    end
dtype is numpy's name (float32, float64, float16, int64, bool, ...); values are repr of the
float for floating types (exact, as above) and integers (bool as 0/1) otherwise.
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
# The ops onnx_ops.c maps to the classic cuDNN API (README.md says how).
GENERIC_OPS = (
    "MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool",       # cudnnPoolingForward
    "BatchNormalization",                                                 # ...ForwardInference
    "LRN",                                                                # ...CrossChannelForward
    "Relu", "Sigmoid", "Tanh", "Elu", "Clip",                             # cudnnActivationForward
    "Softmax", "LogSoftmax",                                              # cudnnSoftmaxForward
    "Dropout",                                                            # cudnnDropoutForward
    "Add", "Mul", "Min", "Max", "Sqrt",                                   # cudnnOpTensor
    "ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd",    # cudnnReduceTensor
    "ReduceL1", "ReduceL2",
)


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
    outs = sorted(glob.glob(os.path.join(data_dir, "output_*.pb")),
                  key=lambda p: int(p.rsplit("_", 1)[1].split(".")[0]))
    return values, [load_pb(p) for p in outs]


def node_outputs(model, node, out_pbs):
    """Node output position -> array. A .pb naming a node output goes there, else the k-th .pb
    goes to the k-th graph output (the backend test runner's rule)."""
    graph_outputs = [o.name for o in model.graph.output]
    result = {}
    for k, t in enumerate(out_pbs):
        name = t.name if t.name in node.output else (graph_outputs[k] if k < len(graph_outputs)
                                                      else None)
        if name not in node.output:
            raise ValueError("output %d (%s) is not an output of the node" % (k, t.name))
        result[list(node.output).index(name)] = numpy_helper.to_array(t)
    return result


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


def values_text(a):
    flat = a.reshape(-1)
    if a.dtype.kind == "f":
        return " ".join(repr(float(v)) for v in flat)
    return " ".join(str(int(v)) for v in flat)


def attr_line(a):
    t = onnx.AttributeProto
    v = onnx.helper.get_attribute_value(a)
    if a.type == t.INT:
        return "attr %s int %d" % (a.name, v)
    if a.type == t.FLOAT:
        return "attr %s float %r" % (a.name, float(v))
    if a.type == t.STRING:
        v = v.decode() if isinstance(v, bytes) else v
        return "attr %s string %s" % (a.name, v if v else "-")
    if a.type == t.INTS:
        return "attr %s ints %d %s" % (a.name, len(v), ints(v))
    if a.type == t.FLOATS:
        return "attr %s floats %d %s" % (a.name, len(v), " ".join(repr(float(x)) for x in v))
    return "attr %s unsupported %s" % (a.name, t.AttributeType.Name(a.type))


def write_generic_case(path, name, model, node, values, outputs):
    opset = max((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")),
                default=0)
    with open(path, "w") as f:
        f.write("freednn-onnx-case 2\nname %s\nop %s\nopset %d\n" % (name, node.op_type, opset))
        for a in node.attribute:
            f.write(attr_line(a) + "\n")
        for k, n in enumerate(node.input):
            a = values.get(n) if n else None
            if a is None:
                f.write("input %d absent\n" % k)
                continue
            a = np.asarray(a)
            f.write("input %d %s %d %s\n%s\n" % (k, a.dtype.name, a.ndim, ints(a.shape),
                                                   values_text(a)))
        for k in sorted(outputs):
            a = np.asarray(outputs[k])
            f.write("output %d %s %d %s\n%s\n" % (k, a.dtype.name, a.ndim, ints(a.shape),
                                                    values_text(a)))
        f.write("end\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default="/usr/share/libonnx-testdata/data")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    if not os.path.isdir(os.path.join(args.data, "node")):
        die("ONNX node test data not found under %s" % args.data)
    ops_out = os.path.join(args.out, "ops")
    os.makedirs(ops_out, exist_ok=True)
    stale = []
    for d in (args.out, ops_out):  # a failed run must not leave the previous run's files behind
        for pattern in ("*.case", "index.txt", "*.result"):
            stale += glob.glob(os.path.join(d, pattern))
    for old in stale:
        os.remove(old)

    written, per_op, models = [], {op: 0 for op in OPS}, 0
    generic, per_generic = [], {}
    for model_path in sorted(glob.glob(os.path.join(args.data, "*", "*", "model.onnx"))):
        test_dir = os.path.dirname(model_path)
        models += 1
        model = onnx.load(model_path)
        if len(model.graph.node) != 1:
            continue
        node = model.graph.node[0]
        rel = os.path.relpath(test_dir, args.data)
        if node.op_type in GENERIC_OPS:
            for data_dir in sorted(glob.glob(os.path.join(test_dir, "test_data_set_*"))):
                name = "%s/%s" % (rel, os.path.basename(data_dir))
                values, out_pbs = feeds(model, data_dir)
                fname = name.replace("/", "__") + ".case"
                write_generic_case(os.path.join(ops_out, fname), name, model, node, values,
                                   node_outputs(model, node, out_pbs))
                generic.append(fname)
                per_generic[node.op_type] = per_generic.get(node.op_type, 0) + 1
            continue
        if node.op_type not in OPS:
            continue
        for data_dir in sorted(glob.glob(os.path.join(test_dir, "test_data_set_*"))):
            name = "%s/%s" % (rel, os.path.basename(data_dir))
            values, out_pbs = feeds(model, data_dir)
            if len(out_pbs) != 1:
                raise ValueError("%s has %d outputs, expected 1" % (data_dir, len(out_pbs)))
            y = numpy_helper.to_array(out_pbs[0])
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
    with open(os.path.join(ops_out, "index.txt"), "w") as f:
        f.write("".join(n + "\n" for n in generic))
    print("convert.py: %d cases (%s) from %d models under %s -> %s" % (
        len(written), ", ".join("%d %s" % (per_op[o], o) for o in OPS), models, args.data, args.out))
    print("convert.py: %d cases of other ops (%s) -> %s" % (
        len(generic), ", ".join("%d %s" % (per_generic[o], o) for o in GENERIC_OPS
                                if o in per_generic), ops_out))
    if not written:
        die("no Conv or ConvTranspose node test found under %s" % args.data)
    if not generic:
        die("no node test of %s found under %s" % (", ".join(GENERIC_OPS), args.data))


if __name__ == "__main__":
    main()
