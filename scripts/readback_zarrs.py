"""zarrs as a second reader (issue 10): every case of the collection, real-writer and mosaic case
files is built, every array's zarr.json must be parsed by zarrs (the Rust Zarr implementation, via
the `zarrs-dump` binary of crates/vzplan-zarrs-oracle), and every array zarrs reads must equal what
zarr-python reads from the same refs. zarrs has no codec for some names vzplan writes; those arrays
must fail in zarrs for exactly that reason, and are listed below:
- `numcodecs.lz4` (HDF5 LZ4 filter), `numcodecs.bitshuffle`, `numcodecs.szip`: not in zarrs;
- `imagecodecs_*` (TIFF LZW, PackBits, predictors, JPEG): imagecodecs' codecs, Python-only;
- the data types `null_terminated_bytes` (netCDF `char` arrays) and `struct` (HDF5 compounds;
  zarr-extensions): not in zarrs 0.23.

    .venv/bin/python scripts/readback_zarrs.py --vzplan target/debug/vzplan --dump target/debug/zarrs-dump

Prints 'readback_zarrs: N passed, N failed' and exits non-zero on a failure.
"""

import argparse
import glob
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from readback import open_refs  # noqa: E402  (zarr-python over fsspec, rectilinear grids enabled)

ROOT = Path(__file__).resolve().parent.parent
CASES = ["testdata/collections/cases.json", "testdata/real/cases.json", "testdata/mosaic/cases.json"]
# Codec names zarrs does not implement (prefixes).
NOT_IN_ZARRS = ("numcodecs.lz4", "numcodecs.bitshuffle", "numcodecs.szip", "imagecodecs_")
DTYPES_NOT_IN_ZARRS = ("null_terminated_bytes", "struct")


def codec_names(meta):
    out = []
    for c in meta.get("codecs", []):
        out.append(c["name"])
        for inner in (c.get("configuration") or {}).get("codecs", []):
            out.append(inner["name"])
    return out


def check(vzplan, dump, base, case, tmp):
    inputs = []
    for pat in case["inputs"]:
        inputs.extend(sorted(glob.glob(str(base / pat))))
    args = [a.replace("{base}", str(base)) for a in case.get("args", [])]
    out = tmp / f"{case['name']}.json"
    p = subprocess.run([vzplan, "build", *inputs, "-o", str(out), *args], capture_output=True, text=True)
    if p.returncode not in (0, 3):
        return None, []  # nothing built: nothing for either reader
    d = tmp / f"{case['name']}.zarrs"
    q = subprocess.run([dump, str(out), str(d)], capture_output=True, text=True)
    if q.returncode != 0:
        return 0, [f"zarrs-dump: exit {q.returncode}: {q.stderr}"]
    refs = json.loads(out.read_text())["refs"]
    g = open_refs(out)
    errs, compared = [], 0
    for key, v in refs.items():
        if not key.endswith("zarr.json"):
            continue
        meta = json.loads(v)
        if meta.get("node_type") != "array":
            continue
        path = key[: -len("zarr.json")].rstrip("/")
        name = path.replace("/", "%")
        missing = [c for c in codec_names(meta) if c.startswith(NOT_IN_ZARRS)]
        dtype = meta.get("data_type")
        dtype = dtype.get("name") if isinstance(dtype, dict) else dtype
        if dtype in DTYPES_NOT_IN_ZARRS:
            missing.append(dtype)
        err = d / f"{name}.err"
        if err.exists():
            if not missing:
                errs.append(f"{path}: zarrs cannot read it: {err.read_text()}")
            continue
        if missing:
            errs.append(f"{path}: zarrs read it though it lacks {missing}: update the list")
            continue
        want = np.asarray(g[path][...])
        if (d / f"{name}.json").exists():
            got = json.loads((d / f"{name}.json").read_text())
            if [str(x) for x in want.ravel().tolist()] != got:
                errs.append(f"{path}: strings differ")
        else:
            raw = (d / f"{name}.bin").read_bytes()
            native = want.dtype.newbyteorder("=")
            got = np.frombuffer(raw, dtype=native)
            if got.size != want.size:
                errs.append(f"{path}: {got.size} elements from zarrs, {want.size} from zarr-python")
            elif not np.array_equal(got, want.astype(native).ravel(), equal_nan=want.dtype.kind in "fc"):
                errs.append(f"{path}: values differ")
        compared += 1
    return compared, errs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--vzplan", required=True)
    ap.add_argument("--dump", required=True)
    a = ap.parse_args()
    passed = failed = arrays = 0
    with tempfile.TemporaryDirectory() as tmp:
        for cases in CASES:
            base = (ROOT / cases).parent
            for case in json.loads((ROOT / cases).read_text())["cases"]:
                n, errs = check(a.vzplan, a.dump, base, case, Path(tmp))
                if n is None:
                    continue
                arrays += n
                if errs:
                    failed += 1
                    print(f"FAIL zarrs {case['name']}")
                    for e in errs:
                        print("  " + e)
                else:
                    passed += 1
    print(f"readback_zarrs: {passed} passed, {failed} failed ({arrays} arrays equal in zarrs and zarr-python)")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
