"""Object storage end to end, against moto's S3 server on 127.0.0.1 (the `s3` fixture):

1. the shipped netCDF-4 collections built from s3:// prefixes, read back through zarr-python with
   fsspec's s3 filesystem, compared with netCDF4-python reading the local copies;
2. a batch of --s3-files netCDF-4 files built from an S3 prefix through a proxy that faults a share
   of the requests (500s, slow responses, truncated bodies): the refs equal the local run's (modulo
   URLs), every file's request count is reported, the data reads back; then the same files built
   half and appended half (kept layouts, --sources-under) give the refs of one build;
3. request counts for a netCDF-4 file with many chunks at several first-read and block sizes;
4. an outage mid-build fails the run and keeps the previous refs; --allow-unreachable builds;
5. Icechunk commits through connections reset on writes: every build lands once."""

from __future__ import annotations

import glob
import json
import time
from pathlib import Path

import numpy as np
import pytest
import zarr

from .compare import same
from .faults import FaultProxy
from .helpers import COLLECTIONS, S3_ENV, fail_on, normalized, open_refs, run, s3_options, stats_lines
from .sources import netcdf_values


def vz(vzplan, *args, check=True):
    p = run([vzplan, *args], env=S3_ENV)
    if check and p.returncode != 0:
        raise RuntimeError(f"vzplan {' '.join(map(str, args))}: exit {p.returncode}\n{p.stderr}\n{p.stdout[:2000]}")
    return p


def check_readback(refs, endpoint, report, local_paths) -> list[str]:
    g = open_refs(refs, "s3", s3_options(endpoint))
    errs = []
    for a in report["arrays"]:
        d = same(np.asarray(g[a["path"]][...]), netcdf_values(local_paths, a["path"], report["concat_dim"]))
        if d:
            errs.append(f"{a['path']}: {d}")
    return errs


@pytest.mark.parametrize("case", ["yearly", "daily20", "monthly"])
def test_s3_collection(vzplan, s3, case, tmp_path, report):
    out = tmp_path / f"{case}.json"
    p = vz(vzplan, "build", f"s3://collections/{case}/*.nc", "-o", out, "--json", "--s3-endpoint", s3.endpoint,
           check=False)
    if p.returncode != 0:
        fail_on([f"exit {p.returncode}: {p.stderr}"])
    rep = json.loads(p.stdout)
    templates = json.loads(out.read_text())["templates"]
    errs = [f"template {t!r} is not the object URL" for t in templates.values()
            if not t.startswith(f"s3://collections/{case}/")]
    errs += check_readback(out, s3.endpoint, rep, sorted(glob.glob(str(COLLECTIONS / case / "*.nc"))))
    report(f"s3 {case}: {len(rep['arrays'])} arrays read back over s3")
    fail_on(errs)


def write_batch(directory, n):
    """n daily files of 5 steps each, tas chunked (5, 3, 4) with zlib; a time coordinate."""
    import netCDF4

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


class Batch:
    """The batch's files, uploaded to s3://batch/daily/, built locally and from S3 through faults."""

    def __init__(self, vzplan, s3, tmp, files, faults):
        self.dir = tmp / "batch"
        self.dir.mkdir()
        t0 = time.monotonic()
        self.paths = write_batch(self.dir, files)
        from .servers import upload_dir

        upload_dir(s3.endpoint, "batch", self.dir, "daily/")
        self.lines = [f"wrote and uploaded {len(self.paths)} files in {time.monotonic() - t0:.1f} s"]
        self.local_out, self.s3_out = tmp / "batch-local.json", tmp / "batch-s3.json"
        vz(vzplan, "build", *self.paths, "-o", self.local_out)
        proxy = FaultProxy(s3.endpoint, faults, delay=2.0)
        t0 = time.monotonic()
        self.build = vz(vzplan, "build", "s3://batch/daily/*.nc", "-o", self.s3_out, "--s3-endpoint", proxy.url,
                        "--io-timeout", "1", "--retries", "10", "--stats", "--json", check=False)
        self.took = time.monotonic() - t0
        self.counts = dict(proxy.counts)
        proxy.stop()


@pytest.fixture(scope="module")
def batch(vzplan, s3, tmp_path_factory, pytestconfig):
    return Batch(vzplan, s3, tmp_path_factory.mktemp("s3batch"), pytestconfig.getoption("s3_files"),
                 pytestconfig.getoption("s3_faults"))


@pytest.mark.xdist_group("s3-batch")
def test_s3_batch_through_faults(batch, s3, pytestconfig, report):
    files = pytestconfig.getoption("s3_files")
    for line in batch.lines:
        report(line)
    p = batch.build
    if p.returncode != 0:
        fail_on([f"exit {p.returncode}: {p.stderr[-3000:]}"])
    errs = []
    stats = stats_lines(p.stderr)
    if len(stats) != files:
        errs.append(f"{len(stats)} per-file request counts, expected {files}")
    local_prefix = f"file://{batch.dir}/"
    if normalized(batch.s3_out, local_prefix, "s3://batch/daily/") != \
            normalized(batch.local_out, local_prefix, "s3://batch/daily/"):
        errs.append("refs from S3 differ from the local run's")
    errs += check_readback(batch.s3_out, s3.endpoint, json.loads(p.stdout), batch.paths)
    reqs = [s[0] for s in stats.values()]
    trips = [s[3] for s in stats.values()]
    retried = sum(s[1] for s in stats.values())
    report(f"{files} files in {batch.took:.1f} s; faults injected {batch.counts}; requests per file "
           f"min {min(reqs)} max {max(reqs)} mean {np.mean(reqs):.2f}, {retried} retried; "
           f"round trips per file max {max(trips)}")
    # netCDF-4 files written by netCDF4-python: the first read, then at most one batch.
    if max(trips) > 2:
        errs.append(f"{max(trips)} dependent round trips for a file, expected at most 2")
    if sum(v for k, v in batch.counts.items() if k != "requests") == 0:
        errs.append("no fault was injected")
    fail_on(errs)


@pytest.mark.xdist_group("s3-batch")
def test_s3_append(vzplan, batch, s3, tmp_path, report):
    """The batch's first files built with kept layouts, the rest appended; the kept objects are
    checked by listing their prefix once, so nothing is left out and the refs are those of one
    build of all the files."""
    errs = []
    keys = [f"s3://batch/daily/{Path(x).name}" for x in batch.paths]
    half = len(keys) // 2
    out = tmp_path / "append-s3.json"
    t0 = time.monotonic()
    vz(vzplan, "build", *keys[:half], "-o", out, "--keep-layouts", "--s3-endpoint", s3.endpoint)
    t_build = time.monotonic() - t0
    # The kept objects are named only by the kept layouts: an append asks the store about them
    # only under a prefix the command names.
    p = vz(vzplan, "append", keys[-1], "-o", out, "--s3-endpoint", s3.endpoint, check=False)
    if p.returncode != 2 or "--sources-under" not in p.stderr:
        errs.append(f"append without --sources-under: exit {p.returncode}: {p.stderr[-2000:]}")
    under = ["--sources-under", "s3://batch/daily/"]
    t0 = time.monotonic()
    p = vz(vzplan, "append", keys[-1], "-o", out, "--s3-endpoint", s3.endpoint, "--stats", *under, check=False)
    t_one = time.monotonic() - t0
    if p.returncode != 0:
        errs.append(f"append of one file: exit {p.returncode}: {p.stdout[-2000:]} {p.stderr[-2000:]}")
    p = vz(vzplan, "append", *keys[half:-1], "-o", out, "--s3-endpoint", s3.endpoint, *under, check=False)
    if p.returncode != 0:
        errs.append(f"append of the rest: exit {p.returncode}: {p.stdout[-2000:]}")
    # Provenance times and ETags aside (a listed object's come from the listing).
    if not errs and normalized(out, "s3://", "s3://") != normalized(batch.s3_out, "s3://", "s3://"):
        errs.append("build + appends on S3 differ from one build")
    report(f"append on S3: build of {half} files {t_build * 1000:.0f} ms; append of 1 file to them "
           f"{t_one * 1000:.0f} ms; {len(keys) - half} appended = one build")
    fail_on(errs)


def write_many_chunks(path, n=10_000):
    """One variable of n uncompressed 4 KiB chunks (a 40 MB file): the chunk B-tree (64 entries a
    node, nodes allocated between the chunks as they split) has three levels."""
    import netCDF4

    with netCDF4.Dataset(path, "w", format="NETCDF4") as ds:
        ds.createDimension("time", None)
        ds.createDimension("y", 32)
        ds.createDimension("x", 32)
        t = ds.createVariable("time", "f8", ("time",))
        t.units = "hours since 2000-01-01"
        t[:] = np.arange(n)
        v = ds.createVariable("v", "f4", ("time", "y", "x"), chunksizes=(1, 32, 32))
        v[:] = (np.arange(n * 1024) % 1000).reshape(n, 32, 32).astype("f4")


def test_s3_many_chunk_request_counts(vzplan, s3, tmp_path, report):
    big = tmp_path / "many_chunks.nc"
    write_many_chunks(big)
    c = s3.client()
    c.create_bucket(Bucket="big")
    c.upload_file(str(big), "big", "many_chunks.nc")
    out = tmp_path / "big.json"
    vz(vzplan, "build", "s3://big/many_chunks.nc", "-o", out, "--s3-endpoint", s3.endpoint)
    refs = json.loads(out.read_text())["refs"]
    data_bytes = sum(v[2] for k, v in refs.items() if k.startswith("v/c/") and isinstance(v, list))
    nchunks = sum(1 for k in refs if k.startswith("v/c/"))
    size = big.stat().st_size
    report(f"many_chunks.nc: {size} bytes, {nchunks} chunks, metadata ~{size - data_bytes} bytes")
    report("first_read  block_size  requests  round_trips  bytes_read")
    for first, block in [(512 << 10, 64 << 10), (512 << 10, 256 << 10), (64 << 10, 64 << 10),
                         (2 << 20, 256 << 10), (8 << 10, 4 << 10)]:
        p = vz(vzplan, "plan", "s3://big/many_chunks.nc", "--s3-endpoint", s3.endpoint, "--stats",
               "--first-read", str(first), "--block-size", str(block))
        st = stats_lines(p.stderr)["s3://big/many_chunks.nc"]
        report(f"{first:>10}  {block:>10}  {st[0]:>8}  {st[3]:>11}  {st[2]:>10}")
    fail_on([] if nchunks == 10_000 else [f"{nchunks} chunks, expected 10000"])


def test_s3_outage_keeps_outputs(vzplan, s3, tmp_path, report):
    """The store goes down mid-build (every request after the first 8 gets 503 SlowDown): the run
    fails and the good refs.json stays; asked to, it builds without the sources it could not reach."""
    errs = []
    out = tmp_path / "outage.json"
    src = "s3://collections/daily20/*.nc"
    vz(vzplan, "build", src, "-o", out, "--s3-endpoint", s3.endpoint)
    good = out.read_bytes()
    proxy = FaultProxy(s3.endpoint, 0.0, delay=0.0, outage_after=8)
    p = vz(vzplan, "build", src, "-o", out, "--s3-endpoint", proxy.url, "--retries", "2", "--jobs", "4", check=False)
    proxy.stop()
    if p.returncode != 1 or "could not be reached" not in p.stderr or "--allow-unreachable" not in p.stderr:
        errs.append(f"outage: exit {p.returncode}: {p.stderr[-2000:]}")
    if out.read_bytes() != good:
        errs.append("an outage replaced the good refs.json")
    proxy = FaultProxy(s3.endpoint, 0.0, delay=0.0, outage_after=8)
    p = vz(vzplan, "build", src, "-o", out, "--s3-endpoint", proxy.url, "--retries", "2", "--jobs", "1",
           "--allow-unreachable", "--json", check=False)
    proxy.stop()
    if p.returncode != 3:
        errs.append(f"--allow-unreachable: exit {p.returncode}: {p.stderr[-2000:]}")
    else:
        n = len(json.loads(p.stdout)["sources"])
        if not 0 < n < 20:
            errs.append(f"--allow-unreachable built {n} of 20 sources")
        report(f"outage after 8 requests: exit 1, refs.json kept; --allow-unreachable: {n} of 20 files")
    fail_on(errs)


def test_s3_icechunk_through_reset_writes(vzplan, s3, report):
    """Four builds through a proxy resetting 30 % of the writes: every build one commit on main."""
    import icechunk

    errs = []
    s3.client().create_bucket(Bucket="resets")
    proxy = FaultProxy(s3.endpoint, 0.0, delay=0.0, reset_writes=0.3)
    commits = []
    for i in range(4):
        p = vz(vzplan, "build", "s3://collections/yearly/*.nc", "--s3-endpoint", proxy.url,
               "--icechunk", "s3://resets/repo", "--json", check=False)
        if p.returncode != 0:
            errs.append(f"build {i}: exit {p.returncode}: {p.stderr[-2000:]}")
            continue
        commits.append(json.loads(p.stdout)["icechunk"]["snapshot"])
    resets = sum(proxy.counts[k] for k in ("reset_before", "reset_after", "reset_response"))
    proxy.stop()
    if resets == 0:
        errs.append("no write was reset")
    storage = icechunk.s3_storage(bucket="resets", prefix="repo", endpoint_url=s3.endpoint, allow_http=True,
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
    report(f"icechunk through resets: {len(commits)} builds, {resets} writes reset, history {len(history)}")
    fail_on(errs)
