#!/usr/bin/env bash
# Every test: formatting, size rules, lints, the Rust tests, the conformance checks of
# tests/conformance (pytest on two workers: read-back through zarr-python, xarray, icechunk-python,
# zarrs and tifffile; S3, HTTP and Azure servers on 127.0.0.1; the HTML report in Chromium), the
# Python package's tests and the real-world sweep. Installs what it needs. Each step prints
# `== [mm:ss] step`; what runs concurrently is in docs/testing.md.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
# Incremental state gains a one-off run nothing and costs 1.2 GB of target/ on a clean test build
# (a CI machine ran out of disk); CARGO_INCREMENTAL=1 keeps it for repeated local runs.
export CARGO_INCREMENTAL=${CARGO_INCREMENTAL:-0}
t0=$SECONDS
step() { printf '== [%02d:%02d] %s\n' $(((SECONDS - t0) / 60)) $(((SECONDS - t0) % 60)) "$*"; }
logs=target/test-logs
rm -rf "$logs"
mkdir -p "$logs"

# Background jobs: `bg NAME CMD…` (output in target/test-logs/NAME.log); `join NAME` waits for it
# and fails the script, showing the log, when the job failed. Jobs still running when the script
# ends (a step failed) are stopped with their children.
declare -A jobs_by_name=()
bg() {
  local name=$1; shift
  { local s=$SECONDS; "$@"; local rc=$?; echo "took $((SECONDS - s)) s" >"$logs/$name.took"; exit "$rc"; } \
    >"$logs/$name.log" 2>&1 &
  jobs_by_name[$name]=$!
}
join() {
  local name=$1 pid=${jobs_by_name[$1]}
  unset "jobs_by_name[$name]"
  if ! wait "$pid"; then
    echo "== $name failed:"; cat "$logs/$name.log"; exit 1
  fi
  echo "   (background job $name: $(cat "$logs/$name.took"))"
}
kill_tree() { local c; for c in $(ps -o pid= --ppid "$1" 2>/dev/null); do kill_tree "$c"; done; kill "$1" 2>/dev/null || true; }
trap 'for p in "${jobs_by_name[@]}"; do kill_tree "$p"; done' EXIT

step "setup: the real writers' tools; in the background: .venv, .venv-realworld and the sweep's files, Chromium and azurite"
# GDAL, nccopy and h5repack from Debian (apt runs here, before the jobs that might also want it).
bash scripts/setup-tools.sh
bg venv bash scripts/setup-python.sh test
bg realworld bash -c "bash scripts/setup-python.sh realworld && bash scripts/fixtures/realworld/make.sh .venv-realworld/bin/python"
bg browser-azurite bash -c "bash scripts/setup-chromium.sh && bash scripts/setup-azurite.sh"

step "cargo fmt --check"
cargo fmt --all -- --check
step "size rules: files <= 800 lines, functions <= 150"
python3 scripts/check_sizes.py
step "features: the Python extension alone resolves as the workspace (one build serves both)"
python3 scripts/check_features.py
step "cargo clippy -D warnings and the test build, in one compile"
# One compile serves the lints and the tests: what `cargo clippy` does (clippy's driver as the
# workspace crates' compiler, its arguments in CLIPPY_ARGS) on a build that also generates code,
# so dependencies are compiled once instead of once checked and once built. Exported, so that
# every later build (maturin's too) runs with the same compiler and reuses this one.
RUSTC_WORKSPACE_WRAPPER=$(rustup which clippy-driver 2>/dev/null || command -v clippy-driver) ||
  { echo "test.sh: clippy-driver not found (rustup component add clippy)"; exit 1; }
export RUSTC_WORKSPACE_WRAPPER CLIPPY_ARGS=-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__
# --all-targets: benches too, as `cargo clippy --all-targets` lints them. The binaries the
# conformance checks run (target/debug/vzplan, zarrs-dump, examples/dump) come from the same
# feature resolution as the tests, so only zarrs-dump's own binary is new in the second command.
# (`cargo build -p vzplan-cli` alone resolves fewer features and rebuilds.)
cargo test --workspace --all-targets --no-run --quiet
cargo build --workspace --bins --examples --quiet
join venv
step "cargo test: run (the S3 and HTTP tests use .venv)"
cargo test --workspace --quiet 2>&1 | tee target/cargo-test.log

step "conformance: pytest -n 2 tests/conformance; the Python package compiles meanwhile (maturin develop)"
join browser-azurite
bg maturin env VIRTUAL_ENV="$root/.venv" .venv/bin/maturin develop --quiet
vz=(--vzplan target/debug/vzplan --tiff-dump target/debug/examples/dump --zarrs-dump target/debug/zarrs-dump)
# pytest's exit code 5 (no test collected) fails this script like any failure.
.venv/bin/python -m pytest -v -n 2 --dist loadgroup tests/conformance "${vz[@]}" \
  --junitxml="$logs/conformance.xml"
step "real-world sweep: GDAL / nccopy / h5repack files, each built alone and read back (virtual-tiff installed too)"
join realworld
.venv-realworld/bin/python -m pytest -q -n 2 tests/conformance/test_realworld.py -m realworld \
  --vzplan target/debug/vzplan --junitxml="$logs/realworld.xml"
step "Python package: pytest python/tests"
# Against the CLI (byte-identical builds), xarray, a 2-worker Dask LocalCluster, VirtualiZarr and
# the wheel in a clean venv (its build reuses maturin develop's).
join maturin
VZPLAN_CLI="$root/target/debug/vzplan" .venv/bin/python -m pytest -q python/tests --junitxml="$logs/python.xml"
step "done"
python3 - "$logs"/conformance.xml "$logs"/python.xml "$logs"/realworld.xml <<'PY'
import sys
import xml.etree.ElementTree as ET

n = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
for path in sys.argv[1:]:
    for suite in ET.parse(path).getroot().iter("testsuite"):
        for k in n:
            n[k] += int(suite.get(k, 0))
failed = n["failures"] + n["errors"]
print(f"pytest: {n['tests'] - failed - n['skipped']} passed, {failed} failed, {n['skipped']} skipped")
PY
