#!/bin/sh
# SPDX-License-Identifier: MIT
# run_compat.sh EXE LIBDIR NAME: runs EXE (linked against a library called NAME, e.g.
# libcudnn.so.9) with LD_LIBRARY_PATH=LIBDIR on the cpu backend, after showing, ldd-style, that
# the loader resolves NAME to LIBDIR/NAME and every symbol version EXE needs is there. Fails on
# the loader's "no version information available" / "version ... not found" complaints.
exe=$1 libdir=$2 name=$3
LD_LIBRARY_PATH=$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
FREEDNN_BACKEND=cpu
export LD_LIBRARY_PATH FREEDNN_BACKEND

echo "== $exe needs (readelf -V):"
readelf -V "$exe" 2>/dev/null | sed -n '/.gnu.version_r/,$p' | grep -E "File: libcudnn|Name: libcudnn" || true
echo "== ldd -r $exe (LD_LIBRARY_PATH=$libdir):"
if command -v ldd >/dev/null 2>&1; then
    trace=$(ldd -r "$exe" 2>&1)
else
    trace=$(LD_TRACE_LOADED_OBJECTS=1 LD_WARN=1 LD_BIND_NOW=1 "$exe" 2>&1)
fi
echo "$trace" | grep -E "libcudnn|libfreednn|not found|version|undefined" || true
line=$(echo "$trace" | grep "$name =>" | head -1)
case "$line" in
    *"=> $libdir/$name "*) ;;
    *) echo "FAIL: the loader does not resolve $name to $libdir/$name: $line"; exit 1 ;;
esac
if echo "$trace" | grep -E "no version information|version .* not found|undefined symbol|symbol not defined"; then
    echo "FAIL: the loader reports missing versions or symbols"
    exit 1
fi
echo "== $exe:"
err=$(mktemp)
"$exe" 2>"$err"
rc=$?
cat "$err"
if grep -q -E "no version information|version .* not found" "$err"; then
    echo "FAIL: the loader complained about symbol versions"
    rc=1
fi
rm -f "$err"
exit $rc
