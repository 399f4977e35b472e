#!/usr/bin/env bash
# The main job on the shipped test data: build refs for twenty years of daily netCDF-4 files
# (365/366-day years, one chunk per file), show the plan of a collection that cannot be combined as it
# is, and open the result with zarr-python.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
cargo build --release --quiet -p vzplan-cli
vz=target/release/vzplan
mkdir -p out

echo "== vzplan build testdata/collections/daily20/*.nc -o out/daily20.json"
$vz build testdata/collections/daily20/*.nc -o out/daily20.json

echo
echo "== vzplan plan testdata/collections/padded/*.nc   (exit code 3: something is left out)"
set +e
$vz plan testdata/collections/padded/*.nc
code=$?
set -e
[ "$code" -eq 3 ] || { echo "unexpected exit code $code" >&2; exit 1; }

echo
echo "== reading out/daily20.json back with zarr-python"
bash scripts/setup-python.sh
.venv/bin/python scripts/show.py out/daily20.json
