#!/usr/bin/env bash
# The main job on the shipped test data: build refs for twenty years of daily netCDF-4 files
# (365/366-day years, one chunk per file), show the plan of a collection that cannot be combined as it
# is, and open the result with xarray. Every step says what it does and how long it took; the slow
# ones the first time (compiling, installing the Python readers) show their own progress lines.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
t0=$SECONDS
step() { printf '\n== [%s, %ds] %s\n' "$(date +%H:%M:%S)" $((SECONDS - t0)) "$*"; }

step "1/4 compiling vzplan (cargo build --release -p vzplan-cli; a few minutes the first time)"
cargo build --release -p vzplan-cli
vz=target/release/vzplan
mkdir -p out

step "2/4 vzplan build testdata/collections/daily20/*.nc -o out/daily20.json --progress"
$vz build testdata/collections/daily20/*.nc -o out/daily20.json --progress

step "3/4 vzplan plan testdata/collections/padded/*.nc   (exit code 3: something is left out)"
set +e
$vz plan testdata/collections/padded/*.nc
code=$?
set -e
[ "$code" -eq 3 ] || { echo "unexpected exit code $code" >&2; exit 1; }

step "4/4 opening out/daily20.json with xarray (first time: creating .venv with the pinned readers, a few minutes)"
VZPLAN_SETUP_VERBOSE=1 bash scripts/setup-python.sh
.venv/bin/python scripts/show.py out/daily20.json
step "done"
