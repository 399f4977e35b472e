"""vzplan.open_dataset on the geospatial inputs, as a Python user opens them: a COG's full
resolution with its georeferencing (equal to rioxarray's), a stack of scenes with a time
coordinate from their names, and a DMR++ sidecar standing for its granule (equal to h5py)."""

from __future__ import annotations

import h5py
import numpy as np
import pytest

import vzplan
from conftest import ROOT

GEO = ROOT / "testdata" / "geo"
rioxarray = pytest.importorskip("rioxarray")


def test_a_cog_opens_at_full_resolution_with_its_georeferencing():
    ds = vzplan.open_dataset(str(GEO / "cog_u16.tif"))
    da = next(v for v in ds.data_vars.values() if v.ndim >= 2)
    # Masked and scaled, as open_dataset decodes with xarray's defaults.
    want = rioxarray.open_rasterio(GEO / "cog_u16.tif", mask_and_scale=True)
    np.testing.assert_array_equal(ds["x"].values, want["x"].values)
    np.testing.assert_array_equal(ds["y"].values, want["y"].values)
    assert da.rio.crs == want.rio.crs
    assert da.rio.transform() == want.rio.transform()
    # rioxarray scales in float32, xarray in float64 (the scale and offset are JSON doubles).
    np.testing.assert_allclose(da.transpose(*want.dims).values, want.values, rtol=1e-6, atol=1e-6)


def test_scenes_stack_along_a_time_coordinate_from_their_names():
    files = sorted(str(p) for p in (GEO / "scenes").glob("*.tif"))[::-1]  # given out of order
    ds = vzplan.open_dataset(files, stack_coord="time=%Y%m%d")
    assert ds["time"].dtype.kind == "M"
    assert [str(t)[:10] for t in ds["time"].values] == ["2024-01-01", "2024-01-02", "2024-01-03"]
    da = next(v for v in ds.data_vars.values() if "time" in v.dims and v.ndim >= 3)
    for i, day in enumerate(("20240101", "20240102", "20240103")):
        want = rioxarray.open_rasterio(GEO / "scenes" / f"scene_{day}.tif")
        np.testing.assert_array_equal(np.squeeze(da.isel(time=i).values), np.squeeze(want.values))


def test_a_dmrpp_sidecar_opens_as_its_granule():
    ds = vzplan.open_dataset(str(ROOT / "testdata" / "dmrpp" / "grid.nc.dmrpp"))
    with h5py.File(ROOT / "testdata" / "dmrpp" / "data" / "grid.nc", "r") as f:
        want = f["tas"][()]
    np.testing.assert_array_equal(ds["tas"].values, want)
