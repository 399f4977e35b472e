"""xarray read-back: every collection case built with vzplan, opened the way users open virtual
datasets (`xr.open_zarr` over fsspec's ReferenceFileSystem, Zarr v3, rectilinear chunks), with the
refs' own root zarr.json and with the consolidated one, and compared with xarray's view of the
sources:

- netCDF sources: `xr.testing.assert_equal` against `xr.open_mfdataset(files, engine="netcdf4",
  combine="nested", concat_dim=<concat dim>, data_vars="minimal")` (`xr.open_dataset` for one
  file), restricted to the variables vzplan built, CF decoding on both sides; times decode to
  datetime64, 1-D dimension coordinates are indexes, dask chunks are the refs' chunk grid;
- sources netCDF4-python cannot open as a dataset (plain HDF5): every variable equals what
  zarr-python reads from the same refs (test_readback compares those with h5py);
- TIFF sources: every group with arrays opens as a dataset and equals tifffile's image.
Cases whose build exits 1 (nothing written) are skipped."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import xarray as xr

from .helpers import case_args, case_inputs, case_params, fail_on, open_refs, reference_store, run
from .sources import tiff_arrays

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")


def store_for(refs_path, consolidated_doc=None):
    """The refs' store; with `consolidated_doc`, its root zarr.json replaced by the consolidated
    document vzplan writes beside refs.json."""
    fo = refs_path
    if consolidated_doc is not None:
        fo = json.loads(Path(refs_path).read_text())
        fo["refs"]["zarr.json"] = json.dumps(consolidated_doc)
    return reference_store(fo)


def open_built(refs_path, consolidated_doc, **kw) -> dict:
    return {
        "plain": xr.open_zarr(store_for(refs_path), zarr_format=3, consolidated=False, **kw),
        "consolidated": xr.open_zarr(store_for(refs_path, consolidated_doc), zarr_format=3,
                                     consolidated=True, **kw),
    }


def grid_axes(grid: dict):
    """The chunk lengths along each axis of a rectilinear `chunk_grid` (runs expanded; a bare
    integer stays one); None for a regular grid."""
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


def chunks_match(got, grid: dict, shape) -> bool:
    want = grid_axes(grid)
    if want is None:
        step = grid["configuration"]["chunk_shape"]
        return all(all(c == s for c in cs[:-1]) and cs[-1] <= s for cs, s in zip(got, step))
    ok = True
    for cs, w, n in zip(got, want, shape):
        if isinstance(w, int):
            ok &= all(c == w for c in cs[:-1]) and cs[-1] <= w
        else:
            # Dask clips the last chunk to the array's end.
            ok &= list(cs[:-1]) == w[: len(cs) - 1] and sum(cs) == n
    return ok


def check_chunks(ds, report) -> list[str]:
    errors = []
    for a in report["arrays"]:
        name = a["path"]
        if name not in ds.variables or ds[name].chunks is None:
            continue
        if not chunks_match(ds[name].chunks, a["chunk_grid"], ds[name].shape):
            errors.append(f"{name}: dask chunks {ds[name].chunks}, grid {a['chunk_grid']}")
    return errors


def open_sources(inputs, concat):
    if len(inputs) > 1:
        return xr.open_mfdataset(inputs, engine="netcdf4", combine="nested", concat_dim=concat,
                                 data_vars="minimal", coords="minimal", compat="override")
    return xr.open_dataset(inputs[0], engine="netcdf4")


def check_netcdf(report, inputs, built, ds_by_mode):
    """(the sources' dataset or None when xarray cannot open them, errors)."""
    errors = []
    try:
        want = open_sources(inputs, report.get("concat_dim"))
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


def check_same_as_zarr(refs_path, consolidated_doc) -> list[str]:
    """Undecoded (decode_cf=False) xarray values equal zarr-python's, consolidated and not."""
    errors = []
    group = open_refs(refs_path)
    for mode, ds in open_built(refs_path, consolidated_doc, decode_cf=False).items():
        for name in ds.variables:
            got = np.asarray(ds[name].values)
            want = group[name][...]
            if got.shape != want.shape or not np.array_equal(got, want, equal_nan=got.dtype.kind == "f"):
                errors.append(f"[{mode}] {name}: xarray and zarr-python read different values")
    return errors


def check_tiff(refs_path, consolidated_doc, inputs, report) -> list[str]:
    """Raw values (no masking) against tifffile; every group that holds arrays opens as a dataset."""
    errors = []
    want_all = {}
    for s in inputs:
        for k, v in tiff_arrays(s).items():
            want_all.setdefault(k, []).append(v)
    groups = sorted({a["path"].rsplit("/", 1)[0] if "/" in a["path"] else "" for a in report["arrays"]})
    for g in groups:
        for mode, cons in (("plain", None), ("consolidated", consolidated_doc)):
            errors += check_tiff_group(refs_path, g, mode, cons, want_all, report.get("stack_dim"))
    return errors


def check_tiff_group(refs_path, g, mode, cons, want_all, stack) -> list[str]:
    errors = []
    kw = {"group": g} if g else {}
    try:
        ds = xr.open_zarr(store_for(refs_path, cons), zarr_format=3, mask_and_scale=False,
                          consolidated=cons is not None, **kw)
    except Exception as e:  # noqa: BLE001  (report any failure to open)
        return [f"[{mode}] group {g or '/'}: does not open: {type(e).__name__}: {e}"]
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


@pytest.mark.parametrize("kind, case", case_params("collections"))
def test_xarray(vzplan, kind, case, tmp_path):
    out = tmp_path / f"{case['name']}.json"
    p = run([vzplan, "build", *case_inputs(kind, case), "-o", out, "--json", *case_args(kind, case)])
    if p.returncode != case["exit"]:
        fail_on([f"exit code {p.returncode}, expected {case['exit']}\n{p.stderr}"])
    if case["exit"] == 1:
        pytest.skip("nothing built")
    report = json.loads(p.stdout)
    built = [a["path"] for a in report["arrays"]]
    consolidated_doc = json.loads((tmp_path / f"{case['name']}.zarr.json").read_text())
    # The sources vzplan built from (files it could not read are left out, with findings).
    inputs = [s["url"].removeprefix("file://") for s in consolidated_doc["attributes"]["vzplan"]["sources"]]
    if all(i.lower().endswith((".tif", ".tiff")) for i in inputs):
        fail_on(check_tiff(out, consolidated_doc, inputs, report))
        return
    try:
        ds_by_mode = open_built(out, consolidated_doc)
    except Exception as e:  # noqa: BLE001  (report any failure to open)
        fail_on([f"xr.open_zarr failed: {type(e).__name__}: {e}"])
    errors = []
    for mode, ds in ds_by_mode.items():
        errors += [f"[{mode}] {e}" for e in check_chunks(ds, report)]
    want, errs = check_netcdf(report, inputs, built, ds_by_mode)
    if want is None:
        # Not a netCDF dataset (plain HDF5): xarray must read what zarr-python reads.
        errs = check_same_as_zarr(out, consolidated_doc)
    fail_on(errors + errs)
