#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""ABI checks of freednn's public headers (DESIGN D1), run by ctest (tests/abi/CMakeLists.txt).

  nvidia  Compares our headers with NVIDIA's cuDNN 9 headers. NVIDIA's headers are used by this
          test only, never by the library. Generated into --workdir:
            abi_values.c  prints every enumerator both headers declare (name value), the
                          sizeof of every enum type both declare, sizeof/offsetof/member size
                          of every struct with members both declare, and the value of every
                          numeric CUDNN_* macro both define. Built three times: against
                          NVIDIA's headers, against ours with the CUDA stand-ins
                          (-DFREEDNN_NO_CUDA_HEADERS, no CUDA include directory) and against
                          ours with the toolkit's headers. The outputs must be identical.
            abi_protos.cpp  includes NVIDIA's cudnn.h and redeclares, inside extern "C", every
                          function both declare with OUR prototype text (a conflicting
                          declaration is a compile error), and static_asserts that every
                          pointer/function-pointer typedef both declare names the same type
                          (same struct tag, same signature).
          Enumerators, enum types and functions that only NVIDIA declares fail the test, except
          those of the graph/backend API, which freednn deliberately does not declare (enum
          types and structs of NVIDIA's cudnn_graph.h that our headers lack, cudnnBackend*
          functions); the skipped types are printed. Exits 77 (ctest skip) when NVIDIA's
          headers are absent.
  link    Generates link_all.c, which takes the address of every function declared in our
          headers (cudnn.h and freednn.h), links it against the library and runs it; with nm
          available, also fails on exported cudnn*/freednn* symbols that no header declares.

Standard library only.
"""
import argparse
import difflib
import os
import re
import shutil
import subprocess
import sys

SKIP = 77
VERSION_MACRO_RE = re.compile(r"^CUDNN_(\w+_)?(MAJOR|MINOR|PATCH|PATCHLEVEL|VERSION)$|"
                              r"^CUDNN_MAX_SM_|^CUDNN_MAX_DEVICE_VERSION$")

# ---- a small C declaration parser ------------------------------------------------------------


def strip_comments(text):
    """Comments replaced by spaces, newlines kept (string literals respected)."""
    out, i, n = [], 0, len(text)
    while i < n:
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text[i] == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def split_directives(text):
    """(code with every preprocessor line blanked, [(line, directive text)])."""
    lines = text.split("\n")
    directives = []
    i = 0
    while i < len(lines):
        if lines[i].lstrip().startswith("#"):
            start, d = i, lines[i]
            lines[i] = ""
            while d.endswith("\\") and i + 1 < len(lines):
                i += 1
                d = d[:-1] + " " + lines[i]
                lines[i] = ""
            directives.append((start + 1, d.strip()))
        i += 1
    return "\n".join(lines), directives


def squash(s):
    return " ".join(s.split())


def split_top(s, sep):
    """Splits s at sep outside (), [] and {}."""
    parts, depth, start = [], 0, 0
    for i, c in enumerate(s):
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == sep and depth == 0:
            parts.append(s[start:i])
            start = i + 1
    parts.append(s[start:])
    return parts


class Header:
    """Declarations of a set of headers: enums, structs with members, other typedefs,
    functions and object-like macros, each with the file and line that declares it."""

    def __init__(self):
        self.enums = {}      # type name -> {"tag", "items": [names], "where"}
        self.enumerators = {}  # enumerator -> type name
        self.structs = {}    # type name -> {"tag", "members": [names], "where"}
        self.typedefs = {}   # other typedef name -> {"text", "where"}
        self.tags = {}       # typedef name -> struct/enum/union tag or None (anonymous)
        self.functions = {}  # name -> {"text", "where", "file"}
        self.macros = {}     # name -> value text (object-like, first non-empty definition)
        self.files = []
        self.include_dir = ""

    def parse_file(self, path, label=None):
        label = label or os.path.basename(path)
        self.files.append(path)
        with open(path, encoding="utf-8", errors="replace") as f:
            text = strip_comments(f.read())
        code, directives = split_directives(text)
        for _, d in directives:
            m = re.match(r"#\s*define\s+([A-Za-z_]\w*)(\(?)\s*(.*)$", d)
            if m and not m.group(2):
                if m.group(3).strip() and m.group(1) not in self.macros:
                    self.macros[m.group(1)] = m.group(3).strip()
                self.macros.setdefault(m.group(1), "")
        code = re.sub(r'extern\s+"C"\s*\{', lambda m: " " * len(m.group(0)), code)
        depth, start = 0, 0
        nl = [i for i, c in enumerate(code) if c == "\n"]

        def line_of(off):
            lo, hi = 0, len(nl)
            while lo < hi:
                mid = (lo + hi) // 2
                if nl[mid] < off:
                    lo = mid + 1
                else:
                    hi = mid
            return lo + 1

        for i, c in enumerate(code):
            if c == "{":
                depth += 1
            elif c == "}":
                if depth == 0:  # closing brace of extern "C"
                    start = i + 1
                    continue
                depth -= 1
            elif c == ";" and depth == 0:
                stmt = code[start:i]
                off = start + len(stmt) - len(stmt.lstrip())
                start = i + 1
                s = squash(stmt)
                if s:
                    self._statement(s, "%s:%d" % (label, line_of(off)), label)

    def _statement(self, s, where, label):
        m = re.match(r"^typedef\s+(enum|struct|union)\s*([A-Za-z_]\w*)?\s*\{(.*)\}\s*"
                     r"([A-Za-z_]\w*)", s)
        if m:
            kind, tag, body, name = m.groups()
            self.tags[name] = (kind, tag)
            if kind == "enum":
                items = []
                for item in split_top(body, ","):
                    im = re.match(r"\s*([A-Za-z_]\w*)", item)
                    if im:
                        items.append(im.group(1))
                        self.enumerators.setdefault(im.group(1), name)
                self.enums[name] = {"tag": tag, "items": items, "where": where}
            else:
                members = []
                for mem in split_top(body, ";"):
                    mem = mem.strip()
                    if not mem:
                        continue
                    mem = re.sub(r"\[[^\]]*\]", "", mem)          # arrays
                    mem = re.sub(r"\{.*\}", "", mem)              # nested aggregate bodies
                    mm = re.search(r"([A-Za-z_]\w*)\s*$", mem)
                    if mm:
                        members.append(mm.group(1))
                self.structs[name] = {"tag": tag, "kind": kind, "members": members,
                                      "where": where}
            return
        if s.startswith("typedef"):
            m = re.search(r"\(\s*\*\s*([A-Za-z_]\w*)\s*\)\s*\(", s)  # function pointer
            if not m:
                names = [t for t in re.findall(r"[A-Za-z_]\w*", s)
                         if not t.startswith(("CUDNN_DEPRECATED", "__"))]
                if not names:
                    return
                name = names[-1]
                tm = re.match(r"^typedef\s+(?:\w+\s+)*?(struct|enum|union)\s+([A-Za-z_]\w*)", s)
                if tm:
                    self.tags[name] = (tm.group(1), tm.group(2))
            else:
                name = m.group(1)
            self.typedefs.setdefault(name, {"text": s, "where": where})
            return
        if s.startswith(("struct ", "enum ", "union ")) and "(" not in s:
            return
        m = re.match(r"^(.*?)\b([A-Za-z_]\w*)\s*\(", s)
        if m and "(" not in m.group(1) and m.group(1).strip() and "=" not in s:
            self.functions.setdefault(m.group(2), {"text": s, "where": where, "file": label})


def parse_tree(include_dir, roots):
    """Parses roots and every "quoted" header they include from include_dir, recursively."""
    h = Header()
    h.include_dir = include_dir
    seen = []
    todo = list(roots)
    while todo:
        name = todo.pop(0)
        path = os.path.join(include_dir, name)
        if name in seen or not os.path.exists(path):
            continue
        seen.append(name)
        with open(path, encoding="utf-8", errors="replace") as f:
            for inc in re.findall(r'^\s*#\s*include\s+"([^"]+)"', f.read(), re.M):
                todo.append(inc)
    # parse in include order so the first declaration of a name wins
    for name in seen:
        h.parse_file(os.path.join(include_dir, name), name)
    return h


# ---- generation ---------------------------------------------------------------------------

NUMERIC_TOKEN_RE = re.compile(r"\s*(0[xX][0-9a-fA-F]+[uUlL]*|\d+\.?\d*(?:[eE][-+]?\d+)?[fFuUlL]*|"
                              r"\.\d+(?:[eE][-+]?\d+)?[fF]?|[A-Za-z_]\w*|<<|>>|[-+*/|&~()^])")


def numeric_macro(value, ours, depth=0):
    """True if value is an arithmetic expression of numbers, enumerators and such macros."""
    pos, value = 0, value.strip()
    if not value or depth > 8:
        return False
    while pos < len(value):
        m = NUMERIC_TOKEN_RE.match(value, pos)
        if not m:
            return False
        tok = m.group(1)
        if re.match(r"[A-Za-z_]", tok) and tok not in ours.enumerators:
            if tok not in ours.macros or not numeric_macro(ours.macros[tok], ours, depth + 1):
                return False
        pos = m.end()
    return True


def gen_values(ours, nv, cuda):
    """The abi_values.c text and the counts of what it compares."""
    lines = ["/* Generated by tests/abi/gen_abi_check.py; do not edit. Built once against NVIDIA's",
             " * cuDNN headers and twice against freednn's; the three outputs must be equal. */",
             "#include <stddef.h>", "#include <stdio.h>", "", '#include "cudnn.h"', "",
             '#define E(name) printf("enum %s %lld\\n", #name, (long long)(name));',
             '#define S(type) printf("sizeof %s %zu\\n", #type, sizeof(type));',
             '#define M(type, m) printf("member %s.%s offset %zu size %zu\\n", #type, #m, '
             "offsetof(type, m), sizeof(((type *)0)->m));",
             '#define D(name) printf("macro %s %.21Lg\\n", #name, (long double)(name));',
             "", "int main(void)", "{"]
    counts = {"enumerators": 0, "enum_types": 0, "structs": 0, "members": 0, "macros": 0}
    problems = []
    for tname, e in ours.enums.items():
        other = nv.enums.get(tname) or cuda.enums.get(tname)
        if other is None and tname not in cuda.typedefs:
            continue
        lines.append("    /* %s (%s) */" % (tname, e["where"]))
        lines.append("    S(%s)" % tname)
        counts["enum_types"] += 1
        for item in e["items"]:
            if item in nv.enumerators or item in cuda.enumerators:
                lines.append("    E(%s)" % item)
                counts["enumerators"] += 1
    for sname, s in ours.structs.items():
        other = nv.structs.get(sname)
        if other is None:
            continue
        if s["members"] != other["members"]:
            problems.append("struct %s: members %s (ours, %s) vs %s (NVIDIA, %s)" % (
                sname, s["members"], s["where"], other["members"], other["where"]))
            continue
        lines.append("    /* %s (%s) */" % (sname, s["where"]))
        lines.append("    S(%s)" % sname)
        counts["structs"] += 1
        for mem in s["members"]:
            lines.append("    M(%s, %s)" % (sname, mem))
            counts["members"] += 1
    for name in sorted(ours.macros):
        if not name.startswith("CUDNN_") or VERSION_MACRO_RE.match(name):
            continue
        if not nv.macros.get(name) or not numeric_macro(ours.macros[name], ours):
            continue
        lines.append("    D(%s)" % name)
        counts["macros"] += 1
    lines += ["    return 0;", "}", ""]
    return "\n".join(lines), counts, problems


def gen_protos(ours, nv, cuda):
    """The abi_protos.cpp text, and the counts of what it compares."""
    lines = ["// Generated by tests/abi/gen_abi_check.py; do not edit. Compiled against NVIDIA's",
             "// cuDNN headers: every function is redeclared with freednn's prototype (a conflicting",
             "// declaration of a C function is an error) and every pointer typedef is compared.",
             "#include <type_traits>", "", '#include "cudnn.h"', "", 'extern "C" {']
    n_fn = n_td = 0
    for name, fn in ours.functions.items():
        if name not in nv.functions:
            continue
        file, line = fn["where"].rsplit(":", 1)
        lines.append('#line %s "%s"' % (line, os.path.join(ours.include_dir, file)))
        lines.append(fn["text"] + ";")
        n_fn += 1
    lines += ["}", ""]
    for name, td in ours.typedefs.items():
        if name not in nv.typedefs and name not in cuda.typedefs:
            continue
        alias = "fd_abi_ours_" + name
        # rename the typedef's own name: the last whole-word occurrence
        idx = [m.start() for m in re.finditer(r"\b%s\b" % re.escape(name), td["text"])]
        text = td["text"][:idx[-1]] + alias + td["text"][idx[-1] + len(name):]
        file, line = td["where"].rsplit(":", 1)
        lines.append('#line %s "%s"' % (line, os.path.join(ours.include_dir, file)))
        # one line, so that #line points the compiler's messages at our header
        lines.append(text + "; " + 'static_assert(std::is_same<%s, %s>::value, "typedef %s '
                     "differs from NVIDIA's\");" % (name, alias, name))
        n_td += 1
    lines.append("")
    return "\n".join(lines), {"prototypes": n_fn, "typedefs": n_td}


def compare_tags(ours, nv, cuda):
    """Struct/enum tags of typedefs both declare (they are part of C++ name mangling)."""
    problems, n = [], 0
    for name, (kind, tag) in ours.tags.items():
        other = nv.tags.get(name) or cuda.tags.get(name)
        if other is None:
            continue
        n += 1
        if other != (kind, tag):
            problems.append("typedef %s: ours is %s %s, NVIDIA's %s %s" % (
                name, kind, tag or "(anonymous)", other[0], other[1] or "(anonymous)"))
    return n, problems


# ---- running ------------------------------------------------------------------------------


def run(cmd, **kw):
    print("+ " + " ".join(cmd), flush=True)
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True, **kw)


def build_and_run(cc, flags, src, exe):
    r = run([cc] + flags + [src, "-o", exe])
    if r.returncode != 0:
        print(r.stdout)
        return None
    r = subprocess.run([exe], stdout=subprocess.PIPE, universal_newlines=True)
    if r.returncode != 0:
        print("%s exited with %d" % (exe, r.returncode))
        return None
    return r.stdout


def cmd_nvidia(args):
    nv_dir = args.nvidia_include
    if not nv_dir or not os.path.exists(os.path.join(nv_dir, "cudnn_version.h")):
        print("SKIPPED: NVIDIA cuDNN headers not found at %s (no cudnn_version.h); set the "
              "CUDNN_INCLUDE_DIR cache variable to run the ABI check" % nv_dir)
        return SKIP
    nv = parse_tree(nv_dir, ["cudnn.h"])
    major = nv.macros.get("CUDNN_MAJOR", "?")
    if major != "9":
        print("SKIPPED: the ABI check needs cuDNN 9 headers; %s has CUDNN_MAJOR %s" % (nv_dir, major))
        return SKIP
    cuda_dir = args.cuda_include or nv_dir
    if not os.path.exists(os.path.join(cuda_dir, "cuda_runtime_api.h")):
        print("SKIPPED: cuda_runtime_api.h (needed by NVIDIA's cudnn.h) not found at %s; set "
              "CUDA_INCLUDE_DIR" % cuda_dir)
        return SKIP
    cuda = Header()
    for n in ("library_types.h", "driver_types.h"):
        if os.path.exists(os.path.join(cuda_dir, n)):
            cuda.parse_file(os.path.join(cuda_dir, n))
    ours = parse_tree(args.ours_include, ["cudnn.h"])
    os.makedirs(args.workdir, exist_ok=True)
    failures = []

    print("NVIDIA cuDNN %s.%s.%s headers: %s" % (major, nv.macros.get("CUDNN_MINOR"),
                                                nv.macros.get("CUDNN_PATCHLEVEL"), nv_dir))
    print("freednn headers (interface %s.%s.%s): %s" % (
        ours.macros.get("CUDNN_MAJOR"), ours.macros.get("CUDNN_MINOR"),
        ours.macros.get("CUDNN_PATCHLEVEL"), args.ours_include))

    # What only NVIDIA declares: the graph/backend API is skipped, anything else is missing.
    skipped_types, missing = [], []
    for tname, e in nv.enums.items():
        names = [i for i in e["items"] if i not in ours.enumerators]
        if tname not in ours.enums and e["where"].startswith("cudnn_graph.h"):
            skipped_types.append("%s (%d enumerators)" % (tname, len(e["items"])))
        elif tname not in ours.enums:
            missing.append("enum type %s (%s): %s" % (tname, e["where"], ", ".join(names)))
        elif names:
            missing.append("enumerators of %s (%s): %s" % (tname, e["where"], ", ".join(names)))
    for sname, s in nv.structs.items():
        if sname not in ours.structs and sname not in ours.typedefs:
            if s["where"].startswith("cudnn_graph.h"):
                skipped_types.append("%s (struct)" % sname)
            else:
                missing.append("struct %s (%s)" % (sname, s["where"]))
    skipped_fns = [n for n in nv.functions if n not in ours.functions and n.startswith("cudnnBackend")]
    for n, fn in nv.functions.items():
        if n not in ours.functions and not n.startswith("cudnnBackend"):
            missing.append("function %s (%s)" % (n, fn["where"]))
    print("\nSkipped (graph/backend API, deliberately not declared by freednn): %d types, %d "
          "cudnnBackend* functions" % (len(skipped_types), len(skipped_fns)))
    for t in skipped_types:
        print("  skipped type " + t)
    ours_only_types = [t for t in ours.enums if t not in nv.enums and t not in cuda.enums]
    ours_only_fns = [n for n in ours.functions if n not in nv.functions]
    print("Declared by freednn only (older cuDNN API): %d enum types, %d functions" % (
        len(ours_only_types), len(ours_only_fns)))
    print("  enum types: " + ", ".join(ours_only_types))
    print("  functions: " + ", ".join(ours_only_fns))
    if missing:
        print("\nMISSING in ours (declared by NVIDIA's classic API):")
        for m in missing:
            print("  " + m)
        failures.append("%d declarations missing in ours" % len(missing))

    # Values and layouts.
    values_c, counts, problems = gen_values(ours, nv, cuda)
    for p in problems:
        print("MISMATCH " + p)
        failures.append(p)
    n_tags, tag_problems = compare_tags(ours, nv, cuda)
    for p in tag_problems:
        print("MISMATCH " + p)
        failures.append(p)
    src = os.path.join(args.workdir, "abi_values.c")
    with open(src, "w") as f:
        f.write(values_c)
    print()
    outputs = {}
    builds = [
        ("nvidia", ["-std=gnu11", "-w", "-I", nv_dir, "-I", cuda_dir]),
        ("ours-standins", ["-std=c99", "-Wall", "-Wextra", "-Wpedantic", "-Wstrict-prototypes",
                           "-Werror", "-DFREEDNN_NO_CUDA_HEADERS", "-I", args.ours_include]),
        ("ours-toolkit", ["-std=c99", "-Wall", "-Wextra", "-Wpedantic", "-Wstrict-prototypes",
                          "-Werror", "-I", args.ours_include, "-isystem", cuda_dir]),
    ]
    for label, flags in builds:
        out = build_and_run(args.cc, flags, src, os.path.join(args.workdir, "abi_values_" + label))
        if out is None:
            failures.append("abi_values.c does not build or run against %s headers" % label)
            continue
        with open(os.path.join(args.workdir, "abi_values_%s.txt" % label), "w") as f:
            f.write(out)
        outputs[label] = out
    if "nvidia" in outputs:
        for label in ("ours-standins", "ours-toolkit"):
            if label not in outputs:
                continue
            diff = list(difflib.unified_diff(outputs["nvidia"].splitlines(True),
                                             outputs[label].splitlines(True),
                                             "NVIDIA cuDNN", "freednn (%s)" % label, n=0))
            if diff:
                print("MISMATCH between NVIDIA's headers and ours (%s):" % label)
                sys.stdout.writelines(diff)
                failures.append("values/layouts differ (%s)" % label)

    # Prototypes and typedefs.
    protos_cpp, pcounts = gen_protos(ours, nv, cuda)
    src = os.path.join(args.workdir, "abi_protos.cpp")
    with open(src, "w") as f:
        f.write(protos_cpp)
    r = run([args.cxx, "-std=c++11", "-fsyntax-only", "-Wno-deprecated-declarations",
             "-I", nv_dir, "-I", cuda_dir, src])
    if r.returncode != 0:
        print(r.stdout)
        failures.append("a prototype or typedef of ours conflicts with NVIDIA's (abi_protos.cpp)")

    print("\nCompared with NVIDIA cuDNN %s.%s.%s:" % (major, nv.macros.get("CUDNN_MINOR"),
                                                      nv.macros.get("CUDNN_PATCHLEVEL")))
    print("  enumerators          %4d (of %d in ours)" % (counts["enumerators"],
                                                          len(ours.enumerators)))
    print("  enum type sizes      %4d" % counts["enum_types"])
    print("  structs              %4d (%d members: offset and size)" % (counts["structs"],
                                                                       counts["members"]))
    print("  numeric macros       %4d" % counts["macros"])
    print("  struct/enum tags     %4d" % n_tags)
    print("  pointer typedefs     %4d" % pcounts["typedefs"])
    print("  prototypes           %4d (of %d in ours)" % (pcounts["prototypes"],
                                                          len(ours.functions)))
    if failures:
        print("\nFAIL: " + "; ".join(failures))
        return 1
    print("\nPASS")
    return 0


def cmd_link(args):
    ours = parse_tree(args.ours_include, ["cudnn.h", "freednn.h"])
    os.makedirs(args.workdir, exist_ok=True)
    names = list(ours.functions)
    lines = ["/* Generated by tests/abi/gen_abi_check.py; do not edit. Takes the address of every",
             " * function declared in cudnn.h and freednn.h: linking proves each one is defined. */",
             "#include <stdio.h>", "", '#include "cudnn.h"', '#include "freednn.h"', "",
             "typedef void (*fd_fn_t)(void);", "",
             "static const struct {", "    const char *name;", "    fd_fn_t fn;",
             "} functions[] = {"]
    for n in names:
        lines.append('    {"%s", (fd_fn_t)%s},' % (n, n))
    lines += ["};", "", "int main(void)", "{",
              "    int n = (int)(sizeof functions / sizeof functions[0]), bad = 0;",
              "    for (int i = 0; i < n; i++)",
              "        if (functions[i].fn == NULL) {",
              '            printf("%s has no address\\n", functions[i].name);',
              "            bad = 1;", "        }",
              '    printf("%d functions declared in cudnn.h and freednn.h link\\n", n);',
              "    return bad;", "}", ""]
    src = os.path.join(args.workdir, "link_all.c")
    with open(src, "w") as f:
        f.write("\n".join(lines))
    exe = os.path.join(args.workdir, "link_all")
    lib = os.path.abspath(args.lib)
    r = run([args.cc, "-std=c11", "-Wall", "-Wextra", "-Werror", "-DFREEDNN_NO_CUDA_HEADERS",
             "-I", args.ours_include, src, lib, "-Wl,-rpath," + os.path.dirname(lib), "-o", exe])
    if r.returncode != 0:
        print(r.stdout)
        undefined = sorted(set(re.findall(r"undefined reference to `(\w+)'", r.stdout)))
        if undefined:
            print("FAIL: %d declared functions are not exported by %s:\n  %s" % (
                len(undefined), lib, "\n  ".join(undefined)))
        else:
            print("FAIL: link_all.c does not build")
        return 1
    r = subprocess.run([exe], stdout=subprocess.PIPE, universal_newlines=True)
    print(r.stdout, end="")
    if r.returncode != 0:
        return 1
    nm = shutil.which("nm")
    if nm:
        r = subprocess.run([nm, "-D", "--defined-only", lib], stdout=subprocess.PIPE,
                           universal_newlines=True)
        exported = set(re.findall(r"^\S+\s+[TW]\s+((?:cudnn|freednn)\w*)", r.stdout, re.M))
        extra = sorted(exported - set(names))
        print("%d cudnn*/freednn* functions exported" % len(exported))
        if extra:
            print("FAIL: exported but declared in no public header:\n  " + "\n  ".join(extra))
            return 1
    print("PASS")
    return 0


def main():
    ap = argparse.ArgumentParser(description="freednn ABI checks (see the module docstring)")
    ap.add_argument("mode", choices=["nvidia", "link"])
    ap.add_argument("--ours-include", required=True, help="freednn's include/ directory")
    ap.add_argument("--nvidia-include", help="directory of NVIDIA's cudnn.h (mode nvidia)")
    ap.add_argument("--cuda-include", help="directory of cuda_runtime_api.h (mode nvidia; "
                    "default: --nvidia-include)")
    ap.add_argument("--lib", help="the freednn shared library (mode link)")
    ap.add_argument("--cc", default="cc")
    ap.add_argument("--cxx", default="c++")
    ap.add_argument("--workdir", required=True, help="where generated files and binaries go")
    args = ap.parse_args()
    args.ours_include = os.path.abspath(args.ours_include)
    if args.mode == "nvidia":
        return cmd_nvidia(args)
    if not args.lib:
        ap.error("link needs --lib")
    return cmd_link(args)


if __name__ == "__main__":
    sys.exit(main())
