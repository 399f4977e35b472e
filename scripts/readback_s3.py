"""Object storage end to end, against moto's S3 server on 127.0.0.1 (scripts/s3_server.py):

1. the shipped netCDF-4 collections, built from s3:// prefixes, read back through zarr-python with
   fsspec's s3 filesystem pointed at the same server, compared value by value with netCDF4-python
   reading the local copies;
2. a batch of --files netCDF-4 files (written here by netCDF4-python) built from an S3 prefix
   through a proxy that faults a share of the requests (500s, slow responses, truncated bodies):
   the refs must equal the local run's (modulo URLs), every file's request count is reported, the
   data reads back;
3. request counts for a netCDF-4 file with many chunks (a multi-level chunk B-tree) at several
   first-read and block sizes, against the metadata size.

    .venv/bin/python scripts/readback_s3.py --vzplan target/debug/vzplan [--files 300]

Prints 'readback_s3: N passed, N failed' at the end; exits non-zero on a failure.
"""

import argparse
import glob
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import fsspec
import netCDF4
import numpy as np
import zarr

sys.path.insert(0, str(Path(__file__).resolve().parent))
import s3_server  # noqa: E402

zarr.config.set({"array.rectilinear_chunks": True})
ROOT = Path(__file__).resolve().parent.parent
ENV = dict(os.environ, AWS_ACCESS_KEY_ID="testing", AWS_SECRET_ACCESS_KEY="testing", AWS_REGION="us-east-1")


def run(vzplan, *args, check=True):
    p = subprocess.run([vzplan, *args], capture_output=True, text=True, env=ENV)
    if check and p.returncode not in (0,):
        raise RuntimeError(f"vzplan {' '.join(args)}: exit {p.returncode}\n{p.stderr}\n{p.stdout[:2000]}")
    return p


def open_s3_refs(refs, endpoint):
    fs = fsspec.filesystem(
        "reference",
        fo=str(refs),
        remote_protocol="s3",
        remote_options={
            "endpoint_url": endpoint,
            "anon": False,
            "asynchronous": True,
            "key": "testing",
            "secret": "testing",
            "client_kwargs": {"region_name": "us-east-1"},
        },
        asynchronous=True,
    )
    return zarr.open_group(zarr.storage.FsspecStore(fs, read_only=True, path=""), mode="r", zarr_format=3)


def local_values(paths, var, concat):
    parts = []
    for p in paths:
        with netCDF4.Dataset(p) as ds:
            v = ds[var]
            v.set_auto_maskandscale(False)
            parts.append((np.asarray(v[...]), list(v.dimensions)))
    data, dims = parts[0]
    if len(parts) > 1 and concat in dims:
        data = np.concatenate([d for d, _ in parts], axis=dims.index(concat))
    return data


def same(a, b):
    if a.shape != b.shape:
        return f"shape {a.shape} != {b.shape}"
    eq = np.array_equal(a, b, equal_nan=True) if a.dtype.kind == "f" else np.array_equal(a, b)
    return None if eq else "values differ"


def check_readback(refs, endpoint, report, local_paths):
    g = open_s3_refs(refs, endpoint)
    errs = []
    for a in report["arrays"]:
        name = a["path"]
        got = np.asarray(g[name][...])
        want = local_values(local_paths, name, report["concat_dim"])
        d = same(got, want)
        if d:
            errs.append(f"{name}: {d}")
    return errs


def normalized(refs_path, local_prefix, s3_prefix):
    v = json.loads(Path(refs_path).read_text().replace(local_prefix, s3_prefix))
    root = json.loads(v["refs"]["zarr.json"])
    for s in root["attributes"]["vzplan"]["sources"]:
        s.pop("mtime", None)
        s.pop("etag", None)
    v["refs"]["zarr.json"] = json.dumps(root, sort_keys=True)
    return v


def stats_lines(stderr):
    out = {}
    for line in stderr.splitlines():
        m = re.match(r"^(\S+): (\d+) request\(s\)(?: \((\d+) retried\))?, (\d+) bytes read", line)
        if m:
            out[m.group(1)] = (int(m.group(2)), int(m.group(3) or 0), int(m.group(4)))
    return out


def write_batch(directory, n):
    """n daily files of 5 steps each, tas chunked (5, 3, 4) with zlib; a time coordinate."""
    paths = []
    rng = np.random.default_rng(4)
    for i in range(n):
        p = Path(directory) / f"tas_{i:04d}.nc"
        with netCDF4.Dataset(p, "w", format="NETCDF4") as ds:
            ds.createDimension("time", None)
            ds.createDimension("lat", 3)
            ds.createDimension("lon", 4)
            t = ds.createVariable("time", "f8", ("time",))
            t.units = "days since 2000-01-01"
            t[:] = np.arange(5) + 5 * i
            v = ds.createVariable("tas", "f4", ("time", "lat", "lon"), chunksizes=(5, 3, 4), zlib=True,
                                  fill_value=np.float32(1e20))
            v.units = "K"
            v[:] = (rng.standard_normal((5, 3, 4)) * 10 + 280).astype("f4")
        paths.append(str(p))
    return paths


def write_many_chunks(path, n=10_000):
    """One variable of n uncompressed 4 KiB chunks (a 40 MB file): the chunk B-tree (64 entries a
    node, nodes allocated between the chunks as they split) has three levels."""
    with netCDF4.Dataset(path, "w", format="NETCDF4") as ds:
        ds.createDimension("time", None)
        ds.createDimension("y", 32)
        ds.createDimension("x", 32)
        t = ds.createVariable("time", "f8", ("time",))
        t.units = "hours since 2000-01-01"
        t[:] = np.arange(n)
        v = ds.createVariable("v", "f4", ("time", "y", "x"), chunksizes=(1, 32, 32))
        v[:] = (np.arange(n * 1024) % 1000).reshape(n, 32, 32).astype("f4")


def outage(vzplan, endpoint, tmp):
    """Section 4 of main."""
    errs = []
    out = tmp / "outage.json"
    src = "s3://collections/daily20/*.nc"
    run(vzplan, "build", src, "-o", str(out), "--s3-endpoint", endpoint)
    good = out.read_bytes()
    proxy = s3_server.FaultProxy(endpoint, 0.0, delay=0.0, outage_after=8)
    quick = ["--s3-endpoint", proxy.url, "--retries", "2", "--jobs", "4"]
    p = run(vzplan, "build", src, "-o", str(out), *quick, check=False)
    if p.returncode != 1 or "could not be reached" not in p.stderr or "--allow-unreachable" not in p.stderr:
        errs.append(f"outage: exit {p.returncode}: {p.stderr[-2000:]}")
    if out.read_bytes() != good:
        errs.append("an outage replaced the good refs.json")
    proxy.stop()
    proxy = s3_server.FaultProxy(endpoint, 0.0, delay=0.0, outage_after=8)
    p = run(vzplan, "build", src, "-o", str(out), "--s3-endpoint", proxy.url, "--retries", "2", "--jobs", "1",
            "--allow-unreachable", "--json", check=False)
    proxy.stop()
    if p.returncode != 3:
        errs.append(f"--allow-unreachable: exit {p.returncode}: {p.stderr[-2000:]}")
    else:
        n = len(json.loads(p.stdout)["sources"])
        if not 0 < n < 20:
            errs.append(f"--allow-unreachable built {n} of 20 sources")
        print(f"     outage after 8 requests: exit 1, refs.json kept; --allow-unreachable: {n} of 20 files")
    return errs


def icechunk_resets(vzplan, endpoint, coll):
    """Section 5 of main: four builds through a proxy resetting 30 % of the writes."""
    import icechunk

    errs = []
    s3_server.s3_client(endpoint).create_bucket(Bucket="resets")
    proxy = s3_server.FaultProxy(endpoint, 0.0, delay=0.0, reset_writes=0.3)
    commits = []
    for i in range(4):
        p = run(vzplan, "build", "s3://collections/yearly/*.nc", "--s3-endpoint", proxy.url,
                "--icechunk", "s3://resets/repo", "--json", check=False)
        if p.returncode != 0:
            errs.append(f"build {i}: exit {p.returncode}: {p.stderr[-2000:]}")
            continue
        commits.append(json.loads(p.stdout)["icechunk"]["snapshot"])
    resets = sum(proxy.counts[k] for k in ("reset_before", "reset_after", "reset_response"))
    proxy.stop()
    if resets == 0:
        errs.append("no write was reset")
    storage = icechunk.s3_storage(bucket="resets", prefix="repo", endpoint_url=endpoint, allow_http=True,
                                  force_path_style=True, region="us-east-1",
                                  access_key_id="testing", secret_access_key="testing")
    repo = icechunk.Repository.open(storage)
    history = [s.id for s in repo.ancestry(branch="main")]
    # Every build one commit on main (newest first), after the repository's first snapshot.
    if history[:-1] != list(reversed(commits)):
        errs.append(f"history {history} is not the builds' commits {commits} and the first snapshot")
    group = zarr.open_group(repo.readonly_session(branch="main").store, mode="r", zarr_format=3)
    if group["tas"].shape != (1461, 3, 4):
        errs.append(f"tas has shape {group['tas'].shape}")
    print(f"     icechunk through resets: {len(commits)} builds, {resets} writes reset, history {len(history)}")
    return errs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--vzplan", required=True)
    ap.add_argument("--files", type=int, default=300)
    ap.add_argument("--faults", type=float, default=0.2)
    a = ap.parse_args()
    passed = failed = 0

    def result(name, errs):
        nonlocal passed, failed
        if errs:
            failed += 1
            print(f"FAIL {name}")
            for e in errs:
                print("  " + str(e).replace("\n", "\n  "))
        else:
            passed += 1
            print(f"ok   {name}")

    server, endpoint = s3_server.start_moto()
    coll = ROOT / "testdata/collections"
    s3_server.upload_dir(endpoint, "collections", coll)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        # 1. The shipped collections from S3 prefixes, read back over s3.
        for case in ["yearly", "daily20", "monthly"]:
            errs = []
            out = tmp / f"{case}.json"
            p = run(a.vzplan, "build", f"s3://collections/{case}/*.nc", "-o", str(out), "--json",
                    "--s3-endpoint", endpoint, check=False)
            if p.returncode != 0:
                result(f"s3 {case}", [f"exit {p.returncode}: {p.stderr}"])
                continue
            report = json.loads(p.stdout)
            templates = json.loads(out.read_text())["templates"]
            errs += [f"template {t!r} is not the object URL" for t in templates.values()
                     if not t.startswith(f"s3://collections/{case}/")]
            errs += check_readback(out, endpoint, report, sorted(glob.glob(str(coll / case / "*.nc"))))
            result(f"s3 {case}: {len(report['arrays'])} arrays read back over s3", errs)

        # 2. A batch over a prefix of many files, through the fault proxy.
        batch_dir = tmp / "batch"
        batch_dir.mkdir()
        t0 = time.monotonic()
        paths = write_batch(batch_dir, a.files)
        s3_server.upload_dir(endpoint, "batch", batch_dir, "daily/")
        print(f"     wrote and uploaded {len(paths)} files in {time.monotonic() - t0:.1f} s")
        proxy = s3_server.FaultProxy(endpoint, a.faults, delay=2.0)
        local_out = tmp / "batch-local.json"
        run(a.vzplan, "build", *paths, "-o", str(local_out))
        s3_out = tmp / "batch-s3.json"
        t0 = time.monotonic()
        p = run(a.vzplan, "build", "s3://batch/daily/*.nc", "-o", str(s3_out), "--s3-endpoint", proxy.url,
                "--io-timeout", "1", "--retries", "10", "--stats", "--json", check=False)
        took = time.monotonic() - t0
        errs = []
        if p.returncode != 0:
            errs.append(f"exit {p.returncode}: {p.stderr[-3000:]}")
        else:
            stats = stats_lines(p.stderr)
            if len(stats) != a.files:
                errs.append(f"{len(stats)} per-file request counts, expected {a.files}")
            if normalized(s3_out, f"file://{batch_dir}/", "s3://batch/daily/") != \
                    normalized(local_out, f"file://{batch_dir}/", "s3://batch/daily/"):
                errs.append("refs from S3 differ from the local run's")
            errs += check_readback(s3_out, endpoint, json.loads(p.stdout), paths)
            reqs = [s[0] for s in stats.values()]
            retried = sum(s[1] for s in stats.values())
            print(f"     {a.files} files in {took:.1f} s; faults injected {proxy.counts}; "
                  f"requests per file min {min(reqs)} max {max(reqs)} mean {np.mean(reqs):.2f}, {retried} retried")
            if sum(v for k, v in proxy.counts.items() if k != "requests") == 0:
                errs.append("no fault was injected")
        proxy.stop()
        result(f"s3 batch of {a.files} files through injected faults", errs)

        # 2b. Append on S3: the batch's first files built with kept layouts, the rest appended;
        # the kept objects are checked by listing their prefix once, so nothing is left out and
        # the refs are those of one build of all the files.
        errs = []
        keys = [f"s3://batch/daily/{Path(x).name}" for x in paths]
        half = len(keys) // 2
        ap_out = tmp / "append-s3.json"
        t0 = time.monotonic()
        run(a.vzplan, "build", *keys[:half], "-o", str(ap_out), "--keep-layouts", "--s3-endpoint", endpoint)
        t_build = time.monotonic() - t0
        t0 = time.monotonic()
        # The kept objects are named only by the kept layouts: an append asks the store about
        # them only under a prefix the command names.
        p = run(a.vzplan, "append", keys[-1], "-o", str(ap_out), "--s3-endpoint", endpoint, check=False)
        if p.returncode != 2 or "--sources-under" not in p.stderr:
            errs.append(f"append without --sources-under: exit {p.returncode}: {p.stderr[-2000:]}")
        under = ["--sources-under", "s3://batch/daily/"]
        t0 = time.monotonic()
        p = run(a.vzplan, "append", keys[-1], "-o", str(ap_out), "--s3-endpoint", endpoint, "--stats",
                *under, check=False)
        t_one = time.monotonic() - t0
        if p.returncode != 0:
            errs.append(f"append of one file: exit {p.returncode}: {p.stdout[-2000:]} {p.stderr[-2000:]}")
        p = run(a.vzplan, "append", *keys[half:-1], "-o", str(ap_out), "--s3-endpoint", endpoint, *under,
                check=False)
        if p.returncode != 0:
            errs.append(f"append of the rest: exit {p.returncode}: {p.stdout[-2000:]}")
        # Provenance times and ETags aside (a listed object's come from the listing).
        if not errs and normalized(ap_out, "s3://", "s3://") != normalized(s3_out, "s3://", "s3://"):
            errs.append("build + appends on S3 differ from one build")
        print(f"     append on S3: build of {half} files {t_build * 1000:.0f} ms; append of 1 file to them {t_one * 1000:.0f} ms")
        result(f"s3 append: {half} files built, {len(keys) - half} appended = one build", errs)

        # 3. Request counts for a file with many chunks.
        big = tmp / "many_chunks.nc"
        write_many_chunks(big)
        c = s3_server.s3_client(endpoint)
        c.create_bucket(Bucket="big")
        c.upload_file(str(big), "big", "many_chunks.nc")
        out = tmp / "big.json"
        run(a.vzplan, "build", "s3://big/many_chunks.nc", "-o", str(out), "--s3-endpoint", endpoint)
        refs = json.loads(out.read_text())["refs"]
        data_bytes = sum(v[2] for k, v in refs.items() if k.startswith("v/c/") and isinstance(v, list))
        nchunks = sum(1 for k in refs if k.startswith("v/c/"))
        size = big.stat().st_size
        print(f"     many_chunks.nc: {size} bytes, {nchunks} chunks, metadata ~{size - data_bytes} bytes")
        print("     first_read  block_size  requests  bytes_read")
        errs = [] if nchunks == 10_000 else [f"{nchunks} chunks, expected 10000"]
        for first, block in [(512 << 10, 64 << 10), (512 << 10, 256 << 10), (64 << 10, 64 << 10),
                             (2 << 20, 256 << 10), (8 << 10, 4 << 10)]:
            p = run(a.vzplan, "plan", "s3://big/many_chunks.nc", "--s3-endpoint", endpoint, "--stats",
                    "--first-read", str(first), "--block-size", str(block))
            st = stats_lines(p.stderr)["s3://big/many_chunks.nc"]
            print(f"     {first:>10}  {block:>10}  {st[0]:>8}  {st[2]:>10}")
        result("many-chunk file: request counts measured", errs)

        # 4. An outage is not a result: the store goes down mid-build (every request after the
        # first 8 gets 503 SlowDown). The run fails and the good refs.json stays; asked to, it
        # builds without the sources it could not reach.
        errs = outage(a.vzplan, endpoint, tmp)
        result("an outage fails the run and keeps the previous outputs; --allow-unreachable builds", errs)

        # 5. Icechunk commits through connections reset on writes: every build lands once.
        errs = icechunk_resets(a.vzplan, endpoint, coll)
        result("icechunk on S3 through reset connections: every commit lands once", errs)
    server.stop()
    print(f"readback_s3: {passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
