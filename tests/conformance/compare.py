"""Comparing what a reader returns with what the sources hold: `same` for two arrays, the expected
array of a built collection (stacked, concatenated, rebased times) and of a mosaic."""

from __future__ import annotations

import numpy as np

from .sources import rebased_times, source_values


def text(x) -> str:
    return x.decode("utf-8") if isinstance(x, bytes) else str(x)


def same(a: np.ndarray, b: np.ndarray) -> str | None:
    """None when `a` and `b` hold the same values (NaN equal to NaN), else what differs first."""
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


def expected(arr, a: dict, report: dict, sources: list[str], case: dict) -> np.ndarray:
    """What built array `a` (a report entry; `arr` its zarr array) must hold: the sources' values
    stacked along the stack dimension, concatenated along the concat dimension, or one file's;
    rebased times as instants in the output's units."""
    name, dims = a["path"], a["dimension_names"]
    concat = report["concat_dim"]
    if name == concat and case.get("time") == "rebased":
        return rebased_times(sources, name, arr.attrs["units"], arr.attrs.get("calendar", "standard"))
    if report.get("stack_dim") and report["stack_dim"] == dims[0] and len(sources) > 1:
        return np.stack([source_values(s, name) for s in sources])
    if concat in dims and len(sources) > 1:
        return np.concatenate([source_values(s, name) for s in sources], axis=dims.index(concat))
    return source_values(sources[0], name)


def missing_concat_coordinate(arr, a: dict, report: dict, built: list[str]) -> str | None:
    """An array along the concat dimension must name the concat coordinate in coords:coordinates."""
    concat = report["concat_dim"]
    name, dims = a["path"], a["dimension_names"]
    if name != concat and concat in dims and concat in built:
        if concat not in arr.attrs.get("coords:coordinates", {}):
            return f"{name}: no coords:coordinates entry for {concat}"
    return None


# The coordinates and grid mapping vzplan adds to a GeoTIFF image's group.
GEO_COORDINATES = {"spatial_ref", "x", "y", "band"}


def check_mosaic(group, report: dict, sources: list[str], mosaic: dict) -> list[str]:
    """The expected array is every tile placed at its offset, in input order (the last file wins
    where tiles overlap), and the fill value where no tile is; 1-D coordinates along a mosaic axis
    are compared where a tile covers them."""
    errors = []
    rows, cols = mosaic["dims"]
    for a in report["arrays"]:
        name, dims = a["path"], a["dimension_names"]
        if name.rsplit("/", 1)[-1] in GEO_COORDINATES:
            continue  # computed from the georeferencing: test_geo.py checks them against rioxarray
        arr = group[name]
        got = np.asarray(arr[...])
        axes = [dims.index(d) if d in dims else None for d in (rows, cols)]
        if axes == [None, None]:
            d = same(got, np.asarray(source_values(sources[0], name)))
        else:
            d = _mosaic_differs(arr, got, name, axes, mosaic, sources)
        if d:
            errors.append(f"{name}: {d}")
        if got.ndim >= 2 and "spatial:transform" in arr.attrs:
            coords = arr.attrs.get("coords:coordinates", {})
            if coords.get(rows, {}).get("convention") != "spatial":
                errors.append(f"{name}: no spatial coordinate reference for {rows}")
    return errors


def _mosaic_differs(arr, got, name, axes, mosaic, sources) -> str | None:
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
        return same(got[covered], want[covered])
    d = same(got, want)
    if d is None and not covered.all() and not np.all((got[~covered] == arr.fill_value) |
                                                       (np.isnan(got[~covered]) if got.dtype.kind == "f" else False)):
        d = "gap cells do not read as the fill value"
    return d
