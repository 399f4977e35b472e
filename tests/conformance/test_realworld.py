"""Real-world sweep: `vzplan build` on each file the real writers wrote (GDAL, nccopy, h5repack and
netCDF-C's own reference files, by scripts/fixtures/realworld/make.sh into --realworld-dir), each
file alone, every array read back through zarr-python and compared with the writer's reader
(tifffile, GDAL where tifffile cannot decode, netCDF4-python, h5py), and opened with xarray.

Runs in .venv-realworld, which also has virtual-tiff: it registers its own `imagecodecs_*` Zarr
codecs under imagecodecs' names, so the read-back uses the reader configuration the README
documents (READER_CONFIG) and proves it is enough. A file fails when it reads back wrong or not at
all, leaves an array out without a finding, or decodes differently under virtual-tiff's codecs.

    .venv-realworld/bin/python -m pytest tests/conformance -m realworld"""

from __future__ import annotations

from pathlib import Path

import pytest
import zarr

from .helpers import fail_on
from .realworld import READER_CONFIG, row_errors, row_lines, sweep_one

pytestmark = [pytest.mark.realworld, pytest.mark.filterwarnings("ignore")]


def pytest_generate_tests(metafunc):
    if "realworld_file" in metafunc.fixturenames:
        root = Path(metafunc.config.getoption("realworld_dir"))
        files = sorted(p for sub in ("tiff", "nc", "h5") for p in (root / sub).glob("*") if p.is_file())
        # No files is a failure of its own, not an empty run.
        params = [pytest.param(p, id=f"{p.parent.name}/{p.name}") for p in files] or [
            pytest.param(root / "(none)", id="no-files")]
        metafunc.parametrize("realworld_file", params)


@pytest.fixture(autouse=True)
def reader_config():
    import imagecodecs.zarr

    imagecodecs.zarr.register_codecs(verbose=False)
    with zarr.config.set(READER_CONFIG):
        yield


def test_realworld(vzplan, realworld_file, tmp_path, report, record_property):
    if not realworld_file.exists():
        fail_on([f"no files under {realworld_file.parent}: run scripts/fixtures/realworld/make.sh first"])
    row = sweep_one(vzplan, realworld_file, tmp_path)
    for line in row_lines(row):
        report(line)
    record_property("sweep_row", row)
    fail_on(row_errors(row))
