"""HTTP(S) inputs end to end, against a byte-range server on 127.0.0.1 (the `http_testdata`
fixture): the shipped netCDF-4 collections and a COG built from `http://` URLs give the refs of the
local build (modulo URLs and provenance times), read back through fsspec's HTTP filesystem equal to
the local files, and pass `vzplan verify` (size and ETag from HEAD) once the command names their
prefix; `gs://` URLs through `--gcs-endpoint` (the same server answers the GCS client's ranged
GETs) give the same refs."""

from __future__ import annotations

import json

import numpy as np
import pytest
import tifffile

from .compare import same
from .helpers import ROOT, TESTDATA, fail_on, normalized, open_refs, run
from .sources import netcdf_values

CASES = {
    "yearly": sorted(f"collections/yearly/{p.name}" for p in (TESTDATA / "collections/yearly").glob("*.nc")),
    "monthly": sorted(f"collections/monthly/{p.name}" for p in (TESTDATA / "collections/monthly").glob("*.nc")),
    "cog": ["tiff/cog_chain.tif"],
}


def cog_levels(path) -> dict:
    """The full image (0/0, the pyramid's level group 0) and its overviews (overview_N/0), as
    tifffile reads each level."""
    with tifffile.TiffFile(path) as t:
        levels = {"0/0": t.series[0].levels[0].asarray()}
        for i, lvl in enumerate(t.series[0].levels[1:], 1):
            levels[f"overview_{i}/0"] = lvl.asarray()
    return levels


def readback_errors(name, out, report, local) -> list[str]:
    errs = []
    g = open_refs(out, "http")
    compared = 0
    for a in report["arrays"]:
        if name == "cog":
            if a["path"].rsplit("/", 1)[-1] in ("spatial_ref", "x", "y", "band"):
                continue  # the georeferencing's coordinates: test_geo.py compares them with rioxarray
            want = cog_levels(local[0]).get(a["path"])
            if want is None:
                errs.append(f"{a['path']}: not a level tifffile reads")
                continue
        else:
            want = netcdf_values(local, a["path"], report["concat_dim"])
        d = same(np.asarray(g[a["path"]][...]), want)
        compared += 1
        if d:
            errs.append(f"{a['path']}: {d}")
    if compared == 0:
        errs.append("no array compared")
    return errs


def verify_errors(vzplan, out, base) -> list[str]:
    """The sources sit on a loopback host that only the refs name: verify asks them only when the
    command names their prefix."""
    errs = []
    v = run([vzplan, "verify", out, "--json"])
    if v.returncode != 1 or not json.loads(v.stdout)["refused"]:
        errs.append(f"verify of a loopback host not named: exit {v.returncode} {v.stdout} {v.stderr}")
    v = run([vzplan, "verify", out, "--json", "--sources-under", base + "/"])
    if v.returncode != 0 or not json.loads(v.stdout)["ok"]:
        errs.append(f"verify: exit {v.returncode} {v.stdout} {v.stderr}")
    return errs


@pytest.mark.parametrize("name", list(CASES))
def test_http(vzplan, http_testdata, name, tmp_path, report):
    base, files = http_testdata, CASES[name]
    local = [str(TESTDATA / r) for r in files]
    out, ref = tmp_path / f"{name}.json", tmp_path / f"{name}.local.json"
    p = run([vzplan, "build", *[f"{base}/{r}" for r in files], "-o", out, "--json"])
    if p.returncode != 0:
        fail_on([f"exit {p.returncode}: {p.stderr}"])
    q = run([vzplan, "build", *local, "-o", ref])
    if q.returncode != 0:
        fail_on([f"local build exit {q.returncode}: {q.stderr}"])
    errs = []
    if normalized(out, base, "X") != normalized(ref, f"file://{TESTDATA}", "X"):
        errs.append("refs differ from the local build's (modulo URLs)")
    errs += readback_errors(name, out, json.loads(p.stdout), local)
    errs += verify_errors(vzplan, out, base)
    report(f"http {name}: {len(files)} file(s) from {base}, read back over http")
    fail_on(errs)


@pytest.fixture
def http_repo():
    """The byte-range server over the repository's root: bucket `testdata` for a GCS client."""
    from .servers import start_http

    server, base = start_http(ROOT)
    yield base
    server.shutdown()
    server.server_close()


def test_gcs_endpoint(vzplan, http_repo, tmp_path):
    """object_store's GCS client reads `{base}/{bucket}/{object}` with ranged GETs, which this
    server answers: the yearly collection from gs:// gives the local build's refs."""
    files = CASES["yearly"]
    out, ref = tmp_path / "gcs.json", tmp_path / "yearly.local.json"
    q = run([vzplan, "build", *[str(TESTDATA / r) for r in files], "-o", ref])
    if q.returncode != 0:
        fail_on([f"local build exit {q.returncode}: {q.stderr}"])
    p = run([vzplan, "build", *[f"gs://testdata/{f}" for f in files], "-o", out, "--gcs-endpoint", http_repo,
             "--anon"])
    errs = [] if p.returncode == 0 else [f"exit {p.returncode}: {p.stderr}"]
    if not errs and normalized(out, "gs://testdata", "X") != normalized(ref, f"file://{TESTDATA}", "X"):
        errs.append("refs differ from the local build's (modulo URLs)")
    fail_on(errs)
