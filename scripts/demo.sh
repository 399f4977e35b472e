#!/usr/bin/env bash
# The main job on the shipped test data: build refs for twenty years of daily netCDF-4 files
# (365/366-day years, one chunk per file), show the plan of a collection that cannot be combined as it
# is, and open the result with xarray. Every step says what it does and how long it took; the slow
# one the first time (compiling) shows its own progress lines, while the Python readers install
# beside it (log: target/demo-setup-python.log).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
t0=$SECONDS
step() { printf '\n== [%s, %ds] %s\n' "$(date +%H:%M:%S)" $((SECONDS - t0)) "$*"; }

mkdir -p target
# Only what opening needs (scripts/requirements-demo.txt); scripts/test.sh adds the rest later.
VZPLAN_SETUP_VERBOSE=1 bash scripts/setup-python.sh demo >target/demo-setup-python.log 2>&1 &
venv=$!

step "1/4 compiling vzplan (cargo build --profile demo -p vzplan-cli; a few minutes the first time)"
# The demo profile is release without whole-program LTO (Cargo.toml): the same speed for this data,
# minutes less to build. Distribution builds use --release.
cargo build --profile demo -p vzplan-cli
vz=target/demo/vzplan
mkdir -p out

step "2/4 vzplan build testdata/collections/daily20/*.nc -o out/daily20.json --progress"
$vz build testdata/collections/daily20/*.nc -o out/daily20.json --progress

step "3/4 vzplan plan testdata/collections/padded/*.nc   (exit code 3: something is left out)"
set +e
$vz plan testdata/collections/padded/*.nc
code=$?
set -e
[ "$code" -eq 3 ] || { echo "unexpected exit code $code" >&2; exit 1; }

step "4/4 opening out/daily20.json with xarray (.venv with the pinned readers, installed meanwhile)"
wait "$venv" || { cat target/demo-setup-python.log >&2; exit 1; }
.venv/bin/python scripts/show.py out/daily20.json
step "done"
