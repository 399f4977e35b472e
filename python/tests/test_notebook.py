"""What a notebook user sees: a report that shows itself as the plan's HTML page, a readable
repr, progress through a callback, zarr-python set up with nothing to configure."""

from __future__ import annotations

import re

import numpy as np
import pytest
import tifffile
import zarr

import vzplan
from conftest import COLLECTIONS, ROOT

TIFF = ROOT / "testdata" / "tiff"


def test_a_report_shows_itself_as_the_plans_page():
    report = vzplan.plan(str(COLLECTIONS / "padded" / "*.nc"))
    shown = report._repr_html_()
    # The page in an iframe of its own (its styles stay off the notebook's), escaped into srcdoc.
    assert shown.startswith('<iframe class="vzplan-report"') and 'srcdoc="' in shown
    page = report.html()
    assert page.startswith("<!DOCTYPE html>")
    # The summary, the arrays and their grids, the findings with fixes, the picture of the cuts.
    for needed in ["fit as they are", "left out", "stored padded", "nccopy -c", "<svg"]:
        assert needed in page, needed
    # Self-contained: nothing fetched from elsewhere, and small.
    assert not re.search(r'(src|href)="(https?:)?//', page)
    assert len(shown) < 400_000
    # The repr names what was planned and what was left out.
    text = repr(report)
    assert "file(s)" in text and "exit code 3" in text and "left out: tas" in text


def test_progress_reaches_a_callback_and_ends_at_the_total():
    seen = []
    files = sorted((COLLECTIONS / "daily20").glob("*.nc"))
    from vzplan import _vzplan

    _vzplan.run([str(f) for f in files], None, {}, build=False, progress=lambda d, t: seen.append((d, t)))
    assert seen and seen[-1] == (len(files), len(files))
    assert all(a <= b for (a, _), (b, _) in zip(seen, seen[1:]))


def test_zarr_is_configured_for_what_vzplan_writes_and_a_with_block_undoes_it():
    settings = vzplan.zarr_settings()
    assert settings["array.rectilinear_chunks"] is True
    assert settings["codecs.imagecodecs_jpeg"] == "imagecodecs.zarr.Jpeg"
    assert settings["codecs.imagecodecs_floatpred"] == "imagecodecs.zarr.Floatpred"
    assert settings["codecs.imagecodecs_lz4h5"] == "imagecodecs.zarr.Lz4h5"
    import imagecodecs.zarr

    for key, cls in settings.items():
        if key.startswith("codecs."):
            assert hasattr(imagecodecs.zarr, cls.rsplit(".", 1)[1]), cls
    before = zarr.config.get("codecs.imagecodecs_jpeg", None)
    with vzplan.configure_zarr():
        assert zarr.config.get("codecs.imagecodecs_jpeg") == "imagecodecs.zarr.Jpeg"
    assert zarr.config.get("codecs.imagecodecs_jpeg", None) == before


@pytest.mark.parametrize("name", ["jpeg_u8.tif", "pred3_f32.tif", "cog_chain.tif"])
def test_tiffs_open_with_nothing_configured(name):
    """open_dataset reads JPEG and floating-point-predictor TIFFs as tifffile does, with no
    zarr.config set by the caller (also where virtual-tiff registers the same codec names)."""
    zarr.config.reset()
    ds = vzplan.open_dataset(str(TIFF / name))
    with tifffile.TiffFile(TIFF / name) as t:
        want = t.series[0].levels[0].asarray()
    got = ds[list(ds.data_vars)[0]].values
    assert np.array_equal(got.reshape(want.shape), want)
