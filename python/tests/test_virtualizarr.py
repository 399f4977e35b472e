"""vzplan.VirtualiZarrParser in virtualizarr.open_virtual_dataset reads back equal to the file."""

from __future__ import annotations

import pytest
import xarray as xr

import vzplan
from conftest import COLLECTIONS, ROOT

virtualizarr = pytest.importorskip("virtualizarr")

FILES = [
    COLLECTIONS / "yearly" / "tas_day_2001.nc",
    ROOT / "testdata" / "netcdf3" / "classic_fixed.nc",
]


def registry():
    from obspec_utils.registry import ObjectStoreRegistry
    from obstore.store import LocalStore

    return ObjectStoreRegistry({"file://": LocalStore()})


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_virtual_dataset_reads_back_equal(path):
    assert path.exists(), path
    url = path.as_uri()
    reg = registry()
    parser = vzplan.VirtualiZarrParser()
    store = parser(url, reg)
    with xr.open_zarr(store, consolidated=False, zarr_format=3) as ds, xr.open_dataset(
        path, engine="netcdf4"
    ) as ref:
        xr.testing.assert_equal(ds.load(), ref.load())
    vds = virtualizarr.open_virtual_dataset(url, registry=reg, parser=parser)
    assert set(vds.variables) == set(ref.variables)


def test_irregular_grids_are_refused():
    from vzplan._virtualizarr import _regular_grid

    meta = {"shape": [10], "chunk_grid": {"name": "rectilinear",
            "configuration": {"kind": "inline", "chunk_shapes": [[4, 6]]}}}
    with pytest.raises(ValueError, match="regular chunk grids only"):
        _regular_grid(meta)
    meta["chunk_grid"]["configuration"]["chunk_shapes"] = [[[4, 2], 2]]
    assert _regular_grid(meta) == [4]
