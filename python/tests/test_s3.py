"""Object storage: s3:// globs with fsspec-style storage_options, against moto's S3 on 127.0.0.1
(tests/conformance/servers.py); the data read back over s3 equals the local files."""

from __future__ import annotations

import glob
import subprocess
import sys

import pytest
import xarray as xr

import vzplan
from conftest import COLLECTIONS, ROOT

sys.path.insert(0, str(ROOT / "tests"))
s3_server = pytest.importorskip("conformance.servers")


@pytest.fixture(scope="module")
def endpoint():
    server, url = s3_server.start_moto()
    s3_server.upload_dir(url, "collections", COLLECTIONS)
    yield url
    server.stop()


@pytest.fixture
def no_env_credentials(monkeypatch):
    # The credentials must come from storage_options, not from the environment.
    monkeypatch.delenv("AWS_ACCESS_KEY_ID", raising=False)
    monkeypatch.delenv("AWS_SECRET_ACCESS_KEY", raising=False)


def test_open_dataset_over_s3_with_storage_options(endpoint, no_env_credentials):
    so = {"endpoint_url": endpoint, "key": "testing", "secret": "testing"}
    ds = vzplan.open_dataset("s3://collections/yearly/*.nc", storage_options=so)
    assert ds.attrs["vzplan"]["sources"][0]["url"].startswith("s3://collections/yearly/")
    ref = xr.open_mfdataset(sorted(glob.glob(str(COLLECTIONS / "yearly/*.nc"))), engine="netcdf4")
    xr.testing.assert_equal(ds.load(), ref.load())


def test_build_over_s3_equals_the_cli(endpoint, cli, tmp_path, monkeypatch):
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    url = "s3://collections/padded/*.nc"
    report = vzplan.build(url, output=tmp_path / "py.json", s3_endpoint=endpoint)
    subprocess.run([cli, "build", url, "--s3-endpoint", endpoint, "-o", str(tmp_path / "cli.json")],
                   capture_output=True)
    assert (tmp_path / "py.json").read_bytes() == (tmp_path / "cli.json").read_bytes()
    assert report.exit_code == 3
    assert {f["file"] for f in report.findings if f["file"]} <= {
        f"s3://collections/padded/{p.name}" for p in (COLLECTIONS / "padded").iterdir()
    }
