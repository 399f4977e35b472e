"""HTTP(S) inputs end to end, against a byte-range server on 127.0.0.1 (scripts/http_server.py):
the shipped netCDF-4 collections and a COG built from `http://` URLs must give the refs of the local
build (modulo URLs and provenance times), read back through fsspec's HTTP filesystem equal to the
local files, and pass `vzplan verify` (size and ETag from HEAD); and `gs://` URLs through
`--gcs-endpoint` (the same server answers the GCS client's ranged GETs) give the same refs.

    .venv/bin/python scripts/readback_http.py --vzplan target/debug/vzplan

Prints 'readback_http: N passed, N failed' and exits non-zero on a failure.
"""

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import fsspec
import numpy as np
import zarr

sys.path.insert(0, str(Path(__file__).resolve().parent))
import http_server  # noqa: E402
from readback_s3 import local_values, normalized, same  # noqa: E402

zarr.config.set({"array.rectilinear_chunks": True})
ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "testdata"


def run(vzplan, *args):
    return subprocess.run([vzplan, *args], capture_output=True, text=True)


def open_http_refs(refs):
    fs = fsspec.filesystem("reference", fo=str(refs), remote_protocol="http",
                           remote_options={"asynchronous": True}, asynchronous=True)
    return zarr.open_group(zarr.storage.FsspecStore(fs, read_only=True, path=""), mode="r", zarr_format=3)


def check(vzplan, base, rel_files, tmp, name):
    errs = []
    urls = [f"{base}/{r}" for r in rel_files]
    local = [str(DATA / r) for r in rel_files]
    out, ref = tmp / f"{name}.json", tmp / f"{name}.local.json"
    p = run(vzplan, "build", *urls, "-o", str(out), "--json")
    if p.returncode != 0:
        return [f"exit {p.returncode}: {p.stderr}"]
    q = run(vzplan, "build", *local, "-o", str(ref))
    if q.returncode != 0:
        return [f"local build exit {q.returncode}: {q.stderr}"]
    if normalized(out, base, "X") != normalized(ref, f"file://{DATA}", "X"):
        errs.append("refs differ from the local build's (modulo URLs)")
    report = json.loads(p.stdout)
    g = open_http_refs(out)
    compared = 0
    for a in report["arrays"]:
        if name == "cog":
            import tifffile
            with tifffile.TiffFile(local[0]) as t:
                # The full image and its overviews (overview_N/0), as tifffile reads each level.
                levels = {"0": t.series[0].levels[0].asarray()}
                for i, lvl in enumerate(t.series[0].levels[1:], 1):
                    levels[f"overview_{i}/0"] = lvl.asarray()
            want = levels.get(a["path"])
            if want is None:
                errs.append(f"{a['path']}: not a level tifffile reads")
                continue
        else:
            want = local_values(local, a["path"], report["concat_dim"])
        d = same(np.asarray(g[a["path"]][...]), want)
        compared += 1
        if d:
            errs.append(f"{a['path']}: {d}")
    if compared == 0:
        errs.append("no array compared")
    # The sources sit on a loopback host that only the refs name: verify asks them only when
    # the command names their prefix.
    v = run(vzplan, "verify", str(out), "--json")
    if v.returncode != 1 or not json.loads(v.stdout)["refused"]:
        errs.append(f"verify of a loopback host not named: exit {v.returncode} {v.stdout} {v.stderr}")
    v = run(vzplan, "verify", str(out), "--json", "--sources-under", base + "/")
    if v.returncode != 0 or not json.loads(v.stdout)["ok"]:
        errs.append(f"verify: exit {v.returncode} {v.stdout} {v.stderr}")
    return errs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--vzplan", required=True)
    a = ap.parse_args()
    server, base = http_server.start(DATA)
    passed = failed = 0
    cases = {
        "yearly": sorted(f"collections/yearly/{p.name}" for p in (DATA / "collections/yearly").glob("*.nc")),
        "monthly": sorted(f"collections/monthly/{p.name}" for p in (DATA / "collections/monthly").glob("*.nc")),
        "cog": ["tiff/cog_chain.tif"],
    }
    with tempfile.TemporaryDirectory() as tmp:
        for name, files in cases.items():
            errs = check(a.vzplan, base, files, Path(tmp), name)
            if errs:
                failed += 1
                print(f"FAIL http {name}")
                for e in errs:
                    print("  " + e)
            else:
                passed += 1
                print(f"ok   http {name}: {len(files)} file(s) from {base}, read back over http")
        # GCS through --gcs-endpoint: object_store's GCS client reads `{base}/{bucket}/{object}`
        # with ranged GETs, which this server answers (the testdata directory as the bucket).
        files = cases["yearly"]
        out, ref = Path(tmp) / "gcs.json", Path(tmp) / "yearly.local.json"
        urls = [f"gs://testdata/{f}" for f in files]
        gcs, gbase = http_server.start(ROOT)  # the repository's root: bucket "testdata"
        p = run(a.vzplan, "build", *urls, "-o", str(out), "--gcs-endpoint", gbase, "--anon")
        gcs.shutdown()
        errs = [] if p.returncode == 0 else [f"exit {p.returncode}: {p.stderr}"]
        if not errs and normalized(out, "gs://testdata", "X") != normalized(ref, f"file://{DATA}", "X"):
            errs.append("refs differ from the local build's (modulo URLs)")
        if errs:
            failed += 1
            print("FAIL gcs endpoint")
            for e in errs:
                print("  " + e)
        else:
            passed += 1
            print("ok   gcs yearly through --gcs-endpoint: the local build's refs")
    server.shutdown()
    print(f"readback_http: {passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
