"""Read-back conformance: build every collection with vzplan, check the expected outcome, then read
every built array back with zarr-python (rectilinear grids enabled) over fsspec's
ReferenceFileSystem and compare it, value by value, with what netCDF4-python / h5py read from the
source files.

    .venv/bin/python scripts/readback.py --vzplan target/release/vzplan [--cases testdata/collections/cases.json]

Exits non-zero on the first mismatch, printing what differs. Prints 'N passed, N failed' at the end.
"""

import argparse
import fnmatch
import glob
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import fsspec
import h5py
import hdf5plugin  # noqa: F401  (registers the Blosc, LZ4, bitshuffle… filters with h5py)
import netCDF4
import numpy as np
import zarr

zarr.config.set({"array.rectilinear_chunks": True})
try:  # TIFF LZW / PackBits / predictor codecs
    import imagecodecs.zarr

    imagecodecs.zarr.register_codecs()
except (ImportError, AttributeError):
    pass

sys.path.insert(0, str(Path(__file__).resolve().parent))
from readback_tiff import expected_arrays  # noqa: E402  (tifffile's view of a TIFF's arrays)


def open_refs(refs_path):
    fs = fsspec.filesystem("reference", fo=str(refs_path), remote_protocol="file", asynchronous=True)
    store = zarr.storage.FsspecStore(fs, read_only=True, path="")
    return zarr.open_group(store=store, mode="r", zarr_format=3)


def source_values(path, var):
    """Raw stored values (no masking or scaling), as the libraries read them."""
    if path.lower().endswith((".tif", ".tiff")):
        return expected_arrays(path)[var]
    try:
        with netCDF4.Dataset(path) as ds:
            v = ds[var]
            v.set_auto_maskandscale(False)
            return np.asarray(v[...])
    except (OSError, IndexError, KeyError, RuntimeError):
        with h5py.File(path, "r") as f:
            return f[var][...]


def source_fill(path, var):
    if path.lower().endswith((".tif", ".tiff")):
        return None
    try:
        with netCDF4.Dataset(path) as ds:
            return getattr(ds[var], "_FillValue", None)
    except (OSError, IndexError, KeyError, RuntimeError):
        return None


def local(url):
    return url[len("file://"):] if url.startswith("file://") else url


def text(x):
    return x.decode("utf-8") if isinstance(x, bytes) else str(x)


def same(a, b):
    if a.shape != b.shape:
        return f"shape {a.shape} != {b.shape}"
    if a.dtype.kind in "OT" or b.dtype.kind in "OT":
        # Variable-length strings: zarr's StringDType vs h5py's bytes / netCDF4's str objects.
        ta, tb = [text(x) for x in a.reshape(-1)], [text(x) for x in b.reshape(-1)]
        bad = [i for i, (x, y) in enumerate(zip(ta, tb)) if x != y]
        return f"{len(bad)} strings differ, first at {bad[0]}: {ta[bad[0]]!r} != {tb[bad[0]]!r}" if bad else None
    if a.dtype.kind == "c" and b.dtype.names == ("r", "i"):
        b = (b["r"] + 1j * b["i"]).astype(a.dtype)  # netCDF4-python's view of h5py's complex compound
    if a.dtype.names or b.dtype.names:
        # Structured (compound) values: field names, then every field.
        if a.dtype.names != b.dtype.names:
            return f"fields {a.dtype.names} != {b.dtype.names}"
        for n in a.dtype.names:
            d = same(np.asarray(a[n]), np.asarray(b[n]))
            if d:
                return f"field {n}: {d}"
        return None
    if a.dtype.kind != b.dtype.kind or a.dtype.itemsize != b.dtype.itemsize:
        return f"dtype {a.dtype} != {b.dtype}"
    if a.dtype.kind == "f":
        ok = np.array_equal(a, b, equal_nan=True)
    else:
        ok = np.array_equal(a, b)
    if not ok:
        bad = np.argwhere(~((a == b) | (np.isnan(a) & np.isnan(b)) if a.dtype.kind == "f" else (a == b)))
        i = tuple(bad[0])
        return f"{len(bad)} values differ, first at {i}: {a[i]!r} != {b[i]!r}"
    return None


def check_case(vzplan, base, case, workdir):
    errors = []
    inputs = []
    for pat in case["inputs"]:
        inputs.extend(sorted(glob.glob(str(base / pat))))
    out = workdir / f"{case['name']}.json"
    args = [a.replace("{base}", str(base)) for a in case.get("args", [])]
    cmd = [vzplan, "build", *inputs, "-o", str(out), "--json", *args]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != case["exit"]:
        errors.append(f"exit code {p.returncode}, expected {case['exit']}\nstderr: {p.stderr}\nstdout: {p.stdout[:2000]}")
        return errors
    if case["exit"] == 1:
        # Nothing built: check the findings from `vzplan plan --json` instead.
        p = subprocess.run([vzplan, "plan", *inputs, "--json", *args], capture_output=True, text=True)
    report = json.loads(p.stdout)
    built = [a["path"] for a in report["arrays"]]
    if sorted(built) != sorted(case["arrays"]):
        errors.append(f"built {built}, expected {case['arrays']}")
    if sorted(report["left_out"]) != sorted(case.get("left_out", [])):
        errors.append(f"left out {report['left_out']}, expected {case.get('left_out', [])}")
    got = {(f["kind"], os.path.basename(local(f.get("file", ""))), f.get("array")) for f in report["findings"]
           if f["severity"] != "warning"}
    want = {(f["kind"], f.get("file", ""), f.get("array")) for f in case["findings"]}
    if got != want:
        errors.append(f"findings {sorted(got, key=str)}, expected {sorted(want, key=str)}\n" +
                      "\n".join(f["text"] for f in report["findings"]))
    for a in report["arrays"]:
        g = case.get("grids", {}).get(a["path"])
        if g is not None and a["chunk_grid"] != g:
            errors.append(f"{a['path']}: grid {a['chunk_grid']}, expected {g}")
    if errors or case["exit"] == 1:
        return errors

    # The consolidated zarr.json beside refs.json must describe the same arrays.
    zj = json.loads((workdir / f"{case['name']}.zarr.json").read_text())
    meta = zj["consolidated_metadata"]["metadata"]
    refs = json.loads(out.read_text())["refs"]
    for a in built:
        if meta.get(a) != json.loads(refs[f"{a}/zarr.json"]):
            errors.append(f"{a}: consolidated zarr.json differs from the refs' metadata")

    group = open_refs(out)
    sources = [local(s["url"]) for s in json.loads(refs["zarr.json"])["attributes"]["vzplan"]["sources"]]
    concat = report["concat_dim"]
    mosaic = json.loads(refs["zarr.json"])["attributes"]["vzplan"].get("mosaic")
    if mosaic is not None:
        return errors + check_mosaic(group, report, sources, mosaic)
    for a in report["arrays"]:
        name = a["path"]
        arr = group[name]
        got = arr[...]
        dims = a["dimension_names"]
        if report.get("stack_dim") and report["stack_dim"] == dims[0] and len(sources) > 1:
            want = np.stack([source_values(s, name) for s in sources])
        elif concat in dims and len(sources) > 1:
            axis = dims.index(concat)
            want = np.concatenate([source_values(s, name) for s in sources], axis=axis)
        else:
            want = source_values(sources[0], name)
        if name == concat and case.get("time") == "rebased":
            # Sources count from different dates: compare instants, in the output's units.
            units, cal = arr.attrs["units"], arr.attrs.get("calendar", "standard")
            parts = []
            for s in sources:
                with netCDF4.Dataset(s) as ds:
                    t = ds[name]
                    dates = netCDF4.num2date(t[:], t.units, cal)
                    parts.append(np.asarray(netCDF4.date2num(dates, units, cal), dtype=t.dtype))
            want = np.concatenate(parts)
        d = same(np.asarray(got), np.asarray(want))
        fill = source_fill(sources[0], name)
        if fill is not None and not (fill == arr.fill_value or (np.isnan(fill) and np.isnan(arr.fill_value))):
            d = f"fill value {arr.fill_value!r} != _FillValue {fill!r}"
        if d:
            errors.append(f"{name}: {d}")
        elif name != concat and concat in dims and concat in built:
            coords = arr.attrs.get("coords:coordinates", {})
            if concat not in coords:
                errors.append(f"{name}: no coords:coordinates entry for {concat}")
    return errors


def check_mosaic(group, report, sources, mosaic):
    """Mosaic branch: the expected array is every tile placed at its offset, in input order (the
    last file wins where tiles overlap), and the fill value where no tile is; 1-D coordinates
    along a mosaic axis are compared where a tile covers them."""
    errors = []
    rows, cols = mosaic["dims"]
    for a in report["arrays"]:
        name, dims = a["path"], a["dimension_names"]
        arr = group[name]
        got = np.asarray(arr[...])
        axes = [dims.index(d) if d in dims else None for d in (rows, cols)]
        if axes == [None, None]:
            want = np.asarray(source_values(sources[0], name))
            d = same(got, want)
            if d:
                errors.append(f"{name}: {d}")
            continue
        want = None
        covered = np.zeros(got.shape, dtype=bool)
        for t in mosaic["tiles"]:
            vals = np.asarray(source_values(sources[t["source"]], name))
            if want is None:
                want = np.full(got.shape, arr.fill_value, dtype=vals.dtype)
            idx = [slice(None)] * got.ndim
            for m, ax in enumerate(axes):
                if ax is not None:
                    idx[ax] = slice(t["offset"][m], t["offset"][m] + vals.shape[ax])
            want[tuple(idx)] = vals
            covered[tuple(idx)] = True
        if got.ndim == 1:
            d = same(got[covered], want[covered])
        else:
            d = same(got, want)
            if d is None and not covered.all() and not np.all((got[~covered] == arr.fill_value) |
                                                               (np.isnan(got[~covered]) if got.dtype.kind == "f" else False)):
                d = "gap cells do not read as the fill value"
        if d:
            errors.append(f"{name}: {d}")
        if got.ndim >= 2 and "spatial:transform" in arr.attrs:
            coords = arr.attrs.get("coords:coordinates", {})
            if coords.get(rows, {}).get("convention") != "spatial":
                errors.append(f"{name}: no spatial coordinate reference for {rows}")
    return errors


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--vzplan", required=True)
    ap.add_argument("--cases", default=str(Path(__file__).resolve().parent.parent / "testdata/collections/cases.json"))
    ap.add_argument("--only", default="*")
    args = ap.parse_args()
    cases_path = Path(args.cases)
    spec = json.loads(cases_path.read_text())
    passed = failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for case in spec["cases"]:
            if not fnmatch.fnmatch(case["name"], args.only):
                continue
            errs = check_case(args.vzplan, cases_path.parent, case, Path(tmp))
            if errs:
                failed += 1
                print(f"FAIL {case['name']}")
                for e in errs:
                    print("  " + e.replace("\n", "\n  "))
            else:
                passed += 1
                print(f"ok   {case['name']}")
    print(f"readback: {passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
