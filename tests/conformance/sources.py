"""The source files as their own libraries read them: netCDF4-python, h5py (with hdf5plugin's
filters) and tifffile, under the array names vzplan gives them."""

from __future__ import annotations

import os

import numpy as np
import tifffile

from .helpers import fixture_generator

try:  # registers the Blosc, LZ4, bitshuffle… filters with h5py (not in the real-world venv)
    import hdf5plugin  # noqa: F401
except ImportError:
    pass


def is_tiff(path: str) -> bool:
    return path.lower().endswith((".tif", ".tiff"))


def source_values(path: str, var: str) -> np.ndarray:
    """Raw stored values (no masking or scaling), as the libraries read them."""
    import h5py
    import netCDF4

    if is_tiff(path):
        return tiff_arrays(path)[var]
    try:
        with netCDF4.Dataset(path) as ds:
            v = ds[var]
            v.set_auto_maskandscale(False)
            return np.asarray(v[...])
    except (OSError, IndexError, KeyError, RuntimeError):
        with h5py.File(path, "r") as f:
            return f[var][...]


def source_fill(path: str, var: str):
    """The variable's _FillValue as netCDF4-python sees it (None for TIFF and plain HDF5)."""
    import netCDF4

    if is_tiff(path):
        return None
    try:
        with netCDF4.Dataset(path) as ds:
            return getattr(ds[var], "_FillValue", None)
    except (OSError, IndexError, KeyError, RuntimeError):
        return None


def netcdf_values(paths: list[str], var: str, concat: str | None) -> np.ndarray:
    """netCDF4-python's raw values of `var`, concatenated along `concat` over several files."""
    import netCDF4

    parts = []
    for p in paths:
        with netCDF4.Dataset(p) as ds:
            v = ds[var]
            v.set_auto_maskandscale(False)
            parts.append((np.asarray(v[...]), list(v.dimensions)))
    data, dims = parts[0]
    if len(parts) > 1 and concat in dims:
        data = np.concatenate([d for d, _ in parts], axis=dims.index(concat))
    return data


def rebased_times(sources: list[str], name: str, units: str, calendar: str) -> np.ndarray:
    """Times of sources counting from different dates, as instants in the output's units."""
    import netCDF4

    parts = []
    for s in sources:
        with netCDF4.Dataset(s) as ds:
            t = ds[name]
            dates = netCDF4.num2date(t[:], t.units, calendar)
            parts.append(np.asarray(netCDF4.date2num(dates, units, calendar), dtype=t.dtype))
    return np.concatenate(parts)


def _overview_name(page: int, n: int) -> str:
    return f"overview_{n}/0" if page == 0 else f"{page}_overview_{n}/{page}"


def tiff_arrays(path: str) -> dict[str, np.ndarray]:
    """tifffile's decoded data under the Rust reader's array names: pages `0`, `1`…, overviews
    `overview_N/0`, SubIFDs `P_subifd_J`, and `pages` when every page has one shape and dtype;
    page 0 also as `0/0` when it is georeferenced and has overviews (a GeoTIFF pyramid's
    full-resolution level)."""
    out: dict[str, np.ndarray] = {}
    fallback = None
    if os.path.basename(path).startswith("strips_padded_last"):
        # tifffile cannot decode these; the written data is the generator's.
        fallback = fixture_generator("tiff").ramp((120, 16), "u1")[:100]

    def decode(page):
        try:
            return page.asarray()
        except Exception:
            return fallback

    with tifffile.TiffFile(path) as tif:
        pages, counters, last = [], {}, None
        for i, page in enumerate(tif.pages):
            st = int(page.subfiletype)
            owner = None
            if st & 4:
                pass
            elif st & 1:
                owner = last if last is not None else 0
                counters[owner] = counters.get(owner, 0) + 1
                out[_overview_name(owner, counters[owner])] = decode(page)
            else:
                owner = len(pages)
                arr = decode(page)
                out[str(owner)] = arr
                pages.append(arr)
                last = owner
            if owner is not None:
                _sub_ifds(tif, i, page, owner, counters, out, decode)
        if len(pages) > 1 and all(p is not None and p.shape == pages[0].shape
                                  and p.dtype == pages[0].dtype for p in pages):
            out["pages"] = np.stack(pages)
    if "0" in out and "overview_1/0" in out and _georeferenced(path):
        # The planner moves page 0 of a georeferenced pyramid into the level group `0`.
        out["0/0"] = out["0"]
    return out


def _georeferenced(path: str) -> bool:
    """Whether page 0 carries a GeoTIFF geotransform (tie point and pixel scale, or a matrix)."""
    with tifffile.TiffFile(path) as tif:
        tags = tif.pages[0].tags
        return 34264 in tags or (33922 in tags and 33550 in tags)


def _sub_ifds(tif, i, page, owner, counters, out, decode):
    for j, off in enumerate(page.subifds or ()):
        tif.filehandle.seek(off)
        sub = tifffile.TiffPage(tif, index=(i, j))
        sst = int(sub.subfiletype)
        if sst & 4:
            continue
        if sst & 1:
            counters[owner] = counters.get(owner, 0) + 1
            out[_overview_name(owner, counters[owner])] = decode(sub)
        else:
            out[f"{owner}_subifd_{j}"] = decode(sub)
