"""vzplan.open_dataset equals xr.open_mfdataset on every shipped netCDF collection both can open."""

from __future__ import annotations

import warnings

import pytest
import xarray as xr

import vzplan
from conftest import CASES, case_files, case_inputs, case_kwargs

# xarray opens netCDF (and netCDF-4/HDF5) files, not TIFFs.
NETCDF = [c for c in CASES if all(p.endswith((".nc", ".h5")) for p in c["inputs"])]


def open_mfdataset(files, ds):
    """xarray's own combination (by coordinates); files without a coordinate along the
    concatenated dimension are combined in order along it, as vzplan does."""
    try:
        return xr.open_mfdataset(files, engine="netcdf4")
    except ValueError as e:
        if "dimension coordinates" not in str(e):
            raise
        dim = ds.attrs["vzplan"]["concat_dim"]
        return xr.open_mfdataset(
            files, engine="netcdf4", combine="nested", concat_dim=dim, data_vars="minimal"
        )


@pytest.mark.parametrize("case", NETCDF, ids=[c["name"] for c in NETCDF])
def test_open_dataset_equals_open_mfdataset(case):
    kw = case_kwargs(case)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ds = vzplan.open_dataset(case_inputs(case), **kw)
    findings = [w for w in caught if issubclass(w.category, vzplan.FindingWarning)]
    # Every finding the CLI reports is a warning here.
    assert len(findings) == len(case["findings"]), [str(w.message) for w in findings]
    assert sorted(ds.variables) == sorted(case["arrays"])
    try:
        ref = open_mfdataset(case_files(case), ds)
    except Exception as e:  # noqa: BLE001  (xarray's reason is the skip's reason)
        pytest.skip(f"xr.open_mfdataset cannot open {case['name']}: {type(e).__name__}: {e}")
    # Variables vzplan left out (exit code 3) are compared by name only.
    assert set(ds.variables) <= set(ref.variables)
    ref = ref.drop_vars([v for v in ref.data_vars if v not in ds.data_vars])
    xr.testing.assert_equal(ds.load(), ref.load())
    # Attributes: the files' own, plus only the provenance vzplan writes anyway.
    for name, v in ref.variables.items():
        extra = set(ds[name].attrs) - set(v.attrs)
        assert extra <= {"coords:coordinates", "coords:version", "zarr_conventions"}, extra
        ours = ds[name].variable.copy()
        ours.attrs = {k: a for k, a in ours.attrs.items() if k in v.attrs}
        xr.testing.assert_identical(ours, v)
    assert set(ds.attrs) - set(ref.attrs) <= {"vzplan"}


def test_findings_are_warnings_not_attrs():
    case = next(c for c in CASES if c["name"] == "padded")
    with pytest.warns(vzplan.FindingWarning, match="tas"):
        ds = vzplan.open_dataset(case_inputs(case))
    assert "tas" not in ds
    assert not any("finding" in k for k in ds.attrs)
