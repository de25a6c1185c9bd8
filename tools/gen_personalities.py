#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Generates the ELF personalities of libfreednn (DESIGN D2) from the public headers.

Run by CMake at build time (cmake/personalities.cmake); nothing it writes is committed.

  lib   --map FILE --wrappers FILE
        FILE.map   the linker version script. Nodes:
                     libcudnn.so.7  the 231 functions of cuDNN 7.6.5, each bound by .symver to
                                    a wrapper that speaks cuDNN 7 (status numbers 0..14,
                                    version 7605); non-default, so only binaries linked against
                                    a libcudnn.so.7 reach them.
                     libcudnn.so.9  default version of every classic function cuDNN 9 still
                                    exports (cuDNN 9 status numbers, the library's own).
                     FREEDNN_0      default version of the freednn* extensions and of the
                                    classic functions NVIDIA removed in 8.0/9.0: our header
                                    still declares them (DESIGN D1), so programs built against
                                    it must link, but NVIDIA's libcudnn.so.9 has no such
                                    symbols, so they do not belong in that node.
        FILE.c     the v7 wrappers: call the real function, map the returned status (and
                   status out-parameters, perf-struct `status` fields, status inputs).
  stub  --node NAME --map FILE --stub FILE
        A link-time stand-in ("import library") for a binary that should reference
        cudnnX@NAME: every function of that node as an empty body, and a version script with
        the node. Used by tests/compat to build programs the way NVIDIA's library would have.

The set of cuDNN 7.6.5 functions and the set cuDNN 9 removed are data below (from
shared/reference/api_inventory.md 1.3-1.5); every one must be declared in include/, and every
function declared in include/ must be placed in a node, or the build fails.
Standard library only.
"""
import argparse
import glob
import os
import re
import sys

# cuDNN 7.6.5's 231 exported functions (api_inventory.md 1.3), by family.
V7_FUNCTIONS = """
cudnnGetVersion cudnnGetCudartVersion cudnnGetErrorString cudnnQueryRuntimeError cudnnGetProperty
cudnnCreate cudnnDestroy cudnnSetStream cudnnGetStream
cudnnCreateTensorDescriptor cudnnSetTensor4dDescriptor cudnnSetTensor4dDescriptorEx
cudnnGetTensor4dDescriptor cudnnSetTensorNdDescriptor cudnnSetTensorNdDescriptorEx
cudnnGetTensorNdDescriptor cudnnGetTensorSizeInBytes cudnnDestroyTensorDescriptor
cudnnInitTransformDest cudnnCreateTensorTransformDescriptor cudnnSetTensorTransformDescriptor
cudnnGetTensorTransformDescriptor cudnnDestroyTensorTransformDescriptor cudnnTransformTensor
cudnnTransformTensorEx cudnnGetFoldedConvBackwardDataDescriptors
cudnnAddTensor cudnnCreateOpTensorDescriptor cudnnSetOpTensorDescriptor cudnnGetOpTensorDescriptor
cudnnDestroyOpTensorDescriptor cudnnOpTensor cudnnSetTensor cudnnScaleTensor
cudnnCreateReduceTensorDescriptor cudnnSetReduceTensorDescriptor cudnnGetReduceTensorDescriptor
cudnnDestroyReduceTensorDescriptor cudnnGetReductionIndicesSize cudnnGetReductionWorkspaceSize
cudnnReduceTensor
cudnnCreateFilterDescriptor cudnnSetFilter4dDescriptor cudnnGetFilter4dDescriptor
cudnnSetFilterNdDescriptor cudnnGetFilterNdDescriptor cudnnGetFilterSizeInBytes
cudnnTransformFilter cudnnDestroyFilterDescriptor cudnnReorderFilterAndBias
cudnnCreateConvolutionDescriptor cudnnSetConvolutionMathType cudnnGetConvolutionMathType
cudnnSetConvolutionGroupCount cudnnGetConvolutionGroupCount cudnnSetConvolutionReorderType
cudnnGetConvolutionReorderType cudnnSetConvolution2dDescriptor cudnnGetConvolution2dDescriptor
cudnnGetConvolution2dForwardOutputDim cudnnSetConvolutionNdDescriptor
cudnnGetConvolutionNdDescriptor cudnnGetConvolutionNdForwardOutputDim
cudnnDestroyConvolutionDescriptor
cudnnGetConvolutionForwardAlgorithmMaxCount cudnnFindConvolutionForwardAlgorithm
cudnnFindConvolutionForwardAlgorithmEx cudnnGetConvolutionForwardAlgorithm
cudnnGetConvolutionForwardAlgorithm_v7 cudnnGetConvolutionForwardWorkspaceSize
cudnnConvolutionForward cudnnConvolutionBiasActivationForward cudnnIm2Col
cudnnConvolutionBackwardBias cudnnGetConvolutionBackwardFilterAlgorithmMaxCount
cudnnFindConvolutionBackwardFilterAlgorithm cudnnFindConvolutionBackwardFilterAlgorithmEx
cudnnGetConvolutionBackwardFilterAlgorithm cudnnGetConvolutionBackwardFilterAlgorithm_v7
cudnnGetConvolutionBackwardFilterWorkspaceSize cudnnConvolutionBackwardFilter
cudnnGetConvolutionBackwardDataAlgorithmMaxCount cudnnFindConvolutionBackwardDataAlgorithm
cudnnFindConvolutionBackwardDataAlgorithmEx cudnnGetConvolutionBackwardDataAlgorithm
cudnnGetConvolutionBackwardDataAlgorithm_v7 cudnnGetConvolutionBackwardDataWorkspaceSize
cudnnConvolutionBackwardData
cudnnSoftmaxForward cudnnSoftmaxBackward
cudnnCreatePoolingDescriptor cudnnSetPooling2dDescriptor cudnnGetPooling2dDescriptor
cudnnSetPoolingNdDescriptor cudnnGetPoolingNdDescriptor cudnnGetPoolingNdForwardOutputDim
cudnnGetPooling2dForwardOutputDim cudnnDestroyPoolingDescriptor cudnnPoolingForward
cudnnPoolingBackward
cudnnCreateActivationDescriptor cudnnSetActivationDescriptor cudnnGetActivationDescriptor
cudnnDestroyActivationDescriptor cudnnActivationForward cudnnActivationBackward
cudnnCreateLRNDescriptor cudnnSetLRNDescriptor cudnnGetLRNDescriptor cudnnDestroyLRNDescriptor
cudnnLRNCrossChannelForward cudnnLRNCrossChannelBackward cudnnDivisiveNormalizationForward
cudnnDivisiveNormalizationBackward
cudnnDeriveBNTensorDescriptor cudnnGetBatchNormalizationForwardTrainingExWorkspaceSize
cudnnGetBatchNormalizationBackwardExWorkspaceSize
cudnnGetBatchNormalizationTrainingExReserveSpaceSize cudnnBatchNormalizationForwardTraining
cudnnBatchNormalizationForwardTrainingEx cudnnBatchNormalizationForwardInference
cudnnBatchNormalizationBackward cudnnBatchNormalizationBackwardEx
cudnnCreateSpatialTransformerDescriptor cudnnSetSpatialTransformerNdDescriptor
cudnnDestroySpatialTransformerDescriptor cudnnSpatialTfGridGeneratorForward
cudnnSpatialTfGridGeneratorBackward cudnnSpatialTfSamplerForward cudnnSpatialTfSamplerBackward
cudnnCreateDropoutDescriptor cudnnDestroyDropoutDescriptor cudnnDropoutGetStatesSize
cudnnDropoutGetReserveSpaceSize cudnnSetDropoutDescriptor cudnnRestoreDropoutDescriptor
cudnnGetDropoutDescriptor cudnnDropoutForward cudnnDropoutBackward
cudnnCreateRNNDescriptor cudnnDestroyRNNDescriptor cudnnSetRNNDescriptor cudnnGetRNNDescriptor
cudnnSetRNNMatrixMathType cudnnGetRNNMatrixMathType cudnnSetRNNBiasMode cudnnGetRNNBiasMode
cudnnRNNSetClip cudnnRNNGetClip cudnnSetRNNProjectionLayers cudnnGetRNNProjectionLayers
cudnnCreatePersistentRNNPlan cudnnDestroyPersistentRNNPlan cudnnSetPersistentRNNPlan
cudnnGetRNNWorkspaceSize cudnnGetRNNTrainingReserveSize cudnnGetRNNParamsSize
cudnnGetRNNLinLayerMatrixParams cudnnGetRNNLinLayerBiasParams cudnnRNNForwardInference
cudnnRNNForwardTraining cudnnRNNBackwardData cudnnRNNBackwardWeights cudnnSetRNNPaddingMode
cudnnGetRNNPaddingMode cudnnCreateRNNDataDescriptor cudnnDestroyRNNDataDescriptor
cudnnSetRNNDataDescriptor cudnnGetRNNDataDescriptor cudnnRNNForwardTrainingEx
cudnnRNNForwardInferenceEx cudnnRNNBackwardDataEx cudnnRNNBackwardWeightsEx
cudnnSetRNNAlgorithmDescriptor cudnnGetRNNForwardInferenceAlgorithmMaxCount
cudnnFindRNNForwardInferenceAlgorithmEx cudnnGetRNNForwardTrainingAlgorithmMaxCount
cudnnFindRNNForwardTrainingAlgorithmEx cudnnGetRNNBackwardDataAlgorithmMaxCount
cudnnFindRNNBackwardDataAlgorithmEx cudnnGetRNNBackwardWeightsAlgorithmMaxCount
cudnnFindRNNBackwardWeightsAlgorithmEx cudnnSetRNNDescriptor_v6 cudnnSetRNNDescriptor_v5
cudnnCreateSeqDataDescriptor cudnnDestroySeqDataDescriptor cudnnSetSeqDataDescriptor
cudnnGetSeqDataDescriptor cudnnCreateAttnDescriptor cudnnDestroyAttnDescriptor
cudnnSetAttnDescriptor cudnnGetAttnDescriptor cudnnGetMultiHeadAttnBuffers
cudnnGetMultiHeadAttnWeights cudnnMultiHeadAttnForward cudnnMultiHeadAttnBackwardData
cudnnMultiHeadAttnBackwardWeights
cudnnCreateCTCLossDescriptor cudnnSetCTCLossDescriptor cudnnSetCTCLossDescriptorEx
cudnnGetCTCLossDescriptor cudnnGetCTCLossDescriptorEx cudnnDestroyCTCLossDescriptor
cudnnCTCLoss cudnnGetCTCLossWorkspaceSize
cudnnCreateAlgorithmDescriptor cudnnSetAlgorithmDescriptor cudnnGetAlgorithmDescriptor
cudnnCopyAlgorithmDescriptor cudnnDestroyAlgorithmDescriptor cudnnCreateAlgorithmPerformance
cudnnSetAlgorithmPerformance cudnnGetAlgorithmPerformance cudnnDestroyAlgorithmPerformance
cudnnGetAlgorithmSpaceSize cudnnSaveAlgorithm cudnnRestoreAlgorithm
cudnnSetCallback cudnnGetCallback
cudnnCreateFusedOpsConstParamPack cudnnDestroyFusedOpsConstParamPack
cudnnSetFusedOpsConstParamPackAttribute cudnnGetFusedOpsConstParamPackAttribute
cudnnCreateFusedOpsVariantParamPack cudnnDestroyFusedOpsVariantParamPack
cudnnSetFusedOpsVariantParamPackAttribute cudnnGetFusedOpsVariantParamPackAttribute
cudnnCreateFusedOpsPlan cudnnDestroyFusedOpsPlan cudnnMakeFusedOpsPlan cudnnFusedOpsExecute
""".split()

# Removed by NVIDIA in 8.0 (6) and 9.0 (48): absent from libcudnn.so.9 (api_inventory.md 1.4, 1.5).
REMOVED_BY_9 = """
cudnnGetConvolutionForwardAlgorithm cudnnGetConvolutionBackwardFilterAlgorithm
cudnnGetConvolutionBackwardDataAlgorithm cudnnSetRNNDescriptor cudnnGetRNNDescriptor
cudnnSetRNNDescriptor_v5
cudnnSetRNNDescriptor_v6 cudnnSetRNNMatrixMathType cudnnGetRNNMatrixMathType cudnnSetRNNBiasMode
cudnnGetRNNBiasMode cudnnSetRNNProjectionLayers cudnnGetRNNProjectionLayers cudnnSetRNNPaddingMode
cudnnGetRNNPaddingMode cudnnRNNSetClip cudnnRNNGetClip cudnnCreatePersistentRNNPlan
cudnnDestroyPersistentRNNPlan cudnnSetPersistentRNNPlan cudnnGetRNNWorkspaceSize
cudnnGetRNNTrainingReserveSize cudnnGetRNNParamsSize cudnnGetRNNLinLayerMatrixParams
cudnnGetRNNLinLayerBiasParams cudnnRNNForwardInference cudnnRNNForwardTraining
cudnnRNNForwardInferenceEx cudnnRNNForwardTrainingEx cudnnRNNBackwardData cudnnRNNBackwardDataEx
cudnnRNNBackwardWeights cudnnRNNBackwardWeightsEx cudnnSetRNNAlgorithmDescriptor
cudnnGetRNNForwardInferenceAlgorithmMaxCount cudnnGetRNNForwardTrainingAlgorithmMaxCount
cudnnGetRNNBackwardDataAlgorithmMaxCount cudnnGetRNNBackwardWeightsAlgorithmMaxCount
cudnnFindRNNForwardInferenceAlgorithmEx cudnnFindRNNForwardTrainingAlgorithmEx
cudnnFindRNNBackwardDataAlgorithmEx cudnnFindRNNBackwardWeightsAlgorithmEx
cudnnCreateAlgorithmDescriptor cudnnSetAlgorithmDescriptor cudnnGetAlgorithmDescriptor
cudnnCopyAlgorithmDescriptor cudnnDestroyAlgorithmDescriptor cudnnCreateAlgorithmPerformance
cudnnSetAlgorithmPerformance cudnnGetAlgorithmPerformance cudnnDestroyAlgorithmPerformance
cudnnGetAlgorithmSpaceSize cudnnSaveAlgorithm cudnnRestoreAlgorithm
""".split()

NODE_V7 = "libcudnn.so.7"
NODE_V9 = "libcudnn.so.9"
NODE_OWN = "FREEDNN_0"

# Functions that return something other than cudnnStatus_t, and what the v7 wrapper does.
NON_STATUS_V7 = {"cudnnGetVersion": "special", "cudnnGetCudartVersion": "same",
                 "cudnnGetErrorString": "special"}
SPECIAL_V7 = {"cudnnGetVersion", "cudnnGetProperty", "cudnnGetErrorString", "cudnnSetCallback"}
PERF_TYPES = {"cudnnConvolutionFwdAlgoPerf_t", "cudnnConvolutionBwdDataAlgoPerf_t",
              "cudnnConvolutionBwdFilterAlgoPerf_t"}


def fail(msg):
    sys.stderr.write("gen_personalities.py: error: %s\n" % msg)
    sys.exit(1)


def strip_comments_and_pp(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    # Preprocessor lines, with continuations.
    text = re.sub(r"^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", " ", text, flags=re.M)
    return text


def split_params(text):
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


class Param:
    def __init__(self, text, fn):
        self.text = " ".join(text.split())
        m = re.match(r"^(.*?)\b(\w+)\s*(\[[^\]]*\])?$", self.text)
        if not m or "(" in self.text or m.group(1).strip() in ("", "const", "struct", "enum"):
            fail("%s: cannot find the name of parameter '%s'" % (fn, self.text))
        self.name = m.group(2)
        self.type = " ".join((m.group(1) + ("*" if m.group(3) else "")).split())
        self.base = re.sub(r"\bconst\b|\*", " ", self.type).split()[-1]
        self.pointer = self.type.count("*")


class Function:
    def __init__(self, ret, name, params_text):
        self.ret = " ".join(re.sub(r"\bCUDNN_DEPRECATED\b", " ", ret).split())
        self.name = name
        ptext = " ".join(params_text.split())
        self.params_text = ptext if ptext else "void"
        self.params = [] if ptext in ("", "void") else [Param(p, name) for p in split_params(ptext)]


def parse_headers(include_dir):
    funcs = {}
    files = sorted(glob.glob(os.path.join(include_dir, "*.h")))
    if not files:
        fail("no headers in %s" % include_dir)
    for path in files:
        text = strip_comments_and_pp(open(path, encoding="utf-8").read())
        for stmt in re.split(r"[;{}]", text):
            if "CUDNNWINAPI" not in stmt or "(" not in stmt:
                continue
            m = re.match(r"^\s*(.*?)\bCUDNNWINAPI\s+(\w+)\s*\((.*)\)\s*$", stmt, re.S)
            if not m:
                fail("%s: cannot parse declaration: %s" % (path, " ".join(stmt.split())))
            f = Function(m.group(1), m.group(2), m.group(3))
            if f.name in funcs:
                fail("%s declared twice" % f.name)
            funcs[f.name] = f
    return funcs


def nodes(funcs):
    """name -> (default node, in v7 node)"""
    v7, removed = set(V7_FUNCTIONS), set(REMOVED_BY_9)
    if len(V7_FUNCTIONS) != 231 or len(v7) != 231:
        fail("the cuDNN 7.6.5 list must hold 231 distinct names")
    if not removed <= v7 or len(removed) != 54:
        fail("the removed-by-9 list must hold 54 names of the v7 list")
    missing = sorted(v7 - set(funcs))
    if missing:
        fail("cuDNN 7.6.5 functions not declared in include/: " + ", ".join(missing))
    out = {}
    for name in funcs:
        if name.startswith("freednn") or name in removed:
            default = NODE_OWN
        elif name.startswith("cudnn"):
            default = NODE_V9
        else:
            fail("%s: neither cudnn* nor freednn*" % name)
        out[name] = (default, name in v7)
    return out


def wrapper(f):
    """The C text of the v7 wrapper of f."""
    args = ", ".join(p.name for p in f.params)
    head = ('__asm__(".symver fd_v7_%s, %s@%s");\n' % (f.name, f.name, NODE_V7) +
            "%s CUDNNWINAPI fd_v7_%s(%s)\n{\n" % (f.ret, f.name, f.params_text))
    if f.ret != "cudnnStatus_t":
        kind = NON_STATUS_V7.get(f.name)
        if kind is None:
            fail("%s returns %s; add it to NON_STATUS_V7 with what its v7 wrapper does" %
                 (f.name, f.ret))
        if f.name == "cudnnGetVersion":
            body = "    return FD_V7_VERSION;\n"
        elif f.name == "cudnnGetErrorString":
            body = "    return fd_status_name_v7(%s);\n" % f.params[0].name
        else:
            body = "    return %s(%s);\n" % (f.name, args)
        return head + body + "}\n"
    if f.name == "cudnnSetCallback":
        return head + "    return fd_status_to_v7(fd_log_set_callback(%s, 1));\n}\n" % args
    call_args, post = [], []
    perf = [p for p in f.params if p.base in PERF_TYPES]
    if "fd_ret" in {p.name for p in f.params}:
        fail("%s: a parameter named fd_ret collides with the wrapper's local" % f.name)
    for p in f.params:
        if p.base == "cudnnStatus_t" and p.pointer == 0:
            call_args.append("fd_status_from_v7(%s)" % p.name)
            continue
        call_args.append(p.name)
        if p.base == "cudnnStatus_t" and p.pointer == 1 and "const" not in p.type:
            post.append("    if (%s != NULL)\n        *%s = fd_status_to_v7(*%s);\n" %
                        (p.name, p.name, p.name))
        elif p.base == "cudnnStatus_t" or "Status" in p.base or "Debug" in p.base:
            fail("%s: parameter '%s' carries a status the generator does not know how to map" %
                 (f.name, p.text))
    for p in perf:
        names = {q.name for q in f.params}
        if p.pointer != 1 or not {"requestedAlgoCount", "returnedAlgoCount"} <= names:
            fail("%s: perf array '%s' without requestedAlgoCount/returnedAlgoCount" %
                 (f.name, p.text))
        post.append("    if (%s != NULL && returnedAlgoCount != NULL)\n"
                    "        for (int i = 0; i < *returnedAlgoCount && i < requestedAlgoCount; i++)\n"
                    "            %s[i].status = fd_status_to_v7(%s[i].status);\n"
                    % (p.name, p.name, p.name))
    body = "    cudnnStatus_t fd_ret = %s(%s);\n" % (f.name, ", ".join(call_args))
    if f.name == "cudnnGetProperty":
        post.append("    /* cuDNN 7.6.5 */\n"
                    "    *value = type == MAJOR_VERSION ? FD_V7_MAJOR\n"
                    "             : type == MINOR_VERSION ? FD_V7_MINOR : FD_V7_PATCHLEVEL;\n")
    if post:
        body += "    if (fd_ret == CUDNN_STATUS_SUCCESS) {\n"
        body += "".join(re.sub(r"(?m)^(?=.)", "    ", s) for s in post)
        body += "    }\n"
    body += "    return fd_status_to_v7(fd_ret);\n"
    return head + body + "}\n"


def cmd_lib(args, funcs):
    where = nodes(funcs)
    v7 = sorted(n for n in funcs if where[n][1])
    by_node = {NODE_V9: [], NODE_OWN: []}
    for n in sorted(funcs):
        by_node[where[n][0]].append(n)
    gen = "Generated by tools/gen_personalities.py from %s; do not edit." % args.include
    lines = ["/* %s */" % gen,
             "/* %d functions through the wrappers of the generated fd_personality_v7.c, bound"
             % len(v7),
             " * here by .symver (cudnnX@%s, non-default): cuDNN 7 status numbers. */" % NODE_V7,
             "%s {" % NODE_V7, "};", "",
             "/* %d classic functions that cuDNN 9 exports: the default version, cuDNN 9 numbers. */"
             % len(by_node[NODE_V9]),
             "%s {" % NODE_V9, "  global:"]
    lines += ["    %s;" % n for n in by_node[NODE_V9]]
    lines += ["};", "",
              "/* %d freednn extensions and classic functions NVIDIA removed in 8.0/9.0 (declared by"
              % len(by_node[NODE_OWN]),
              " * our header, so the default version of them lives here). */",
              "%s {" % NODE_OWN, "  global:"]
    lines += ["    %s;" % n for n in by_node[NODE_OWN]]
    lines += ["  local:", "    *;", "};", ""]
    write(args.map, "\n".join(lines))

    c = ["/* SPDX-License-Identifier: MIT */",
         "/* %s" % gen,
         " * The libcudnn.so.7 personality (DESIGN D2): one wrapper per cuDNN 7.6.5 function, exported",
         " * as cudnnX@%s. Each calls the library's function (cudnnX@@%s or @%s) and" %
         (NODE_V7, NODE_V9, NODE_OWN),
         " * renumbers statuses to cuDNN 7's 0..14 (src/core/personality.c). */",
         "#include <stddef.h>", "", '#include "cudnn.h"', '#include "personality.h"', ""]
    for n in v7:
        c.append(wrapper(funcs[n]))
    write(args.wrappers, "\n".join(c))
    return 0


def cmd_stub(args, funcs):
    where = nodes(funcs)
    if args.node == NODE_V7:
        names = sorted(n for n in funcs if where[n][1])
    elif args.node == NODE_V9:
        names = sorted(n for n in funcs if where[n][0] == NODE_V9)
    else:
        fail("stub: --node must be %s or %s" % (NODE_V7, NODE_V9))
    write(args.map, "%s {\n  global:\n%s\n  local:\n    *;\n};\n" %
          (args.node, "\n".join("    %s;" % n for n in names)))
    stub = ["/* %s: link-time stand-in for %s (tools/gen_personalities.py); never run. */" %
            (os.path.basename(args.stub), args.node)]
    stub += ["void %s(void);\nvoid %s(void) {}" % (n, n) for n in names]
    write(args.stub, "\n".join(stub) + "\n")
    return 0


def write(path, text):
    """Writes only when the content changes, so that make does not rebuild needlessly."""
    if os.path.exists(path) and open(path, encoding="utf-8").read() == text:
        return
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(path + ".tmp", path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("mode", choices=["lib", "stub", "list"])
    ap.add_argument("--include", required=True, help="freednn's include/ directory")
    ap.add_argument("--map", help="version script to write")
    ap.add_argument("--wrappers", help="lib: the C file of v7 wrappers to write")
    ap.add_argument("--stub", help="stub: the C file of empty functions to write")
    ap.add_argument("--node", help="stub: %s or %s" % (NODE_V7, NODE_V9))
    args = ap.parse_args()
    funcs = parse_headers(args.include)
    if args.mode == "list":  # name and nodes, one a line (for tests/compat/check_nodes.py)
        for n, (node, in_v7) in sorted(nodes(funcs).items()):
            print(n, node, NODE_V7 if in_v7 else "-")
        return 0
    if args.mode == "lib":
        if not args.map or not args.wrappers:
            ap.error("lib needs --map and --wrappers")
        return cmd_lib(args, funcs)
    if not args.map or not args.stub or not args.node:
        ap.error("stub needs --node, --map and --stub")
    return cmd_stub(args, funcs)


if __name__ == "__main__":
    sys.exit(main())
