"""xarray read-back: every collection of a cases file, built with vzplan, opened the way users open
virtual datasets (`xr.open_zarr` over fsspec's ReferenceFileSystem, Zarr v3, rectilinear chunks
enabled), consolidated and not, and compared with xarray's view of the sources.

    .venv/bin/python scripts/readback_xarray.py --vzplan target/debug/vzplan [--cases testdata/collections/cases.json]

Per built case:
- netCDF sources: `xr.testing.assert_equal` against `xr.open_mfdataset(files, engine="netcdf4",
  combine="nested", concat_dim=<concat dim>, data_vars="minimal")` (`xr.open_dataset` for one file),
  restricted to the variables vzplan built, with CF decoding on both sides (masking by the encoded
  `_FillValue`, times as datetimes); plus: time decodes to datetime64, 1-D dimension coordinates are
  indexes, and every dask-backed variable's chunks are exactly the refs' chunk grid;
- sources netCDF4-python cannot open as a dataset (plain HDF5 files): the dataset must open, and
  every variable equals what zarr-python reads from the same refs (scripts/readback.py compares
  those with h5py);
- TIFF sources: the root opens as a dataset (no conflicting dimension sizes), each array (overview
  levels in their own groups) equals tifffile's decoded image.
Cases whose build exits 1 (nothing written) are skipped. Exits 1 on any failure.
"""

import argparse
import fnmatch
import glob
import json
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

import fsspec
import numpy as np
import xarray as xr
import zarr
import zarr.storage

zarr.config.set({"array.rectilinear_chunks": True})
try:  # TIFF LZW / PackBits / predictor codecs
    import imagecodecs.zarr

    imagecodecs.zarr.register_codecs(verbose=False)
except (ImportError, AttributeError):
    pass

sys.path.insert(0, str(Path(__file__).resolve().parent))
from readback_tiff import expected_arrays  # noqa: E402  (tifffile's view, under vzplan's names)

warnings.filterwarnings("ignore", category=RuntimeWarning)


def store_for(refs_path, consolidated_doc=None):
    """FsspecStore over refs.json; with `consolidated_doc`, its root zarr.json is replaced by the
    consolidated document vzplan writes beside refs.json."""
    fo = str(refs_path)
    if consolidated_doc is not None:
        fo = json.loads(Path(refs_path).read_text())
        fo["refs"]["zarr.json"] = json.dumps(consolidated_doc)
    fs = fsspec.filesystem("reference", fo=fo, remote_protocol="file", asynchronous=True)
    return zarr.storage.FsspecStore(fs, read_only=True, path="")


def open_built(refs_path, consolidated_doc, **kw):
    out = {}
    out["plain"] = xr.open_zarr(store_for(refs_path), zarr_format=3, consolidated=False, **kw)
    out["consolidated"] = xr.open_zarr(store_for(refs_path, consolidated_doc), zarr_format=3,
                                       consolidated=True, **kw)
    return out


def expand(grid):
    """The chunk lengths along each axis of a `chunk_grid` object (RLE expanded)."""
    if grid["name"] == "regular":
        return None
    axes = []
    for ax in grid["configuration"]["chunk_shapes"]:
        if isinstance(ax, int):
            axes.append(ax)
            continue
        lens = []
        for e in ax:
            lens.extend([e[0]] * e[1] if isinstance(e, list) else [e])
        axes.append(lens)
    return axes


def check_chunks(ds, report):
    errors = []
    for a in report["arrays"]:
        name = a["path"]
        if name not in ds.variables or ds[name].chunks is None:
            continue
        want = expand(a["chunk_grid"])
        got = ds[name].chunks
        if want is None:
            step = a["chunk_grid"]["configuration"]["chunk_shape"]
            ok = all(all(c == s for c in cs[:-1]) and cs[-1] <= s for cs, s in zip(got, step))
        else:
            ok = True
            for cs, w, n in zip(got, want, ds[name].shape):
                if isinstance(w, int):
                    ok &= all(c == w for c in cs[:-1]) and cs[-1] <= w
                else:
                    # Dask clips the last chunk to the array's end.
                    ok &= list(cs[:-1]) == w[: len(cs) - 1] and sum(cs) == n
        if not ok:
            errors.append(f"{name}: dask chunks {got}, grid {a['chunk_grid']}")
    return errors


def check_netcdf(case, report, inputs, built, ds_by_mode):
    errors = []
    concat = report.get("concat_dim")
    try:
        if len(inputs) > 1:
            want = xr.open_mfdataset(inputs, engine="netcdf4", combine="nested", concat_dim=concat,
                                     data_vars="minimal", coords="minimal", compat="override")
        else:
            want = xr.open_dataset(inputs[0], engine="netcdf4")
    except (OSError, ValueError, KeyError) as e:
        return None, [f"sources: {type(e).__name__}: {e}"]
    keep = [v for v in want.variables if v in built]
    extra = sorted(set(built) - set(want.variables))
    want = want[keep] if keep else want
    if extra:
        errors.append(f"built arrays that xarray does not see in the sources: {extra}")
    for mode, ds in ds_by_mode.items():
        got = ds[[v for v in keep if v not in ds.dims or v in ds.variables]]
        try:
            xr.testing.assert_equal(got.load(), want.load())
        except AssertionError as e:
            errors.append(f"[{mode}] not equal to open_mfdataset:\n{str(e)[:3000]}")
        if "time" in ds.variables and "since" in str(want["time"].encoding.get("units", "")):
            if ds["time"].dtype.kind != "M":
                errors.append(f"[{mode}] time is {ds['time'].dtype}, not datetime64")
        for d in ds.dims:
            if d in ds.variables and ds[d].ndim == 1 and d not in ds.indexes:
                errors.append(f"[{mode}] {d} is not an index coordinate")
    return want, errors


def check_same_as_zarr(refs_path, consolidated_doc):
    """Undecoded (decode_cf=False) xarray values equal zarr-python's, consolidated and not."""
    errors = []
    fs = fsspec.filesystem("reference", fo=str(refs_path), remote_protocol="file", asynchronous=True)
    group = zarr.open_group(zarr.storage.FsspecStore(fs, read_only=True), mode="r", zarr_format=3)
    for mode, ds in open_built(refs_path, consolidated_doc, decode_cf=False).items():
        for name in ds.variables:
            got = np.asarray(ds[name].values)
            want = group[name][...]
            if got.shape != want.shape or not np.array_equal(got, want, equal_nan=got.dtype.kind == "f"):
                errors.append(f"[{mode}] {name}: xarray and zarr-python read different values")
    return errors


def check_tiff(refs_path, consolidated_doc, inputs, report):
    """Raw values (no masking) against tifffile; every group that holds arrays opens as a dataset."""
    errors = []
    want_all = {}
    sources = inputs
    stack = report.get("stack_dim")
    for s in sources:
        for k, v in expected_arrays(s).items():
            want_all.setdefault(k, []).append(v)
    groups = sorted({a["path"].rsplit("/", 1)[0] if "/" in a["path"] else "" for a in report["arrays"]})
    for g in groups:
        for mode, cons in (("plain", None), ("consolidated", consolidated_doc)):
            kw = {"group": g} if g else {}
            try:
                ds = xr.open_zarr(store_for(refs_path, cons), zarr_format=3, mask_and_scale=False,
                                  consolidated=cons is not None, **kw)
            except Exception as e:  # noqa: BLE001  (report any failure to open)
                errors.append(f"[{mode}] group {g or '/'}: does not open: {type(e).__name__}: {e}")
                continue
            for name in ds.data_vars:
                path = f"{g}/{name}" if g else name
                vals = want_all.get(path)
                if vals is None:
                    errors.append(f"[{mode}] {path}: no tifffile array of that name")
                    continue
                want = np.stack(vals) if stack and len(vals) > 1 else vals[0]
                got = np.asarray(ds[name].values)
                if got.shape != want.shape or not np.array_equal(got, want):
                    errors.append(f"[{mode}] {path}: differs from tifffile ({got.shape} vs {want.shape})")
    return errors


def check_case(vzplan, base, case, workdir):
    inputs = []
    for pat in case["inputs"]:
        inputs.extend(sorted(glob.glob(str(base / pat))))
    out = workdir / f"{case['name']}.json"
    args = [a.replace("{base}", str(base)) for a in case.get("args", [])]
    p = subprocess.run([vzplan, "build", *inputs, "-o", str(out), "--json", *args],
                       capture_output=True, text=True)
    if p.returncode != case["exit"]:
        return [f"exit code {p.returncode}, expected {case['exit']}\n{p.stderr}"]
    if case["exit"] == 1:
        return None
    report = json.loads(p.stdout)
    built = [a["path"] for a in report["arrays"]]
    consolidated_doc = json.loads((workdir / f"{case['name']}.zarr.json").read_text())
    # The sources vzplan built from (files it could not read are left out, with findings).
    inputs = [s["url"].removeprefix("file://") for s in consolidated_doc["attributes"]["vzplan"]["sources"]]
    if all(i.lower().endswith((".tif", ".tiff")) for i in inputs):
        return check_tiff(out, consolidated_doc, inputs, report)
    try:
        ds_by_mode = open_built(out, consolidated_doc)
    except Exception as e:  # noqa: BLE001  (report any failure to open)
        return [f"xr.open_zarr failed: {type(e).__name__}: {e}"]
    errors = []
    for mode, ds in ds_by_mode.items():
        errors += [f"[{mode}] {e}" for e in check_chunks(ds, report)]
    want, errs = check_netcdf(case, report, inputs, built, ds_by_mode)
    if want is None:
        # Not a netCDF dataset (plain HDF5): xarray must read what zarr-python reads.
        return errors + check_same_as_zarr(out, consolidated_doc)
    return errors + errs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--vzplan", required=True)
    ap.add_argument("--cases", default=str(Path(__file__).resolve().parent.parent /
                                           "testdata/collections/cases.json"))
    ap.add_argument("--only", default="*")
    args = ap.parse_args()
    cases_path = Path(args.cases)
    spec = json.loads(cases_path.read_text())
    passed = failed = skipped = 0
    with tempfile.TemporaryDirectory() as tmp:
        for case in spec["cases"]:
            if not fnmatch.fnmatch(case["name"], args.only):
                continue
            errs = check_case(args.vzplan, cases_path.parent, case, Path(tmp))
            if errs is None:
                skipped += 1
                print(f"skip {case['name']} (nothing built)")
            elif errs:
                failed += 1
                print(f"FAIL {case['name']}")
                for e in errs:
                    print("  " + e.replace("\n", "\n  "))
            else:
                passed += 1
                print(f"ok   {case['name']}")
    print(f"readback_xarray: {passed} passed, {failed} failed, {skipped} skipped")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
