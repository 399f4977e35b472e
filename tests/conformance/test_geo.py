"""GeoTIFFs open as rioxarray opens them: vzplan's refs read with xarray + rioxarray give the CRS,
transform, bounds, coordinates and (masked, scaled) values of `rioxarray.open_rasterio` of the
sources, for a COG and its overviews, a stack of scenes, a 2×2 mosaic (against `gdalbuildvrt`'s
VRT of the same tiles), a PixelIsPoint raster and a user-defined CRS. A COG's pyramid is described
by the multiscales convention (validated against its JSON schema, and geozarr-toolkit's checks when
it is installed) and opens with `xr.open_datatree`, each level with its own grid.

Fixtures: testdata/geo/, written by scripts/fixtures/geo.py (GDAL).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import warnings
from pathlib import Path

import numpy as np
import pytest

from .helpers import ROOT, run

rioxarray = pytest.importorskip("rioxarray")
xr = pytest.importorskip("xarray")

GEO = ROOT / "testdata" / "geo"
SCHEMAS = Path(__file__).parent / "schemas"


def build(vzplan, tmp_path, inputs, *args, name="refs.json"):
    out = tmp_path / name
    r = run([vzplan, "build", *map(str, inputs), "-o", str(out), *args])
    assert r.returncode == 0, r.stderr
    return out


def open_refs(refs, group=None, **kw):
    return xr.open_zarr(
        "reference://",
        storage_options={"fo": str(refs)},
        consolidated=False,
        zarr_format=3,
        group=group,
        chunks=None,
        **kw,
    )


def rio(path, mask_and_scale=True, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return rioxarray.open_rasterio(path, mask_and_scale=mask_and_scale, **kw)


def same_grid(ds, want):
    """CRS, transform, bounds and x/y coordinates equal rioxarray's, exactly."""
    assert ds.rio.crs == want.rio.crs, (ds.rio.crs, want.rio.crs)
    assert ds.rio.transform() == want.rio.transform()
    assert ds.rio.bounds() == want.rio.bounds()
    np.testing.assert_array_equal(ds["x"].values, want["x"].values)
    np.testing.assert_array_equal(ds["y"].values, want["y"].values)
    gt = [float(v) for v in ds["spatial_ref"].attrs["GeoTransform"].split()]
    assert gt == list(want.rio.transform().to_gdal())


def as_rio(da):
    """vzplan's axis order ([y, x, band] for pixel-interleaved) in rioxarray's (band, y, x)."""
    if "band" not in da.dims:
        da = da.expand_dims(band=[1])
    lead = [d for d in da.dims if d not in ("band", "y", "x")]
    return da.transpose(*lead, "band", "y", "x")


def test_cog_opens_like_rioxarray(vzplan, tmp_path):
    src = GEO / "cog_u16.tif"
    refs = build(vzplan, tmp_path, [src])
    # The full resolution is the pyramid's level "0", a group beside the overviews.
    ds = open_refs(refs, group="0")
    want = rio(src)
    same_grid(ds, want)
    np.testing.assert_array_equal(ds["band"].values, want["band"].values)
    # Masked and scaled: xarray computes in float64 (the scale and offset are JSON doubles),
    # rioxarray in float32; the stored values are equal exactly.
    got = as_rio(ds["0"])
    np.testing.assert_allclose(got.values, want.values, rtol=1e-6, atol=1e-6, equal_nan=True)
    assert np.isnan(got.values[0, 0, 0]), "nodata masked"
    raw = as_rio(open_refs(refs, group="0", mask_and_scale=False)["0"])
    np.testing.assert_array_equal(raw.values, rio(src, mask_and_scale=False).values)
    assert "spatial_ref" in ds.coords


@pytest.mark.parametrize("level", [1, 2])
def test_cog_overviews_have_their_own_grid(vzplan, tmp_path, level):
    src = GEO / "cog_u16.tif"
    refs = build(vzplan, tmp_path, [src])
    ds = open_refs(refs, group=f"overview_{level}")
    want = rio(src, overview_level=level - 1)
    same_grid(ds, want)
    # GDAL reports no scale and offset for an overview; vzplan gives each level the image's, so
    # the stored values are compared.
    assert ds["0"].encoding["scale_factor"] == 0.01
    raw = as_rio(open_refs(refs, group=f"overview_{level}", mask_and_scale=False)["0"])
    np.testing.assert_array_equal(raw.values, rio(src, False, overview_level=level - 1).values)


def test_stack_opens_like_each_scene(vzplan, tmp_path):
    scenes = sorted((GEO / "scenes").glob("*.tif"))
    refs = build(vzplan, tmp_path, scenes, "--stack-dim", "scene")
    ds = open_refs(refs)
    assert ds["0"].dims[0] == "scene"
    for i, src in enumerate(scenes):
        want = rio(src)
        same_grid(ds, want)
        np.testing.assert_array_equal(as_rio(ds["0"].isel(scene=i)).values, want.values)


def test_mosaic_has_the_vrt_grid(vzplan, tmp_path):
    if not shutil.which("gdalbuildvrt"):
        pytest.skip("gdalbuildvrt is not installed (scripts/setup-tools.sh)")
    tiles = sorted((GEO / "tiles").glob("*.tif"))
    refs = build(vzplan, tmp_path, tiles, "--mosaic")
    vrt = tmp_path / "tiles.vrt"
    subprocess.run(["gdalbuildvrt", "-q", str(vrt), *map(str, tiles)], check=True)
    ds = open_refs(refs)
    want = rio(vrt)
    same_grid(ds, want)
    np.testing.assert_array_equal(as_rio(ds["0"]).values, want.values)


def test_pixel_is_point_centres_are_the_stored_points(vzplan, tmp_path):
    src = GEO / "point_f32.tif"
    ds = open_refs(build(vzplan, tmp_path, [src]))
    want = rio(src)
    same_grid(ds, want)
    # GDAL's tiepoint is the first pixel's centre.
    assert ds["x"].values[0] == 5.25 and ds["y"].values[0] == 49.75


def test_user_defined_crs_is_carried(vzplan, tmp_path):
    src = GEO / "user_aea.tif"
    ds = open_refs(build(vzplan, tmp_path, [src]))
    want = rio(src)
    same_grid(ds, want)
    sr = ds["spatial_ref"].attrs
    assert sr["grid_mapping_name"] == "albers_conical_equal_area"
    assert list(sr["standard_parallel"]) == [29.5, 45.5]


def test_a_crs_that_cannot_be_written_is_left_out_not_replaced(vzplan, tmp_path):
    """GDAL writes `+proj=robin +datum=WGS84` as a user-defined projected CRS on EPSG:4326 with
    a Robinson transformation no GeoTIFF code names: the refs carry the grid and a warning, never
    the geographic base as if it were the image's CRS."""
    if not shutil.which("gdal_translate"):
        pytest.skip("gdal_translate is not installed (scripts/setup-tools.sh)")
    src = tmp_path / "robinson.tif"
    subprocess.run(["gdal_translate", "-q", "-a_srs", "+proj=robin +lon_0=0 +datum=WGS84 +units=m",
                    "-a_ullr", "0", "1000", "1000", "0", str(GEO / "point_f32.tif"), str(src)],
                   check=True)
    out = tmp_path / "refs.json"
    r = run([vzplan, "build", str(src), "-o", str(out), "--json"])
    assert r.returncode == 0, r.stderr
    findings = json.loads(r.stdout)["findings"]
    assert any(f["kind"] == "georeference" for f in findings), findings
    ds = open_refs(out)
    assert "crs_wkt" not in ds["spatial_ref"].attrs
    assert "proj:code" not in json.loads(json.loads(out.read_text())["refs"]["0/zarr.json"])["attributes"]
    assert ds.rio.transform() == rio(src).rio.transform()


def root_attrs(refs):
    return json.loads(json.loads(Path(refs).read_text())["refs"]["zarr.json"])["attributes"]


def test_cog_pyramid_is_multiscales(vzplan, tmp_path):
    jsonschema = pytest.importorskip("jsonschema")
    src = GEO / "cog_u16.tif"
    refs = build(vzplan, tmp_path, [src])
    doc = json.loads(json.loads(refs.read_text())["refs"]["zarr.json"])
    for name in ["multiscales", "spatial"]:
        schema = json.loads((SCHEMAS / f"{name}-v1.schema.json").read_text())
        jsonschema.validate(doc, schema)
    # The consolidated zarr.json carries the same root attributes.
    consolidated = json.loads(refs.with_suffix(".zarr.json").read_text())
    assert consolidated["attributes"]["multiscales"] == doc["attributes"]["multiscales"]
    attrs = doc["attributes"]
    layout = attrs["multiscales"]["layout"]
    assert [lv["asset"] for lv in layout] == ["0", "overview_1", "overview_2"]
    assert [lv.get("derived_from") for lv in layout] == [None, "0", "0"]
    assert attrs["proj:code"] == "EPSG:32633" and attrs["spatial:dimensions"] == ["y", "x"]
    with rasterio_open(src) as r:
        bounds = r.bounds
        for i, lv in enumerate(layout):
            factor = 1 if i == 0 else r.overviews(1)[i - 1]
            assert lv["transform"] == {"scale": [float(factor)] * 2, "translation": [0.0, 0.0]}
            want = rio(src, overview_level=i - 1) if i else rio(src)
            assert lv["spatial:transform"] == list(want.rio.transform())[:6]
            assert lv["spatial:shape"] == [want.sizes["y"], want.sizes["x"]]
    assert attrs["spatial:bbox"] == [bounds.left, bounds.bottom, bounds.right, bounds.top]


def rasterio_open(path):
    rasterio = pytest.importorskip("rasterio")
    return rasterio.open(path)


def test_cog_pyramid_passes_geozarr_toolkit(vzplan, tmp_path):
    validation = pytest.importorskip("geozarr_toolkit.helpers.validation")
    attrs = root_attrs(build(vzplan, tmp_path, [GEO / "cog_u16.tif"]))
    results = validation.validate_attrs(attrs)
    assert {"multiscales", "spatial", "proj"} <= set(results), results
    assert all(not errors for errors in results.values()), results


def test_cog_pyramid_opens_as_a_datatree(vzplan, tmp_path):
    src = GEO / "cog_u16.tif"
    refs = build(vzplan, tmp_path, [src])
    tree = xr.open_datatree(
        "reference://",
        engine="zarr",
        storage_options={"fo": str(refs)},
        consolidated=False,
        zarr_format=3,
        chunks=None,
        mask_and_scale=False,
    )
    levels = [lv["asset"] for lv in root_attrs(refs)["multiscales"]["layout"]]
    assert set(levels) <= set(tree.children)
    for i, level in enumerate(levels):
        ds = tree[level].to_dataset()
        want = rio(src, False, overview_level=i - 1) if i else rio(src, False)
        same_grid(ds, want)
        np.testing.assert_array_equal(as_rio(ds["0"]).values, want.values)


@pytest.mark.parametrize(
    "spec, hour",
    [("time=%Y%m%d", "T00:00"), ("time=datetime", "T10:30")],
)
def test_scene_stack_has_a_time_coordinate(vzplan, tmp_path, spec, hour):
    # Given out of date order: the coordinate orders the stack.
    scenes = sorted((GEO / "scenes").glob("*.tif"), reverse=True)
    refs = build(vzplan, tmp_path, scenes, "--stack-coord", spec)
    ds = open_refs(refs)
    days = ["2024-01-01", "2024-01-02", "2024-01-03"]
    want_times = np.array([d + hour for d in days], dtype="datetime64[ns]")
    assert ds["time"].dtype.kind == "M"
    np.testing.assert_array_equal(ds["time"].values, want_times)
    assert ds["0"].dims[0] == "time" and "time" in ds.indexes
    for i, day in enumerate(days):
        src = GEO / "scenes" / f"scene_{day.replace('-', '')}.tif"
        want = rio(src)
        same_grid(ds, want)
        np.testing.assert_array_equal(as_rio(ds["0"].isel(time=i)).values, want.values)
    # Selecting by date reads that scene.
    one = ds["0"].sel(time=days[1] + hour)
    np.testing.assert_array_equal(as_rio(one).values, rio(GEO / "scenes" / "scene_20240102.tif").values)


def test_scene_stack_leaves_out_files_without_a_date(vzplan, tmp_path):
    scenes = sorted((GEO / "scenes").glob("*.tif"))
    odd = tmp_path / "scene_undated.tif"
    shutil.copy(scenes[0], odd)
    out = tmp_path / "refs.json"
    r = run([vzplan, "build", *map(str, [*scenes, odd]), "-o", str(out), "--stack-coord", "time=%Y%m%d"])
    assert r.returncode == 3, r.stderr
    assert "scene_undated.tif" in r.stdout + r.stderr
    assert open_refs(out).sizes["time"] == 3
