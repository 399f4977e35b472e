"""Files that name other files, and the attributes and fill values real writers leave, read back
the way users read: every array vzplan builds from HDF5 soft, hard and external links and from
virtual datasets equals what h5py reads through the same names; netCDF classic variables whose
_FillValue has another type read through xarray as xarray reads the file itself; PyTables'
files as h5py reads them."""

from __future__ import annotations

import json
import subprocess
import warnings

import h5py
import numpy as np
import pytest
import xarray as xr

from .helpers import ROOT, open_refs, reference_store

LINKS = ROOT / "testdata/hdf5/links"
VDS = ROOT / "testdata/hdf5/vds"


def build(vzplan, tmp_path, src, *extra) -> tuple[int, str]:
    out = tmp_path / "refs.json"
    r = subprocess.run([vzplan, "build", str(src), "-o", str(out), *extra],
                       capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


@pytest.mark.parametrize("name", ["links_latest.h5", "links_earliest.h5"])
def test_every_name_h5py_opens_reads_the_same(vzplan, tmp_path, name):
    code, out = build(vzplan, tmp_path, LINKS / name, "--sources-under", str(LINKS))
    # Left out: a link to a missing file and a dangling one, named in the findings.
    assert code == 3, out
    assert "ext_missing" in out and "dangling" in out
    g = open_refs(tmp_path / "refs.json")
    with h5py.File(LINKS / name) as f:
        names = []
        f.visit(names.append)
        names += ["ext", "soft_grp/v", "soft_grp/rel"]
        for n in names:
            obj = f.get(n)
            if not isinstance(obj, h5py.Dataset):
                continue
            got = g[n][...]
            assert np.array_equal(got, obj[...]), n


@pytest.mark.parametrize("name", ["vds_aligned.h5", "vds_unlimited.h5"])
def test_virtual_datasets_read_as_h5py_reads_them(vzplan, tmp_path, name):
    code, out = build(vzplan, tmp_path, VDS / name, "--sources-under", str(VDS))
    assert code == 0, out
    g = open_refs(tmp_path / "refs.json")
    oracle = json.loads((VDS / f"{name}.vds.json").read_text())
    with h5py.File(VDS / name) as f:
        for path in oracle["datasets"]:
            want = f[path][...]
            got = g[path][...]
            assert got.shape == want.shape, path
            assert np.array_equal(got, want, equal_nan=True), path
            # Where no source maps, the virtual dataset's fill value, as h5py reads it.
            assert np.array_equal(np.asarray(g[path].fill_value), np.asarray(f[path].fillvalue),
                                  equal_nan=True) or f[path].fillvalue is None, path


def test_virtual_datasets_vzplan_cannot_reference_are_named(vzplan, tmp_path):
    code, out = build(vzplan, tmp_path, VDS / "vds_unaligned.h5", "--sources-under", str(VDS))
    assert code == 1, out  # nothing could be built
    assert "src_0.h5:data" in out and "not on the boundaries of its chunks" in out
    code, out = build(vzplan, tmp_path, VDS / "vds_missing.h5", "--sources-under", str(VDS))
    assert "missing_9.h5" in out, out
    # Not named, the sources are not read, and the finding says how to name them.
    code, out = build(vzplan, tmp_path, VDS / "vds_aligned.h5")
    assert code == 3 and "--sources-under" in out, out


@pytest.mark.parametrize("name", ["eraint_like.nc", "mismatched.nc"])
def test_fill_values_of_another_type_read_as_xarray_reads_the_file(vzplan, tmp_path, name):
    src = ROOT / "testdata/netcdf3/fill_types" / name
    code, out = build(vzplan, tmp_path, src)
    assert code in (0, 3), out
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        z = xr.open_zarr(reference_store(tmp_path / "refs.json"), consolidated=False, zarr_format=3)
        n = xr.open_dataset(src)
        for v in n.data_vars:
            assert np.array_equal(z[v].values, n[v].values, equal_nan=True), v


@pytest.mark.parametrize("name", ["attr-u16.h5", "pytables.h5"])
def test_pytables_files_read_as_h5py_reads_them(vzplan, tmp_path, name):
    src = ROOT / "testdata/hdf5/pytables" / name
    code, out = build(vzplan, tmp_path, src)
    assert code in (0, 3), out
    g = open_refs(tmp_path / "refs.json")
    with h5py.File(src) as f:
        datasets = []
        f.visititems(lambda n, o: datasets.append(n) if isinstance(o, h5py.Dataset) else None)
        for n in datasets:
            assert np.array_equal(g[n][...], f[n][...]), n


def test_files_linking_to_each_other_are_read_once_each(vzplan, tmp_path):
    """Six files, each with a dataset and external links to the other five: resolving the links
    reads each file once, not again at every depth (6^8 reads), and every link h5py follows
    reads back as h5py reads it."""
    import time

    n = 6
    for i in range(n):
        with h5py.File(tmp_path / f"m{i}.h5", "w") as f:
            f.create_dataset("d", data=np.arange(4, dtype="i4") + 10 * i)
            for j in range(n):
                if j != i:
                    f[f"to{j}"] = h5py.ExternalLink(f"m{j}.h5", "/")
    t = time.monotonic()
    code, out = build(vzplan, tmp_path, tmp_path / "m0.h5", "--sources-under", str(tmp_path))
    took = time.monotonic() - t
    assert code in (0, 3), out
    assert took < 30, f"{took:.1f} s"
    g = open_refs(tmp_path / "refs.json")
    with h5py.File(tmp_path / "m0.h5", "r") as f:
        for j in range(1, n):
            np.testing.assert_array_equal(g[f"to{j}/d"][...], f[f"to{j}/d"][...])
