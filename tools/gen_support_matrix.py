#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Generate docs/support-matrix.md from the code (DESIGN D5).

Reads the public headers (every declared function, its header and family heading), src/ (which
functions have a real definition, which are FD_UNSUPPORTED stubs and why, every FD_CHECK that
returns a CUDNN_STATUS_NOT_SUPPORTED* status) and src/impls.def (the implementation table). With
--probe, runs the support_probe binary (tools/support_probe) and inserts the section it prints:
operation x data type x backend, measured through the library's public API.

    tools/gen_support_matrix.py --probe BUILD/tools/support_probe/support_probe
                                          write docs/support-matrix.md, re-measured
    tools/gen_support_matrix.py           write it, keeping the measured section already there
    ... --check                           exit 1 with a diff if the file is stale

Standard library only. Run from anywhere: paths are taken relative to the repository root.
"""
import argparse
import difflib
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUTPUT = os.path.join("docs", "support-matrix.md")
# Headers in the order a reader meets them; any other include/*.h follows alphabetically.
HEADER_ORDER = ["cudnn_version.h", "cudnn_graph.h", "cudnn_ops.h", "cudnn_cnn.h", "cudnn_adv.h",
                "cudnn.h", "freednn.h"]
HEADER_FAMILY = {"freednn.h": "freednn extensions"}  # headers without family headings
SOURCE_EXTS = (".c", ".h", ".cu", ".cuh", ".cpp", ".cc")
MEASURED_HEADING = "## Operations × data types × backends (measured)"
CONV_ALGO_ENUMS = {
    "FD_CONV_FWD": "cudnnConvolutionFwdAlgo_t",
    "FD_CONV_BWD_DATA": "cudnnConvolutionBwdDataAlgo_t",
    "FD_CONV_BWD_FILTER": "cudnnConvolutionBwdFilterAlgo_t",
}

# ---- C text helpers ------------------------------------------------------------------------


def blank(text):
    """Same length as text; comments, preprocessor lines and the insides of string and char
    literals replaced by spaces (newlines kept), so offsets into text stay valid."""
    out = list(text)
    i, n = 0, len(text)
    line_start = True
    while i < n:
        c = text[i]
        if line_start and c in " \t":
            i += 1
            continue
        if line_start and c == "#":
            # a directive, with backslash continuations (comments inside are blanked too)
            while i < n and text[i] != "\n":
                if text[i] == "\\" and i + 1 < n and text[i + 1] == "\n":
                    out[i] = " "
                    i += 2
                    continue
                if text.startswith("/*", i):
                    j = text.find("*/", i + 2)
                    j = n if j < 0 else j + 2
                    for k in range(i, j):
                        if out[k] != "\n":
                            out[k] = " "
                    i = j
                    continue
                out[i] = " "
                i += 1
            continue
        line_start = False
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            for k in range(i, j):
                if text[k] != "\n":
                    out[k] = " "
            i = j
            continue
        if text.startswith("//", i):
            while i < n and text[i] != "\n":
                out[i] = " "
                i += 1
            continue
        if c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                if text[j] == "\\":
                    out[j] = " "
                    j += 1
                if j < n and text[j] != "\n":
                    out[j] = " "
                j += 1
            i = j + 1
            continue
        if c == "\n":
            line_start = True
        i += 1
    return "".join(out)


def matching(s, i, open_c, close_c):
    """Index just past the bracket closing the one at s[i]."""
    depth = 0
    for j in range(i, len(s)):
        if s[j] == open_c:
            depth += 1
        elif s[j] == close_c:
            depth -= 1
            if depth == 0:
                return j + 1
    return len(s)


def split_args(raw, blanked):
    """Splits a macro argument list (text between the outer parentheses) at top-level commas;
    returns the raw pieces."""
    parts, depth, start = [], 0, 0
    for j, c in enumerate(blanked):
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(raw[start:j])
            start = j + 1
    parts.append(raw[start:])
    return parts


STRING_RE = re.compile(r'"((?:[^"\\\n]|\\.)*)"')


def string_literals(raw):
    """Concatenated text of the C string literals in raw (escapes kept as written)."""
    return "".join(STRING_RE.findall(raw))


def squash(s):
    return " ".join(s.split())


def md_cell(s):
    return s.replace("|", "\\|")


# ---- headers -------------------------------------------------------------------------------

RULE_RE = re.compile(r"^/\*\s*([-=*#])\1{5,}\s*\*/$")
TITLE_RE = re.compile(r"^/\*\s*(.*?)\s*\*/$")
INLINE_TITLE_RE = re.compile(r"^/\*\s*-{3}\s*(.*?)\s*-{3,}\s*\*/$")


def headings(text):
    """[(offset, title)] of the family headings of a header: a one-line "/* --- Title --- */",
    or a block of one-line comments between two rule lines ("/* ==== */" or "/* ---- */") whose
    first line is the title (continued over the next lines while a parenthesis is open)."""
    result = []
    lines = text.split("\n")
    offsets, pos = [], 0
    for line in lines:
        offsets.append(pos)
        pos += len(line) + 1
    i = 0
    while i < len(lines):
        s = lines[i].strip()
        m = INLINE_TITLE_RE.match(s)
        if m and m.group(1):
            result.append((offsets[i], m.group(1)))
        elif RULE_RE.match(s):
            block, j = [], i + 1
            while j < len(lines) and not RULE_RE.match(lines[j].strip()):
                m = TITLE_RE.match(lines[j].strip())
                if not m:
                    break
                block.append(m.group(1))
                j += 1
            if block and j < len(lines) and RULE_RE.match(lines[j].strip()):
                result.append((offsets[i + 1], block_title(block)))
                i = j
        i += 1
    return result


def block_title(block):
    """The first line of a heading block, extended while a parenthesis is open."""
    title, depth = "", 0
    for line in block:
        for k, c in enumerate(line):
            depth += {"(": 1, ")": -1}.get(c, 0)
            if c == ")" and depth == 0 and line[k + 1:k + 2] in (".", ""):
                return squash(title + line[:k + 1])
        title += line + " "
        if depth <= 0:
            break
    return squash(title)


def header_functions(path):
    """[(name, family heading or None)] of every function declared in a header, in order."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    b = blank(text)
    b = re.sub(r'extern\s+"\s*"\s*\{', lambda m: " " * len(m.group(0)), b)
    heads = headings(text)
    found = []
    depth, start = 0, 0
    for i, c in enumerate(b):
        if c == "{":
            depth += 1
        elif c == "}":
            depth = max(depth - 1, 0)
            if depth == 0:
                start = i + 1
        elif c == ";" and depth == 0:
            stmt = b[start:i]
            stmt_start = start + len(stmt) - len(stmt.lstrip())
            start = i + 1
            s = squash(stmt)
            if not s or s.startswith(("typedef", "struct ", "enum ", "union ")) or "(" not in s:
                continue
            m = re.match(r"^(.*?)\b([A-Za-z_]\w*)\s*\(", s)
            if not m or "(" in m.group(1):
                continue
            family = None
            for off, title in heads:
                if off <= stmt_start:
                    family = title
            found.append((m.group(2), family))
    return found


def public_headers():
    inc = os.path.join(ROOT, "include")
    names = [n for n in os.listdir(inc) if n.endswith(".h")]
    return sorted(names, key=lambda n: (HEADER_ORDER.index(n) if n in HEADER_ORDER
                                        else len(HEADER_ORDER), n))


def header_enums():
    """{enum type name: [(enumerator, value)]} for the plain-integer enums of our headers."""
    enums = {}
    for h in public_headers():
        with open(os.path.join(ROOT, "include", h), encoding="utf-8") as f:
            b = squash(blank(f.read()))
        for m in re.finditer(r"typedef\s+enum\s*\w*\s*\{([^}]*)\}\s*(\w+)", b):
            items, value = [], -1
            for item in m.group(1).split(","):
                item = item.strip()
                if not item:
                    continue
                name, _, expr = item.partition("=")
                name = name.split()[0]
                expr = expr.strip()
                if expr:
                    try:
                        value = int(expr, 0)
                    except ValueError:
                        known = dict(items)
                        if expr not in known:
                            value = None
                            break
                        value = known[expr]
                else:
                    value += 1
                items.append((name, value))
            if value is not None:
                enums[m.group(2)] = items
    return enums


# ---- sources -------------------------------------------------------------------------------


def source_files():
    result = []
    for dirpath, dirnames, filenames in os.walk(os.path.join(ROOT, "src")):
        dirnames.sort()
        for n in sorted(filenames):
            if n.endswith(SOURCE_EXTS):
                result.append(os.path.join(dirpath, n))
    return result


def function_ranges(b):
    """[(name, body start, body end)] of the top-level function definitions in blanked text."""
    ranges = []
    depth, start, i = 0, 0, 0
    while i < len(b):
        c = b[i]
        if c == "{" and depth == 0:
            head = squash(b[start:i])
            end = matching(b, i, "{", "}")
            m = re.search(r"\b([A-Za-z_]\w*)\s*\((.*)\)\s*$", head)
            if m and not head.startswith(("typedef", "struct", "enum", "union")) and "=" not in head:
                ranges.append((m.group(1), i, end))
                start = i = end
                continue
            depth = 1
        elif c == "{":
            depth += 1
        elif c == "}":
            depth = max(depth - 1, 0)
            if depth == 0:
                start = i + 1
        elif c == ";" and depth == 0:
            start = i + 1
        i += 1
    return ranges


def scan_sources():
    """Definitions, FD_UNSUPPORTED stubs and NOT_SUPPORTED checks found in src/."""
    defined = {}      # name -> relative file
    stubs = {}        # name -> (relative file, reason)
    checks = []       # (relative file, function, status, condition, message)
    for path in source_files():
        rel = os.path.relpath(path, ROOT)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        b = blank(text)
        ranges = function_ranges(b)
        for name, _, _ in ranges:
            if name.startswith(("cudnn", "freednn")):
                defined.setdefault(name, rel)
        for m in re.finditer(r"\b(FD_UNSUPPORTED|FD_CHECK|fd_error)\s*\(", b):
            macro = m.group(1)
            open_at = m.end() - 1
            close_at = matching(b, open_at, "(", ")")
            args = split_args(text[open_at + 1:close_at - 1], b[open_at + 1:close_at - 1])
            if macro == "FD_UNSUPPORTED":
                if len(args) == 3 and b[m.start() - 1:m.start()] != "#" \
                        and not any(lo <= m.start() < hi for _, lo, hi in ranges):
                    stubs[args[0].strip()] = (rel, string_literals(args[2]))
                continue
            func = next((n for n, lo, hi in ranges if lo <= m.start() < hi), None)
            if func is None or func == "fd_unsupported":
                continue
            if macro == "FD_CHECK" and len(args) >= 3:
                cond, status, rest = args[0], args[1], args[2:]
            elif macro == "fd_error" and len(args) >= 4:
                cond, status, rest = None, args[0], args[3:]
            else:
                continue
            if "CUDNN_STATUS_NOT_SUPPORTED" not in status:
                continue
            checks.append((rel, func, squash(status), squash(cond) if cond else None,
                           string_literals(rest[0]) or squash(rest[0])))
    return defined, stubs, checks


# ---- impls.def -----------------------------------------------------------------------------


def eval_mask(expr, macros):
    """Integer value of a mask expression (numbers, |, &, <<, ~, parentheses, known macros)."""
    tokens = re.findall(r"0[xX][0-9a-fA-F]+[uUlL]*|\d+[uUlL]*|[A-Za-z_]\w*|<<|>>|[|&~()+\-^]|\S",
                        expr)
    out = []
    for t in tokens:
        if re.match(r"\d|0[xX]", t):
            out.append(str(int(t.rstrip("uUlL"), 0)))
        elif re.match(r"[A-Za-z_]", t):
            if t not in macros:
                return None
            v = eval_mask(macros[t], macros)
            if v is None:
                return None
            out.append(str(v))
        elif t in ("|", "&", "~", "(", ")", "<<", ">>", "+", "-", "^"):
            out.append(t)
        else:
            return None
    try:
        return eval(" ".join(out), {"__builtins__": {}}, {}) & 0xFFFFFFFF
    except Exception:  # noqa: BLE001 - anything unparsable is shown as written
        return None


def det_flag(expr, macros):
    """Whether a row's flags (its last field: 0, 1, FD_IMPL_DET | FD_IMPL_LATE) claim determinism."""
    known = dict(macros, FD_IMPL_DET="1", FD_IMPL_LATE="2")
    v = eval_mask(expr, known)
    return v & 1 if v is not None else expr.strip() not in ("0", "false")


def impl_rows(enums):
    path = os.path.join(ROOT, "src", "impls.def")
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as f:
        text = f.read()
    macros = {}
    for m in re.finditer(r"^\s*#\s*define\s+(\w+)\s+(.+?)\s*$", text, re.M):
        macros[m.group(1)] = m.group(2)
    for values in enums.values():
        for name, value in values:
            macros.setdefault(name, str(value))
    b = blank(text)
    rows = []
    for m in re.finditer(r"\b(FD_\w+_IMPL)\s*\(", b):
        open_at = m.end() - 1
        close_at = matching(b, open_at, "(", ")")
        args = [squash(a) for a in split_args(text[open_at + 1:close_at - 1],
                                              b[open_at + 1:close_at - 1])]
        if len(args) < 5:
            continue
        name, backend, direction, mask_expr, det = args[:5]
        enum_type = CONV_ALGO_ENUMS.get(direction)
        algos = [(n, v) for n, v in enums.get(enum_type, []) if not n.endswith("_COUNT")]
        mask = eval_mask(mask_expr, macros)
        if mask is None or not algos:
            served = "`%s`" % mask_expr
        else:
            names = [n for n, v in algos if 0 <= v < 32 and mask >> v & 1]
            if len(names) == len(algos):
                served = "all %d: %s" % (len(names), ", ".join(names))
            else:
                served = ", ".join(names) if names else "none"
        rows.append((name, backend.replace("FD_BACKEND_", "").lower(),
                     direction.replace("FD_CONV_", "conv ").replace("_", " ").lower(),
                     served, "yes" if det_flag(det, macros) else "no"))
    return rows


# ---- the measured section ------------------------------------------------------------------


def run_probe(path):
    """The markdown section support_probe prints (its stderr is passed on)."""
    try:
        r = subprocess.run([path], stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=600)
    except OSError as e:
        sys.exit("error: cannot run the probe %s: %s" % (path, e))
    except subprocess.TimeoutExpired:
        sys.exit("error: the probe %s ran for more than 600 s" % path)
    sys.stderr.write(r.stderr.decode("utf-8", "replace"))
    if r.returncode != 0:
        sys.exit("error: the probe %s exited with status %d" % (path, r.returncode))
    text = r.stdout.decode("utf-8").strip("\n")
    if not text.startswith(MEASURED_HEADING + "\n"):
        sys.exit("error: the probe %s did not print a section headed %r" % (path, MEASURED_HEADING))
    return text


def kept_section(old):
    """The measured section of an existing document (up to the next "## " heading), or None."""
    lines = old.split("\n")
    if MEASURED_HEADING not in lines:
        return None
    start = lines.index(MEASURED_HEADING)
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
    return "\n".join(lines[start:end]).strip("\n")


# ---- the document --------------------------------------------------------------------------


def generate(measured):
    decls = []  # (name, header, family)
    seen = set()
    for h in public_headers():
        for name, family in header_functions(os.path.join(ROOT, "include", h)):
            if name in seen:
                continue
            seen.add(name)
            decls.append((name, h, family or HEADER_FAMILY.get(h, h)))
    defined, stubs, checks = scan_sources()
    enums = header_enums()

    n_impl = sum(1 for n, _, _ in decls if n in defined)
    n_stub = sum(1 for n, _, _ in decls if n not in defined and n in stubs)
    missing = [n for n, _, _ in decls if n not in defined and n not in stubs]
    # FD_UNSUPPORTED definitions are weak: a real definition wins at link time, and the stub
    # left behind is reported (and fails --check) until it is deleted.
    replaced = sorted("%s (%s, defined in %s)" % (n, stubs[n][0], defined[n])
                      for n in stubs if n in defined)

    out = []
    w = out.append
    w("<!-- Generated by tools/gen_support_matrix.py from include/, src/, src/impls.def and")
    w("     what tools/support_probe measures. Do not edit: run")
    w("     `python3 tools/gen_support_matrix.py --probe BUILD/tools/support_probe/support_probe`")
    w("     (ctest docs/support_matrix_fresh fails when this file is stale). -->")
    w("# freednn support matrix")
    w("")
    w("| | functions |")
    w("|---|---:|")
    w("| declared in the public headers | %d |" % len(decls))
    w("| implemented | %d |" % n_impl)
    w("| not supported (return `CUDNN_STATUS_NOT_SUPPORTED` with the reason below) | %d |" % n_stub)
    if missing:
        w("| **declared but not defined anywhere (link error)** | %d |" % len(missing))
    w("")
    w("A function that is not supported returns `CUDNN_STATUS_NOT_SUPPORTED`, writes nothing, and")
    w("`cudnnGetLastErrorString` gives the reason shown here. An implemented function may still")
    w("reject particular arguments with `CUDNN_STATUS_NOT_SUPPORTED`: the last section lists every")
    w("such condition.")
    w("")
    if measured:
        w(measured)
        w("")
    w("## Functions")
    current = None
    for name, header, family in decls:
        key = (header, family)
        if key != current:
            current = key
            w("")
            w("### %s (`%s`)" % (family, header))
            w("")
            w("| function | status |")
            w("|---|---|")
        if name in defined:
            status = "implemented"
        elif name in stubs:
            status = "not supported: %s" % md_cell(stubs[name][1])
        else:
            status = "**not defined** (link error)"
        w("| `%s` | %s |" % (name, status))
    w("")
    w("## Implementations (`src/impls.def`)")
    w("")
    w("Dispatch takes the first applicable row of the handle's backend for the requested")
    w("algorithm; the cpu backend falls back to the ref rows.")
    w("")
    w("| implementation | backend | direction | algorithms served | deterministic |")
    w("|---|---|---|---|---|")
    for row in impl_rows(enums):
        w("| `%s` | %s | %s | %s | %s |" % tuple(md_cell(c) for c in row))
    w("")
    w("## Conditions that return CUDNN_STATUS_NOT_SUPPORTED")
    w("")
    w("Every `FD_CHECK` (and direct `fd_error`) in `src/` whose status is a")
    w("`CUDNN_STATUS_NOT_SUPPORTED*` code. The call is rejected when the requirement does not hold;")
    w("the message (printf format) is what `cudnnGetLastErrorString` reports.")
    w("")
    w("| where | status | requires | message |")
    w("|---|---|---|---|")
    for rel, func, status, cond, msg in checks:
        w("| `%s` `%s()` | `%s` | %s | `%s` |" % (
            rel, func, md_cell(status), "`%s`" % md_cell(cond) if cond else "-", md_cell(msg)))
    w("")
    return "\n".join(out), missing, replaced


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true",
                    help="do not write; exit 1 with a diff if %s is stale" % OUTPUT)
    ap.add_argument("--probe", metavar="PATH",
                    help="run this support_probe binary and insert the section it measures "
                         "(without it, the measured section already in %s is kept)" % OUTPUT)
    args = ap.parse_args()
    path = os.path.join(ROOT, OUTPUT)
    try:
        with open(path, encoding="utf-8") as f:
            old = f.read()
    except FileNotFoundError:
        old = ""
    if args.probe:
        measured = run_probe(args.probe)
    else:
        measured = kept_section(old)
        print("note: %s the measured section (pass --probe BUILD/tools/support_probe/"
              "support_probe to measure it)" % ("kept" if measured else "there is no"),
              file=sys.stderr)
    text, missing, replaced = generate(measured)
    for name in missing:
        print("warning: %s is declared but defined nowhere in src/" % name, file=sys.stderr)
    for stub in replaced:
        print("error: %s: an FD_UNSUPPORTED stub of an implemented function; delete the stub"
              % stub, file=sys.stderr)
    if not args.check:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        print("wrote %s" % OUTPUT)
        return 0
    if old != text:
        sys.stdout.writelines(difflib.unified_diff(
            old.splitlines(True), text.splitlines(True), OUTPUT + " (in the tree)",
            OUTPUT + " (generated)"))
        print("\n%s is stale: run python3 tools/gen_support_matrix.py --probe "
              "BUILD/tools/support_probe/support_probe" % OUTPUT)
        return 1
    if replaced:
        return 1
    print("%s is up to date" % OUTPUT)
    return 0


if __name__ == "__main__":
    sys.exit(main())
