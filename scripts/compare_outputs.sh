#!/usr/bin/env bash
# Runs two vzplan binaries on every case of testdata/collections/cases.json and
# testdata/mosaic/cases.json (inputs and extra args as tests/conformance/test_readback.py runs
# them) and diffs what they write: refs.json, zarr.json, the HTML page, `build`
# stdout/stderr/exit code, `plan --json`, `plan` text and `scan` layout lines. Both binaries write
# to the same paths, so the outputs must be byte-identical.
#
#   scripts/compare_outputs.sh BEFORE_BIN AFTER_BIN
#
# Each binary also builds from its own layout lines (`build --from-layouts`), and those refs must
# match too. LAYOUT_FORM_CHANGED=1 leaves the layout lines themselves out of the diff (a change of
# the line form on purpose); what they build is still compared.
# Exit 0 when every case matches; 1 otherwise (the differing files are listed, with a diff).
set -euo pipefail
if [ $# -ne 2 ]; then
    echo "usage: $0 BEFORE_BIN AFTER_BIN" >&2
    exit 2
fi
root=$(cd "$(dirname "$0")/.." && pwd)
before=$(realpath "$1")
after=$(realpath "$2")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# One line per case: name, then NUL-free tab-separated argv (inputs expanded, then extra args).
python3 - "$root" >"$work/cases.tsv" <<'PY'
import glob, json, sys
from pathlib import Path
root = Path(sys.argv[1])
for cases in ["testdata/collections/cases.json", "testdata/mosaic/cases.json"]:
    base = root / Path(cases).parent
    for case in json.loads((root / cases).read_text())["cases"]:
        inputs = []
        for pat in case["inputs"]:
            inputs.extend(sorted(glob.glob(str(base / pat))))
        args = [a.replace("{base}", str(base)) for a in case.get("args", [])]
        print("\t".join([case["name"], *inputs, "--", *args]))
PY

# run BIN DIR ARGV...: the outputs of one binary on one case, into DIR.
run_case() {
    local bin=$1 dest=$2
    shift 2
    local inputs=() extra=()
    while [ $# -gt 0 ] && [ "$1" != "--" ]; do inputs+=("$1"); shift; done
    shift
    extra=("$@")
    local out="$work/out"
    rm -rf "$out" && mkdir -p "$out" "$dest"
    set +e
    "$bin" build "${inputs[@]}" -o "$out/refs.json" --html "$out/build.html" "${extra[@]}" \
        >"$dest/build.stdout" 2>"$dest/build.stderr"
    echo $? >"$dest/build.exit"
    "$bin" plan "${inputs[@]}" --json "${extra[@]}" >"$dest/plan.json" 2>"$dest/plan.stderr"
    echo $? >"$dest/plan.exit"
    "$bin" plan "${inputs[@]}" "${extra[@]}" >"$dest/plan.txt" 2>/dev/null
    # scan takes no planning options; only the ones it knows are passed on.
    local scan_extra=()
    for ((i = 0; i < ${#extra[@]}; i++)); do
        if [ "${extra[$i]}" = "--chunk-bytes" ]; then scan_extra+=("${extra[$i]}" "${extra[$((i + 1))]}"); fi
    done
    "$bin" scan "${inputs[@]}" -o "$out/layouts.jsonl" "${scan_extra[@]}" \
        >"$dest/scan.stdout" 2>"$dest/scan.stderr"
    echo $? >"$dest/scan.exit"
    if [ -f "$out/layouts.jsonl" ]; then
        "$bin" build --from-layouts "$out/layouts.jsonl" -o "$out/from-layouts.json" "${extra[@]}" \
            >/dev/null 2>&1
        echo $? >"$dest/from-layouts.exit"
    fi
    set -e
    for f in refs.json refs.zarr.json build.html layouts.jsonl from-layouts.json; do
        if [ -f "$out/$f" ]; then cp "$out/$f" "$dest/$f"; else echo "(not written)" >"$dest/$f"; fi
    done
}

fail=0
n=0
while IFS=$'\t' read -r -a row; do
    name=${row[0]}
    run_case "$before" "$work/before/$name" "${row[@]:1}"
    run_case "$after" "$work/after/$name" "${row[@]:1}"
    n=$((n + 1))
    skip=()
    if [ "${LAYOUT_FORM_CHANGED:-0}" = 1 ]; then skip=(-x layouts.jsonl); fi
    if diff -r "${skip[@]}" "$work/before/$name" "$work/after/$name" >"$work/diff.txt"; then
        echo "same: $name (exit $(cat "$work/after/$name/build.exit"))"
    else
        echo "DIFFERENT: $name"
        head -40 "$work/diff.txt" | cut -c1-300
        fail=1
    fi
done <"$work/cases.tsv"
if [ $fail -ne 0 ]; then
    echo "outputs differ" >&2
    exit 1
fi
echo "all $n cases identical (refs.json, zarr.json, HTML, build/plan/scan output and exit codes)"
