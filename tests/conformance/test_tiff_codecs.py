"""Every codec fixture of testdata/tiff/codecs/ (scripts/fixtures/tiff_codecs.py: WebP, PNG,
JPEG 2000, JPEG XL, JPEG XR, LERC alone and inside Deflate/ZSTD, CCITT RLE/Group 3/Group 4,
packed 1–24-bit samples, FillOrder 2, more BitsPerSample values than samples; written by
tifffile, GDAL and libtiff's tiffcp) built with `vzplan build` and read back through zarr-python
over fsspec's ReferenceFileSystem, with imagecodecs' Zarr v3 codecs registered: equal to the
samples tifffile reads, in its dtype. The files no Zarr codec decodes are left out with a finding
that says so and names a rewrite; the rewrite is run (with GDAL) and its output reads back equal
to tifffile's samples of the original. The report lists each file's codec chain."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess

import numpy as np
import pytest
import tifffile

from .helpers import TESTDATA, open_refs

pytestmark = pytest.mark.filterwarnings("ignore")
CODECS = TESTDATA / "tiff" / "codecs"
FILES = sorted(CODECS.glob("*.tif"))


def oracle(path) -> dict:
    return json.loads(path.with_suffix(".json").read_text())


def build(vzplan, src, out) -> tuple[int, str]:
    r = subprocess.run([vzplan, "build", str(src), "-o", str(out)], capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


def tifffile_samples(path) -> np.ndarray:
    with tifffile.TiffFile(path) as tif:
        return tif.pages[0].asarray()


def chain(refs_path) -> str:
    meta = json.loads(json.loads(refs_path.read_text())["refs"]["0/zarr.json"])
    return " + ".join(c["name"] for c in meta["codecs"])


@pytest.mark.parametrize("path", FILES, ids=[f.name for f in FILES])
def test_codec_fixture_reads_back_as_tifffile(vzplan, tmp_path, path, report):
    o = oracle(path)
    want = tifffile_samples(path)
    le = want.astype(want.dtype.newbyteorder("<"))
    assert hashlib.sha256(np.ascontiguousarray(le).tobytes()).hexdigest() == o["sha256"], \
        f"{path.name} differs from its oracle: rerun scripts/fixtures/tiff_codecs.py"
    refs = tmp_path / "refs.json"
    code, out = build(vzplan, path, refs)
    if "undecodable" in o:
        assert code == 1 and not refs.exists(), out
        assert "FillOrder 2" in out and "bit-reversed before" in out, out
        assert "gdal_translate -co COMPRESS=DEFLATE" in out, out
        report(f"LEFT {path.name}: {o['undecodable']}")
        return
    assert code == 0, out
    got = open_refs(refs)["0"][...]
    assert got.dtype == want.dtype.newbyteorder("="), (got.dtype, want.dtype)
    assert got.shape == want.shape
    assert np.array_equal(got, want), f"{path.name}: {(got != want).sum()} samples differ"
    report(f"OK   {path.name} ({o['writer']}, {want.dtype}): {chain(refs)}")


@pytest.mark.skipif(shutil.which("gdal_translate") is None, reason="needs GDAL (gdal-bin)")
@pytest.mark.parametrize("path", [p for p in FILES if "undecodable" in oracle(p)],
                         ids=lambda p: p.name)
def test_the_rewrite_a_finding_names_reads_back(vzplan, tmp_path, path):
    """The finding's rewrite (FillOrder 1, Deflate, NBITS kept) gives a file that reads back."""
    fixed = tmp_path / "fixed.tif"
    subprocess.run(["gdal_translate", "-q", "-co", "COMPRESS=DEFLATE", str(path), str(fixed)],
                   check=True, env=dict(os.environ, GDAL_PAM_ENABLED="NO"))
    refs = tmp_path / "refs.json"
    code, out = build(vzplan, fixed, refs)
    assert code == 0, out
    got = open_refs(refs)["0"][...]
    want = tifffile_samples(path)
    assert np.array_equal(got, want)
