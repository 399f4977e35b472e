"""zarrs as a second reader: every case of the collection, real-writer and mosaic cases files built,
every array's zarr.json parsed by zarrs (the Rust Zarr implementation, through the `zarrs-dump`
binary of crates/vzplan-zarrs-oracle), and every array zarrs reads equal to what zarr-python reads
from the same refs. zarrs has no codec for some names vzplan writes; those arrays must fail in
zarrs for exactly that reason:
- `numcodecs.lz4` (HDF5 LZ4 filter), `numcodecs.bitshuffle`, `numcodecs.szip`: not in zarrs;
- `imagecodecs_*` (TIFF LZW, PackBits, predictors, JPEG): imagecodecs' codecs, Python-only;
- the data types `null_terminated_bytes` (netCDF `char` arrays) and `struct` (HDF5 compounds;
  zarr-extensions): not in zarrs 0.23.
Cases that build nothing are skipped."""

from __future__ import annotations

import json

import numpy as np
import pytest

from .helpers import case_args, case_inputs, case_params, fail_on, open_refs, run

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


def lacking(meta) -> list[str]:
    """The codecs and data type of `meta` that zarrs does not have."""
    missing = [c for c in codec_names(meta) if c.startswith(NOT_IN_ZARRS)]
    dtype = meta.get("data_type")
    dtype = dtype.get("name") if isinstance(dtype, dict) else dtype
    if dtype in DTYPES_NOT_IN_ZARRS:
        missing.append(dtype)
    return missing


def compare_array(path, d, group) -> str | None:
    """zarrs' dump of array `path` (in directory `d`) against zarr-python's read."""
    name = path.replace("/", "%")
    want = np.asarray(group[path][...])
    if (d / f"{name}.json").exists():
        got = json.loads((d / f"{name}.json").read_text())
        return None if [str(x) for x in want.ravel().tolist()] == got else f"{path}: strings differ"
    native = want.dtype.newbyteorder("=")
    got = np.frombuffer((d / f"{name}.bin").read_bytes(), dtype=native)
    if got.size != want.size:
        return f"{path}: {got.size} elements from zarrs, {want.size} from zarr-python"
    if not np.array_equal(got, want.astype(native).ravel(), equal_nan=want.dtype.kind in "fc"):
        return f"{path}: values differ"
    return None


@pytest.mark.parametrize("kind, case", case_params("collections", "real", "mosaic"))
def test_zarrs(vzplan, zarrs_dump, kind, case, tmp_path, report, record_property):
    out = tmp_path / f"{case['name']}.json"
    p = run([vzplan, "build", *case_inputs(kind, case), "-o", out, *case_args(kind, case)])
    if p.returncode != case["exit"]:
        fail_on([f"exit code {p.returncode}, expected {case['exit']}\n{p.stderr}"])
    if case["exit"] == 1:
        pytest.skip("nothing built: nothing for either reader")
    d = tmp_path / f"{case['name']}.zarrs"
    q = run([zarrs_dump, out, d])
    if q.returncode != 0:
        fail_on([f"zarrs-dump: exit {q.returncode}: {q.stderr}"])
    refs = json.loads(out.read_text())["refs"]
    group = open_refs(out)
    errs, compared = [], 0
    for key, v in refs.items():
        if not key.endswith("zarr.json") or json.loads(v).get("node_type") != "array":
            continue
        path = key[: -len("zarr.json")].rstrip("/")
        missing = lacking(json.loads(v))
        err = d / f"{path.replace('/', '%')}.err"
        if err.exists():
            if not missing:
                errs.append(f"{path}: zarrs cannot read it: {err.read_text()}")
            continue
        if missing:
            errs.append(f"{path}: zarrs read it though it lacks {missing}: update the list")
            continue
        errs += filter(None, [compare_array(path, d, group)])
        compared += 1
    record_property("zarrs_arrays", compared)
    report(f"{compared} arrays equal in zarrs and zarr-python" if not errs else f"{compared} arrays compared")
    fail_on(errs)
