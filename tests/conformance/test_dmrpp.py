"""Read-back of DMR++ sidecars: `vzplan build X.dmrpp` references the granule `dmrpp:href` names
(testdata/dmrpp/, written by scripts/fixtures/dmrpp.py), and every array reads back through
zarr-python (and the group through xarray) as h5py reads the granule. The refs built from the
sidecar are also compared with the refs built from the granule itself: the same chunk references,
dtype, codecs and fill; where the DMR++ carries less (coordinate values written inline by the
granule's scan, and so the `coords:coordinates` convention's intervals; attribute order), the
difference is the one docs/formats.md lists."""

from __future__ import annotations

import json

import h5py
import numpy as np
import pytest
import xarray as xr
import zarr

from .helpers import TESTDATA, open_refs, reference_store, run

pytestmark = pytest.mark.filterwarnings("ignore")
DIR = TESTDATA / "dmrpp"
PAIRS = [("sds.h5.dmrpp", "data/sds.h5"), ("grid.nc.dmrpp", "data/grid.nc")]


def build(vzplan, tmp_path, name, *inputs, extra=()):
    out = tmp_path / f"{name}.json"
    p = run([vzplan, "build", *map(str, inputs), "-o", str(out), *extra])
    # 3: some array left out with a finding (sds.h5's variable-length strings).
    assert p.returncode in (0, 3), p.stdout + p.stderr
    return out


def h5_arrays(path):
    found = {}
    with h5py.File(path, "r") as f:
        def visit(name, obj):
            if isinstance(obj, h5py.Dataset) and obj.dtype.kind != "O":
                found[name] = obj[()]
        f.visititems(visit)
    return found


@pytest.mark.parametrize("sidecar,granule", PAIRS)
def test_sidecar_reads_back_as_the_granule(vzplan, tmp_path, sidecar, granule):
    refs = build(vzplan, tmp_path, "dmrpp", DIR / sidecar, extra=["--sources-under", str(DIR / "data")])
    g = open_refs(refs)
    expected = h5_arrays(DIR / granule)
    checked = 0
    for path, want in expected.items():
        if path.endswith("depth"):  # a netCDF dimension without a variable: left out by both
            continue
        got = g[path][...]
        np.testing.assert_array_equal(got, want, err_msg=path)
        checked += 1
    assert checked >= 4


@pytest.mark.parametrize("sidecar,granule", PAIRS)
def test_sidecar_refs_match_the_granules(vzplan, tmp_path, sidecar, granule):
    a = json.loads(build(vzplan, tmp_path, "a", DIR / sidecar,
                         extra=["--sources-under", str(DIR / "data")]).read_text())["refs"]
    b = json.loads(build(vzplan, tmp_path, "b", DIR / granule).read_text())["refs"]
    inline = {k.split("/c/")[0] for k, v in b.items() if "/c/" in k and isinstance(v, str)}
    for key, want in b.items():
        array = key.rsplit("/", 1)[0] if key.endswith("zarr.json") else key.split("/c/")[0]
        if array in inline or key.startswith("vlen"):
            continue  # coordinates the granule's scan wrote inline; strings a DMR++ cannot place
        got = a.get(key)
        if key.endswith("zarr.json"):
            got, want = json.loads(got), json.loads(want)
            if key == "zarr.json":  # the root: consolidated metadata of the inline coordinates differ
                assert got["attributes"]["vzplan"]["sources"] == want["attributes"]["vzplan"]["sources"]
                continue
            # Coordinates whose values the granule's scan knows are described as intervals there,
            # as paths to the coordinate arrays here.
            for doc in (got, want):
                doc.get("attributes", {}).pop("coords:coordinates", None)
        assert got == want, key


def test_xarray_opens_the_sidecars_dataset(vzplan, tmp_path):
    refs = build(vzplan, tmp_path, "x", DIR / "grid.nc.dmrpp")
    ds = xr.open_dataset(reference_store(str(refs)), engine="zarr", consolidated=False,
                         zarr_format=3)
    with h5py.File(DIR / "data/grid.nc", "r") as f:
        want = f["tas"][()]
    np.testing.assert_array_equal(ds["tas"].values, want)
    assert ds["tas"].dims == ("time", "lat", "lon")
    assert ds.attrs["title"] == "grid"


def test_patch_does_not_read_an_unnamed_granule(vzplan, tmp_path):
    out = tmp_path / "p.json"
    p = run([vzplan, "build", str(DIR / "sds.h5.dmrpp"), "-o", str(out), "--patch", "--json"])
    assert p.returncode in (0, 3), p.stdout + p.stderr
    # No chunk of these arrays needs patching; the run names only the sidecar, and nothing is inlined
    # from the granule but the compact dataset the DMR++ itself holds.
    refs = json.loads(out.read_text())["refs"]
    inline = [k for k, v in refs.items() if "/c/" in k and isinstance(v, str)]
    assert inline == ["compact/c/0"], inline


def test_verify_checks_what_a_sidecar_records(vzplan, tmp_path):
    """Built from the sidecar alone, the granule's size is only the least its references reach:
    `verify` passes on the granule as it is and fails on a copy cut short."""
    import shutil

    d = tmp_path / "g"
    shutil.copytree(DIR, d)
    refs = build(vzplan, tmp_path, "v", d / "grid.nc.dmrpp")
    p = run([vzplan, "verify", str(refs)])
    assert p.returncode == 0, p.stdout + p.stderr
    granule = d / "data" / "grid.nc"
    granule.write_bytes(granule.read_bytes()[:100])
    p = run([vzplan, "verify", str(refs)])
    assert p.returncode == 1 and "less than the" in p.stdout + p.stderr, p.stdout + p.stderr
