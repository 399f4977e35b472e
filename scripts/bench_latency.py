"""Latency benchmark: N netCDF-4 files on a loopback object store behind a proxy that adds a fixed
delay to every request, scanned by vzplan (and with --compare by kerchunk and VirtualiZarr).

    cargo build --release -p vzplan-cli -p vzplan-latency-proxy
    .venv/bin/python scripts/bench_latency.py --vzplan target/release/vzplan \
        [--files 1000] [--latency 0,20,50] [--store s3|http] [--compare] \
        [--proxy rust|python] [--proxy-bin target/release/vzplan-latency-proxy] \
        [--no-list-local] [--extra-keys K] --out scripts/bench-results/DATE-latency.json

The files have the `--spread` layout of scripts/fixtures/hdf5_requests.py (time, lat, lon and three
zlib variables of 4 chunks, each variable defined after the previous one's data: 2.7 MB, metadata
in three places). They are written once under --dir (kept between runs), linked into --dir/nN as
the N objects `spread_0000.nc` … `spread_{N-1:04d}.nc`, and served by moto (scripts/s3_server.py,
listed with a glob), by the Rust proxy itself (--list-local, below) or by the byte-range HTTP
server (scripts/http_server.py, given as a list of URLs with --files-from). A proxy sits in front
and sleeps --latency ms before answering each request, so that concurrent requests overlap as on a
distant store; its log gives every request's start and end.

Up to 10,000 objects, of 1,000 distinct files: object i >= 1,000 is a symbolic link to file
i % 1,000. What is measured is the scan of each object (its requests, round trips and bytes are
those of its file), not what the bytes hold, except for one thing: the planner compares the files'
`time` values, and identical copies would overlap their originals and leave every variable out.
So the Rust proxy serves each link with its `time` values rewritten to those file i would hold
(32 bytes at the time chunk's offset, --overlay of crates/vzplan-latency-proxy): the plan is that
of 10,000 distinct files. More than 1,000 objects need the Rust proxy and, on S3, --list-local.

The proxy (--proxy) is crates/vzplan-latency-proxy (`rust`, the default when --proxy-bin exists:
`cargo build --release -p vzplan-latency-proxy`) or scripts/latency_proxy.py (`python`). The Python
proxy forwards every request to moto or the HTTP server, and on two cores these Python servers
handle a few hundred requests a second: with it the benchmark measures them, not the scan. The Rust
proxy sleeps asynchronously and answers the object GETs and HEADs from the files under --dir (the
bytes uploaded to moto, under the same keys; the HTTP server's files, at the same paths). On S3 it
also answers the LIST pages (1,000 keys each, as S3), HEAD of the bucket and its location from a
listing of --dir/nN (--list-local, the default with the Rust proxy): then no moto is started, and a
second Rust proxy without delay stands for the store (the `upstream` that kerchunk's combine reads
through). With --no-list-local, moto holds the objects (uploaded, at most 1,000), lists them and
answers what the proxy forwards. --extra-keys K adds K one-byte objects `other/x_NNNNNN.txt`:
uploaded to moto, or with --list-local files under --dir/extraK (written once, kept) linked as
--dir/nN/other.

Per latency and tool: wall time; requests, dependent round trips and bytes per file (vzplan's own
`--stats --json`; the proxy's log for all); the listing (LIST pages, and the time from the first
request to the first object GET: with a listing that comes first, what it costs before any scan);
the peak number of requests in flight; and two floors for vzplan's concurrency J: requests x RTT / J
(each of J connections busy all the time) and round trips x RTT / J (J files in flight, each paying
its chain of dependent round trips), for J = 32 (where vzplan starts on object storage, or
`--jobs`) and for J = the most files vzplan had in flight (its `--stats`; it grows up to 256);
and vzplan's CPU time, which bounds the wall time from below on two cores once J is large.

With --compare (needs .venv-bench, scripts/setup-bench.sh; S3 only), in the same run and against
the same proxy: kerchunk (s3fs; SingleHdf5ToZarr per file, then MultiZarrToZarr) and VirtualiZarr
(obstore; open_virtual_dataset with HDFParser, xarray.concat, to_kerchunk), each with J files in
flight in a thread pool, as vzplan has. Only 127.0.0.1 is ever contacted.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
import urllib.request
from multiprocessing import Pool
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PY = ROOT / ".venv" / "bin" / "python"
BENCH_PY = ROOT / ".venv-bench" / "bin" / "python"
PROXY_BIN = ROOT / "target" / "release" / "vzplan-latency-proxy"
BUCKET = "bench"
# Distinct files written; the objects past them are links to them (see the docstring).
DISTINCT = 1000
# Keys are `spread_{i:04d}.nc`: four digits keep the keys' order that of i.
MAX_FILES = 10_000
CREDS = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
         "AWS_REGION": "us-east-1", "AWS_DEFAULT_REGION": "us-east-1"}


# ---------------------------------------------------------------- fixtures

def _write_one(args):
    out, i = args
    sys.path.insert(0, str(ROOT / "scripts" / "fixtures"))
    import hdf5_requests

    p = os.path.join(out, f"spread_{i:04d}.nc")
    if not os.path.exists(p):
        # Written aside, then renamed: an interrupted run leaves no half file under the name.
        hdf5_requests.spread_nc(p + ".tmp", 180, 360, i)
        os.replace(p + ".tmp", p)


def fixtures(directory: Path, n: int) -> Path:
    """The first min(n, DISTINCT) `--spread` files in directory/spread (missing ones written, two
    at a time), linked into directory/nN as n objects so that a listing or an upload sees exactly
    n: object i is file i % DISTINCT."""
    src = directory / "spread"
    src.mkdir(parents=True, exist_ok=True)
    with Pool(2) as pool:
        pool.map(_write_one, [(str(src), i) for i in range(min(n, DISTINCT))], chunksize=4)
    sel = directory / f"n{n}"
    sel.mkdir(exist_ok=True)
    for i in range(n):
        link = sel / f"spread_{i:04d}.nc"
        if not link.exists():
            link.symlink_to(src / f"spread_{i % DISTINCT:04d}.nc")
    return sel


def time_overlay(sel: Path, n: int, path: Path) -> int:
    """The proxy's --overlay for the objects past DISTINCT: the `time` values object i would hold
    as file i (hdf5_requests.spread_nc: i * 4 + 0..3), written over those of the file it links to.
    Returns how many objects it rewrites."""
    import h5py
    import numpy as np

    overlay, where = {}, {}
    for i in range(DISTINCT, n):
        base = i % DISTINCT
        if base not in where:
            f = sel / f"spread_{base:04d}.nc"
            with h5py.File(f, "r") as h5:
                t = h5["time"]
                offset, dtype = t.id.get_chunk_info(0).byte_offset, t.dtype
            values = np.asarray(base * 4 + np.arange(4), dtype=dtype).tobytes()
            with open(f, "rb") as fh:
                fh.seek(offset)
                if fh.read(len(values)) != values:
                    raise SystemExit(f"{f}: the time values are not at {offset}")
            where[base] = (offset, dtype)
        offset, dtype = where[base]
        values = np.asarray(i * 4 + np.arange(4), dtype=dtype).tobytes()
        overlay[f"spread_{i:04d}.nc"] = [[offset, values.hex()]]
    path.write_text(json.dumps(overlay))
    return len(overlay)


def extra_local(directory: Path, sel: Path, k: int):
    """k one-byte objects `other/x_NNNNNN.txt` beside the data for --list-local: the files of
    directory/extraK (written once), linked as sel/other; none (the link removed) when k is 0."""
    link = sel / "other"
    if link.is_symlink():
        link.unlink()
    if not k:
        return
    target = directory / f"extra{k}"
    target.mkdir(exist_ok=True)
    for i in range(k):
        f = target / f"x_{i:06d}.txt"
        if not f.exists():
            f.write_bytes(b"x")
    link.symlink_to(target)


# ---------------------------------------------------------------- servers

def spawn_with_info(args: list[str], tmp: Path, name: str, key: str, timeout=900.0):
    info = tmp / f"{name}.json"
    proc = subprocess.Popen([*args, "--info", str(info)], stdout=subprocess.DEVNULL,
                            stdin=subprocess.DEVNULL)
    t0 = time.monotonic()
    while True:
        if info.exists():
            try:
                return proc, json.loads(info.read_text())[key]
            except (json.JSONDecodeError, KeyError):
                pass
        if proc.poll() is not None:
            raise SystemExit(f"{name} exited with {proc.returncode}")
        if time.monotonic() - t0 > timeout:
            proc.kill()
            raise SystemExit(f"{name} did not start")
        time.sleep(0.2)


def proxy_call(proxy: str, what: str) -> dict:
    with urllib.request.urlopen(f"{proxy}/{what}", timeout=60) as r:
        return json.loads(r.read())


def add_keys(endpoint: str, n: int):
    """n small objects under `other/` in the bucket: the glob's listing (of the whole bucket, its
    literal prefix being empty) pages through them as through unrelated files beside the data."""
    from concurrent.futures import ThreadPoolExecutor

    sys.path.insert(0, str(ROOT / "tests"))
    os.environ.update(CREDS)
    from conformance.servers import s3_client

    c = s3_client(endpoint)
    with ThreadPoolExecutor(16) as ex:
        list(ex.map(lambda i: c.put_object(Bucket=BUCKET, Key=f"other/x_{i:06d}.txt", Body=b"x"),
                    range(n)))


# ---------------------------------------------------------------- analysis

def is_list(path: str) -> bool:
    return "list-type=" in path or "?prefix=" in path or "&prefix=" in path


def analyse(doc: dict, files: int, t_start: float) -> dict:
    """What the proxy saw: requests, LIST pages, bytes, in-flight peak, and when the first request
    and the first object GET started after the tool did (`t_start`, on the monotonic clock); from
    the Rust proxy also how many requests it forwarded to the server."""
    log = doc["requests"]
    gets = [r for r in log if r[2] == "GET" and not is_list(r[3])]
    lists = [r for r in log if is_list(r[3])]
    events = sorted([(r[0], 1) for r in log] + [(r[1], -1) for r in log])
    peak = cur = 0
    for _, d in events:
        cur += d
        peak = max(peak, cur)
    first = min((r[0] for r in log), default=0.0)
    out = {
        "requests": len(log),
        "object_gets": len(gets),
        "other": len(log) - len(gets) - len(lists),
        "list_pages": len(lists),
        "list_s": round(max((r[1] for r in lists), default=first) - first, 4),
        "first_get_after_s": round(min((r[0] for r in gets), default=first) - first, 4),
        "bytes": sum(r[6] for r in log),
        "peak_in_flight": peak,
        "requests_per_file": round(len(log) / files, 3),
        "bytes_per_file": round(sum(r[6] for r in gets) / files),
    }
    if "forwarded" in doc:
        out["forwarded"] = doc["forwarded"]
    if "listed" in doc:
        out["listed"] = doc["listed"]
    if log:
        out["first_request_from_start_s"] = round(doc["t0"] + first - t_start, 4)
        out["first_get_from_start_s"] = round(doc["t0"] + first + out["first_get_after_s"] - t_start, 4)
    return out


# ---------------------------------------------------------------- tools

def run_vzplan(a, proxy: str, inputs: list[str], tmp: Path) -> dict:
    out = tmp / "vz" / "refs.json"
    out.parent.mkdir(exist_ok=True)
    args = [a.vzplan, "build", *inputs, "-o", str(out), "--json", "--stats", "--force"]
    if a.store == "s3":
        args += ["--s3-endpoint", proxy]
    if a.jobs:
        args += ["--jobs", str(a.jobs)]
    # CPU as the children reaped so far add up: vzplan is the only one reaped in between.
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    p = subprocess.run(args, capture_output=True, text=True, env={**os.environ, **CREDS})
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        raise SystemExit(f"vzplan exit {p.returncode}: {p.stderr[-2000:]}")
    doc = json.loads(p.stdout)
    total = find_key(doc, "total")
    n = max(total.get("files", 1), 1)
    sources = refs_sources(out)
    if sources != a.files:
        print(f"vzplan's refs name {sources} sources, not {a.files}", file=sys.stderr)
    return {
        "wall_s": round(wall, 4),
        "cpu_s": round((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), 4),
        "files": n,
        "stats_requests_per_file": round(total["requests"] / n, 3),
        "stats_round_trips_per_file": round(total["round_trips"] / n, 3),
        "stats_bytes_per_file": round(total["bytes"] / n),
        "stats_round_trips_total": total["round_trips"],
        "stats_in_flight": total.get("in_flight", 0),
        "refs_bytes": out.stat().st_size,
        "refs_sources": sources,
    }


def refs_sources(path: Path) -> int:
    """How many distinct objects a kerchunk reference file points at (templates resolved)."""
    doc = json.loads(path.read_text())
    templates = doc.get("templates", {})
    urls = set()
    for v in doc["refs"].values():
        if isinstance(v, list) and v and isinstance(v[0], str):
            u = v[0]
            if u.startswith("{{") and u.endswith("}}"):
                u = templates.get(u[2:-2], u)
            urls.add(u)
    return len(urls)


def find_key(doc, key):
    """The first object under `key` that has request counts (the --stats part of --json)."""
    if isinstance(doc, dict):
        if key in doc and isinstance(doc[key], dict) and "requests" in doc[key]:
            return doc[key]
        for v in doc.values():
            r = find_key(v, key)
            if r is not None:
                return r
    elif isinstance(doc, list):
        for v in doc:
            r = find_key(v, key)
            if r is not None:
                return r
    return None


def run_python_tool(a, tool: str, proxy: str, upstream: str, files: int) -> dict:
    args = [str(BENCH_PY), __file__, "--tool", tool, "--endpoint", proxy, "--upstream", upstream,
            "--files", str(files),
            "--jobs", str(a.jobs or 32)]
    t = time.perf_counter()
    p = subprocess.run(args, capture_output=True, text=True, env={**os.environ, **CREDS})
    wall = time.perf_counter() - t
    if p.returncode != 0:
        return {"error": p.stderr[-1500:], "process_wall_s": round(wall, 3)}
    r = json.loads(p.stdout.strip().splitlines()[-1])
    r["process_wall_s"] = round(wall, 3)
    return r


def tool_main(a):
    """In .venv-bench: one tool's build through the proxy, timed after its imports; one JSON line."""
    from concurrent.futures import ThreadPoolExecutor

    import xarray as xr  # noqa: F401  (imported before timing)

    if a.tool == "kerchunk":
        import s3fs
        from kerchunk.combine import MultiZarrToZarr
        from kerchunk.hdf import SingleHdf5ToZarr

        t = time.perf_counter()
        fs = s3fs.S3FileSystem(key="testing", secret="testing",
                               client_kwargs={"endpoint_url": a.endpoint, "region_name": "us-east-1"})
        paths = sorted(fs.glob(f"{BUCKET}/spread_*.nc"))
        t_listed = time.perf_counter()

        def one(p):
            with fs.open(p, "rb") as f:
                return SingleHdf5ToZarr(f, url=f"s3://{p}", inline_threshold=0).translate()

        with ThreadPoolExecutor(a.jobs) as ex:
            singles = list(ex.map(one, paths))
        # The combine reads each file's `time` values through the references. Through the proxy
        # aiohttp's connections are dropped ("Server disconnected"), so these reads go to the
        # store itself (moto, or with --list-local the Rust proxy without delay that stands for
        # it): without the added latency, in kerchunk's favour.
        remote = {"key": "testing", "secret": "testing",
                  "client_kwargs": {"endpoint_url": a.upstream, "region_name": "us-east-1"}}
        refs = MultiZarrToZarr(singles, concat_dims=["time"], identical_dims=["lat", "lon"],
                               remote_protocol="s3", remote_options=remote).translate()
    else:
        import xarray as xr
        from obspec_utils.registry import ObjectStoreRegistry
        from obstore.store import S3Store
        from virtualizarr import open_virtual_dataset
        from virtualizarr.parsers import HDFParser

        t = time.perf_counter()
        store = S3Store(BUCKET, endpoint=a.endpoint, access_key_id="testing", secret_access_key="testing",
                        region="us-east-1", client_options={"allow_http": True})
        # obstore's prefix is a whole path segment: the bucket is listed and filtered here.
        keys = sorted(m["path"] for batch in store.list() for m in batch
                      if m["path"].startswith("spread_") and m["path"].endswith(".nc"))
        t_listed = time.perf_counter()
        reg = ObjectStoreRegistry({f"s3://{BUCKET}": store})

        def one(k):
            return open_virtual_dataset(f"s3://{BUCKET}/{k}", registry=reg, parser=HDFParser(),
                                        loadable_variables=["time", "lat", "lon"], decode_times=False)

        with ThreadPoolExecutor(a.jobs) as ex:
            vds = list(ex.map(one, keys))
        combined = xr.concat(vds, dim="time", coords="minimal", compat="override", join="override")
        refs = combined.vz.to_kerchunk(format="dict")
    wall = time.perf_counter() - t
    print(json.dumps({"wall_s": round(wall, 4), "list_s": round(t_listed - t, 4),
                      "refs": len(refs["refs"])}))


# ---------------------------------------------------------------- driver

def floors(rtt_s: float, jobs: int, requests: int, round_trips: int) -> dict:
    return {"floor_requests_s": round(requests * rtt_s / jobs, 4),
            "floor_round_trips_s": round(round_trips * rtt_s / jobs, 4)}


def inputs_for(a, proxy: str, sel: Path, tmp: Path) -> list[str]:
    """S3: one glob, listed by vzplan. HTTP cannot be listed: a list of the files' URLs through
    the proxy (known once it listens)."""
    if a.store == "s3":
        return [f"s3://{BUCKET}/spread_*.nc"]
    lst = tmp / "list.txt"
    lst.write_text("".join(f"{proxy}/{p.name}\n" for p in sorted(sel.iterdir())))
    return ["--files-from", str(lst)]


def proxy_args(a, ms: float, upstream: str | None, sel: Path) -> list[str]:
    """The proxy's command line. The Rust proxy reads the objects from `sel`: moto's keys are the
    paths under it (scripts/s3_server.py --upload bench=SEL), as are the HTTP server's URL paths;
    with --list-local it lists them too. Without `upstream`, the Rust proxy that stands for the
    store."""
    if a.proxy == "python":
        return [str(PY), str(ROOT / "scripts" / "latency_proxy.py"), upstream, "--delay-ms", str(ms)]
    args = [a.proxy_bin, *([upstream] if upstream else []), "--delay-ms", str(ms),
            "--local-root", str(sel)]
    if a.store == "s3":
        args += ["--bucket", BUCKET] + (["--list-local"] if a.list_local else [])
    return args + (["--overlay", str(a.overlay)] if a.overlay else [])


def bench_latency(a, ms: float, upstream: str, sel: Path, tmp: Path, tools: list[str]) -> dict:
    proxy_proc, proxy = spawn_with_info(proxy_args(a, ms, upstream, sel), tmp, f"proxy{ms}", "url")
    inputs = inputs_for(a, proxy, sel, tmp)
    jobs = a.jobs or 32
    row = {"latency_ms": ms, "jobs": jobs, "rounds": []}
    try:
        for _ in range(a.repeat):
            rnd = {}
            for tool in tools:
                proxy_call(proxy, "__reset")
                t_start = time.monotonic()
                if tool == "vzplan":
                    r = run_vzplan(a, proxy, inputs, tmp)
                else:
                    r = run_python_tool(a, tool, proxy, upstream, a.files)
                if "error" not in r:
                    seen = analyse(proxy_call(proxy, "__log"), a.files, t_start)
                    r["proxy"] = seen
                    rts = r.get("stats_round_trips_total", 0)
                    r.update(floors(ms / 1000, jobs, seen["requests"], rts))
                    if r.get("stats_in_flight"):
                        # The same floors for the most files vzplan had in flight (it adapts).
                        peak = floors(ms / 1000, r["stats_in_flight"], seen["requests"], rts)
                        r.update({f"{k}_at_peak": v for k, v in peak.items()})
                rnd[tool] = r
                print(f"{ms:>4} ms {tool:12} {json.dumps(r)}", file=sys.stderr, flush=True)
            row["rounds"].append(rnd)
    finally:
        proxy_proc.terminate()
        proxy_proc.wait()
    return row


def median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2] if len(xs) % 2 else (xs[len(xs) // 2 - 1] + xs[len(xs) // 2]) / 2


def table(path: str) -> str:
    """The markdown rows of a result file: medians over the rounds, per latency and tool."""
    doc = json.loads(Path(path).read_text())
    lines = []
    for row in doc["rows"]:
        ms = row["latency_ms"]
        tools = [t for t in ("vzplan", "kerchunk", "virtualizarr") if t in row["rounds"][0]]
        for tool in tools:
            rs = [r[tool] for r in row["rounds"] if "error" not in r[tool]]
            if not rs:
                lines.append(f"| {ms:g} ms | {tool} | failed | | | | | | |")
                continue
            med = lambda f: median([f(r) for r in rs])  # noqa: E731
            walls = "/".join(f"{r['wall_s']:.2f}" for r in rs)
            rt = f"{med(lambda r: r['stats_round_trips_per_file']):.2f}" if tool == "vzplan" else "–"
            floor = (f"{med(lambda r: r['floor_requests_s']):.2f} / "
                     f"{med(lambda r: r['floor_round_trips_s']):.2f}") if tool == "vzplan" else "–"
            if tool == "vzplan" and all("floor_round_trips_s_at_peak" in r for r in rs):
                floor += (f"; {med(lambda r: r['stats_in_flight']):g} files: "
                          f"{med(lambda r: r['floor_requests_s_at_peak']):.2f} / "
                          f"{med(lambda r: r['floor_round_trips_s_at_peak']):.2f}")
                floor += f"; CPU {med(lambda r: r['cpu_s']):.2f} s"
            lines.append(
                f"| {ms:g} ms | {tool} | {walls} | {med(lambda r: r['proxy']['requests_per_file']):.2f} | {rt} "
                f"| {med(lambda r: r['proxy']['bytes_per_file']) / 1024:.0f} KiB "
                f"| {med(lambda r: r['proxy']['list_pages']):g} ({med(lambda r: r['proxy']['list_s']):.2f} s) "
                f"| {med(lambda r: r['proxy']['first_get_from_start_s']):.2f} s "
                f"| {med(lambda r: r['proxy']['peak_in_flight']):g} | {floor} |")
    return "\n".join(lines)


def check_args(ap, a) -> list[str]:
    """The options checked and completed (proxy, --list-local); the tools to run."""
    a.vzplan = str(Path(a.vzplan).resolve())
    a.proxy_bin = str(Path(a.proxy_bin).resolve())
    if a.proxy is None:
        a.proxy = "rust" if Path(a.proxy_bin).exists() else "python"
        if a.proxy == "python":
            print(f"{a.proxy_bin} not found: the Python proxy (cargo build --release -p "
                  "vzplan-latency-proxy for the Rust one)", file=sys.stderr)
    elif a.proxy == "rust" and not Path(a.proxy_bin).exists():
        ap.error(f"--proxy rust: {a.proxy_bin} not found (cargo build --release -p vzplan-latency-proxy)")
    if a.list_local is None:
        a.list_local = a.proxy == "rust" and a.store == "s3"
    elif a.list_local and (a.proxy != "rust" or a.store != "s3"):
        ap.error("--list-local needs the Rust proxy and --store s3")
    if not 1 <= a.files <= MAX_FILES:
        ap.error(f"--files: 1 to {MAX_FILES:,}")
    if a.files > DISTINCT and a.proxy != "rust":
        ap.error(f"more than {DISTINCT:,} files need the Rust proxy (it rewrites the links' time values)")
    if a.files > DISTINCT and a.store == "s3" and not a.list_local:
        ap.error(f"more than {DISTINCT:,} files on S3 need --list-local (moto holds them in memory)")
    if a.extra_keys and a.store != "s3":
        ap.error("--extra-keys needs --store s3")
    tools = ["vzplan"]
    if a.compare:
        if a.store != "s3":
            ap.error("--compare needs --store s3")
        if not BENCH_PY.exists():
            ap.error("--compare needs .venv-bench (bash scripts/setup-bench.sh)")
        tools += ["kerchunk", "virtualizarr"]
    return tools


def start_store(a, sel: Path, tmp: Path):
    """The store behind the latency proxy, and its URL: with --list-local a Rust proxy without
    delay answering from `sel` (the extra keys linked into it), else moto with `sel` uploaded (and
    the extra keys put) or the HTTP server of `sel`."""
    # The link is left from a run with --list-local: other modes list or serve `sel` without it.
    extra_local(Path(a.dir), sel, a.extra_keys if a.list_local else 0)
    if a.list_local:
        return spawn_with_info(proxy_args(a, 0, None, sel), tmp, "store", "url")
    if a.store == "s3":
        server, upstream = spawn_with_info([str(PY), str(ROOT / "scripts" / "s3_server.py"),
                                            "--upload", f"{BUCKET}={sel}", "--lifetime", "7200"],
                                           tmp, "s3", "endpoint")
        if a.extra_keys:
            add_keys(upstream, a.extra_keys)
        return server, upstream
    return spawn_with_info([str(PY), str(ROOT / "scripts" / "http_server.py"), str(sel)],
                           tmp, "http", "url")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--vzplan", help="the vzplan binary")
    ap.add_argument("--files", type=int, default=1000,
                    help=f"objects, at most {MAX_FILES:,}; past {DISTINCT:,} they are links to the "
                         f"first {DISTINCT:,} files (see above)")
    ap.add_argument("--dir", default="/tmp/vzplan-latency", help="where the files are written (kept)")
    ap.add_argument("--latency", default="0,20,50", help="added ms per request, comma-separated")
    ap.add_argument("--store", choices=["s3", "http"], default="s3")
    ap.add_argument("--jobs", type=int, help="files in flight (vzplan's --jobs; default 32)")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--extra-keys", type=int, default=0,
                    help="S3: this many more objects in the bucket, listed but not matched")
    ap.add_argument("--list-local", action=argparse.BooleanOptionalAction,
                    help="S3 with the Rust proxy: the proxy lists the bucket from --dir and no moto "
                         "is started (the default); --no-list-local: moto holds, lists and serves "
                         "the objects behind the proxy")
    ap.add_argument("--compare", action="store_true", help="also kerchunk and VirtualiZarr (.venv-bench)")
    ap.add_argument("--proxy", choices=["rust", "python"],
                    help="the latency proxy: rust (crates/vzplan-latency-proxy; the default when "
                         "--proxy-bin exists) or python (scripts/latency_proxy.py)")
    ap.add_argument("--proxy-bin", default=str(PROXY_BIN),
                    help="the Rust proxy's binary (cargo build --release -p vzplan-latency-proxy); "
                         "default: %(default)s")
    ap.add_argument("--out", help="write the results as JSON here")
    ap.add_argument("--tool", choices=["kerchunk", "virtualizarr"], help=argparse.SUPPRESS)
    ap.add_argument("--endpoint", help=argparse.SUPPRESS)
    ap.add_argument("--upstream", help=argparse.SUPPRESS)
    ap.add_argument("--table", metavar="JSON", help="print a result file's rows for docs/benchmarks.md")
    a = ap.parse_args()
    if a.table:
        print(table(a.table))
        return
    if a.tool:
        tool_main(a)
        return
    if not a.vzplan:
        ap.error("--vzplan is required")
    tools = check_args(ap, a)
    sel = fixtures(Path(a.dir), a.files)
    with tempfile.TemporaryDirectory(prefix="vzplan-latency-") as td:
        tmp = Path(td)
        a.overlay = None
        if a.files > DISTINCT:
            a.overlay = tmp / "overlay.json"
            time_overlay(sel, a.files, a.overlay)
        t = time.monotonic()
        server, upstream = start_store(a, sel, tmp)
        print(f"{a.store} server ready in {time.monotonic() - t:.1f} s", file=sys.stderr)
        try:
            rows = [bench_latency(a, float(ms), upstream, sel, tmp, tools)
                    for ms in a.latency.split(",")]
        finally:
            server.terminate()
            server.wait()
    doc = {"date": time.strftime("%Y-%m-%d %H:%M"), "machine": platform.platform(),
           "cpus": os.cpu_count(), "load": os.getloadavg(), "files": a.files, "store": a.store,
           "extra_keys": a.extra_keys, "jobs": a.jobs or 32, "proxy": a.proxy,
           "list_local": a.list_local, "distinct_files": min(a.files, DISTINCT),
           "layout": "hdf5_requests.py --spread (2.7 MB netCDF-4)", "rows": rows}
    if a.files > DISTINCT:
        doc["objects"] = (f"object i is a link to file i % {DISTINCT} with its time values "
                          "rewritten as served: each object is scanned as a distinct file, the "
                          "bytes are shared")
    text = json.dumps(doc, indent=1)
    if a.out:
        Path(a.out).write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
