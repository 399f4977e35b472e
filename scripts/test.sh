#!/usr/bin/env bash
# Every test: formatting, lints, the Rust unit/integration tests, and the read-back conformance check
# (zarr-python over fsspec's ReferenceFileSystem vs netCDF4-python/h5py). Installs what it needs.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
# Incremental state gains a one-off run nothing and costs 1.2 GB of target/ on a clean test build
# (a CI machine ran out of disk); CARGO_INCREMENTAL=1 keeps it for repeated local runs.
export CARGO_INCREMENTAL=${CARGO_INCREMENTAL:-0}

bash scripts/setup-python.sh
# The real writers' tools (GDAL, nccopy, h5repack), Chromium and azurite are installed by
# scripts/setup-tools.sh, setup-chromium.sh and setup-azurite.sh below, each before its first use.
bash scripts/setup-tools.sh

echo "== cargo fmt --check"
cargo fmt --all -- --check
echo "== size rules: files <= 800 lines, functions <= 150"
python3 scripts/check_sizes.py
echo "== cargo clippy -D warnings"
cargo clippy --workspace --all-targets --quiet -- -D warnings
echo "== cargo test"
cargo test --workspace --quiet 2>&1 | tee target/cargo-test.log
echo "== read-back conformance"
cargo build --quiet -p vzplan-cli
.venv/bin/python scripts/readback.py --vzplan target/debug/vzplan
echo "== batch report: 40 padded files, one group, one loop; nccopy runs the loop, then all fit"
.venv/bin/python scripts/batch_report_check.py --vzplan target/debug/vzplan
echo "== real-writer HDF5 / netCDF-4 features: plugin filters, enum/complex/vlen types, huge attributes"
.venv/bin/python scripts/readback.py --vzplan target/debug/vzplan --cases testdata/real/cases.json
echo "== xarray read-back: xr.open_zarr over the refs (consolidated and not) vs xr.open_mfdataset / tifffile"
.venv/bin/python scripts/readback_xarray.py --vzplan target/debug/vzplan
echo "== Icechunk: build --icechunk for every collection, read back with icechunk-python + zarr"
.venv/bin/python scripts/readback_icechunk.py --vzplan target/debug/vzplan
echo "== TIFF read-back: every array of every TIFF fixture vs tifffile"
cargo build --quiet -p vzplan-tiff --examples
VZPLAN_TIFF_DUMP=target/debug/examples/dump .venv/bin/python scripts/readback_tiff.py
echo "== object storage: moto S3 on 127.0.0.1, batch through injected faults, read-back over s3"
.venv/bin/python scripts/readback_s3.py --vzplan target/debug/vzplan
echo "== zarrs (Rust) as a second reader: every built array equal to zarr-python's"
cargo build --quiet -p vzplan-zarrs-oracle
.venv/bin/python scripts/readback_zarrs.py --vzplan target/debug/vzplan --dump target/debug/zarrs-dump
echo "== HTTP inputs: a byte-range server on 127.0.0.1, refs as the local build's, read back over http, verify"
.venv/bin/python scripts/readback_http.py --vzplan target/debug/vzplan
echo "== Azure: azurite on 127.0.0.1 (npm), az:// globs, read back over adlfs, verify with normalised ETags"
bash scripts/setup-azurite.sh
.venv/bin/python scripts/readback_azure.py --vzplan target/debug/vzplan
echo "== mosaics: read-back of the mosaic cases, HTML report in headless chromium"
.venv/bin/python scripts/readback.py --vzplan target/debug/vzplan --cases testdata/mosaic/cases.json
bash scripts/setup-chromium.sh
.venv/bin/python scripts/html_check.py --vzplan target/debug/vzplan
echo "== Python package: built into .venv (maturin develop), pytest python/tests"
# Against the CLI (byte-identical builds), xarray's open_mfdataset, a 2-worker Dask LocalCluster
# and VirtualiZarr. pytest's exit code 5 (no test collected) fails this script like any failure.
VIRTUAL_ENV="$root/.venv" .venv/bin/maturin develop --quiet
VZPLAN_CLI="$root/target/debug/vzplan" .venv/bin/python -m pytest -q python/tests
echo "== real-world sweep: GDAL / nccopy / h5repack variants, each built alone and read back (virtual-tiff installed too)"
bash scripts/realworld/setup-venv.sh
bash scripts/realworld/make.sh .venv-realworld/bin/python
.venv-realworld/bin/python scripts/realworld/sweep.py --vzplan target/debug/vzplan --markdown
