"""Benchmarks: vzplan against kerchunk and VirtualiZarr on the same netCDF-4 files.

    bash scripts/setup-bench.sh            # .venv-bench: the pinned packages + kerchunk, virtualizarr
    .venv-bench/bin/python scripts/bench.py --vzplan target/release/vzplan [--files 40] [--out bench.json]
    .venv/bin/python scripts/bench.py --vzplan target/release/vzplan --sweep [--out sweep.json]

Two parts (or, with --sweep, only the third):
1. Speed and reads on a collection all three tools can combine (365-day files in regular chunks):
   wall time (median of --repeat runs), peak memory, read requests and bytes per file, refs written.
   kerchunk's reads are counted as read system calls (/proc/self/io), vzplan's as the requests its
   block cache makes (--stats); on object storage each of those would be one GET.
2. Capability on the shipped collections (testdata/collections): does each tool build the
   combined dataset, and does what it builds read back the same values as netCDF4-python?
3. --sweep: vzplan alone, CPU time (user + sys, from wait4) and peak RSS as the number of files
   grows (100 -> 3,000 small files of 5 chunks) and as the chunks per file grow (4 -> 3,000, 20
   files), with the cost per file and per reference: both must stay flat (cost linear in files
   and in chunks). Only netCDF4-python is needed, so the test venv (.venv) runs it.
Nothing here runs in CI; the figures go to docs/benchmarks.md.
"""

import argparse
import atexit
import glob
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import netCDF4
import numpy as np

ROOT = Path(__file__).resolve().parent.parent


def make_collection(d, files, ny, nx, chunk_t):
    d.mkdir(parents=True, exist_ok=True)
    paths = []
    for i in range(files):
        p = d / f"tas_{2000 + i}.nc"
        paths.append(str(p))
        if p.exists():
            continue
        with netCDF4.Dataset(p, "w", format="NETCDF4") as ds:
            ds.createDimension("time", None)
            ds.createDimension("lat", ny)
            ds.createDimension("lon", nx)
            t = ds.createVariable("time", "f8", ("time",))
            t.units = "days since 2000-01-01"
            t.calendar = "noleap"
            t[:] = np.arange(365 * i, 365 * (i + 1))
            ds.createVariable("lat", "f4", ("lat",))[:] = np.linspace(-89, 89, ny)
            ds.createVariable("lon", "f4", ("lon",))[:] = np.linspace(0, 358, nx)
            v = ds.createVariable("tas", "f4", ("time", "lat", "lon"), zlib=True, shuffle=True,
                                  complevel=1, chunksizes=(chunk_t, ny, nx))
            rng = np.random.default_rng(i)
            v[:] = np.round(280 + rng.standard_normal((365, ny, nx)), 1).astype("f4")
    return paths


def make_chunked(d, files, chunks, names=("tas",), prefix="tas"):
    """`files` netCDF-4 files of `chunks` time steps each, with the variables `names`(time, 4, 8)
    in one zlib chunk per step, and a `time` coordinate running on across the files."""
    d.mkdir(parents=True, exist_ok=True)
    paths = []
    for i in range(files):
        p = d / f"{prefix}_{i:05d}.nc"
        paths.append(str(p))
        if p.exists():
            continue
        with netCDF4.Dataset(p, "w", format="NETCDF4") as ds:
            ds.createDimension("time", None)
            ds.createDimension("lat", 4)
            ds.createDimension("lon", 8)
            t = ds.createVariable("time", "f8", ("time",))
            t.units = "days since 2000-01-01"
            t[:] = np.arange(chunks * i, chunks * (i + 1))
            rng = np.random.default_rng(i)
            for name in names:
                v = ds.createVariable(name, "f4", ("time", "lat", "lon"), zlib=True,
                                      complevel=1, chunksizes=(1, 4, 8))
                v[:] = rng.standard_normal((chunks, 4, 8)).astype("f4")
    return paths


RUNNER_C = r"""
#include <fcntl.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
/* runner OUT CMD ARGS...: runs CMD with its output to /dev/null and writes the child's own
   usage to OUT: "user_us sys_us maxrss_kib exit_code". Not the runner's: wait4 reports the
   child alone, where GNU time's usage included GNU time itself (~0.8 ms a run). */
int main(int argc, char **argv) {
    if (argc < 3) return 2;
    pid_t pid = fork();
    if (pid == 0) {
        int fd = open("/dev/null", O_WRONLY);
        dup2(fd, 1);
        dup2(fd, 2);
        execvp(argv[2], argv + 2);
        _exit(127);
    }
    int st;
    struct rusage ru;
    if (pid < 0 || wait4(pid, &st, 0, &ru) < 0) return 1;
    FILE *f = fopen(argv[1], "w");
    if (!f) return 1;
    fprintf(f, "%ld %ld %ld %d\n",
            ru.ru_utime.tv_sec * 1000000L + ru.ru_utime.tv_usec,
            ru.ru_stime.tv_sec * 1000000L + ru.ru_stime.tv_usec, ru.ru_maxrss,
            WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
    return fclose(f) != 0;
}
"""

def compile_c(directory, name, source):
    """`source` compiled with `cc -O2` into `directory/name`; the executable's path."""
    src, exe = Path(directory) / f"{name}.c", Path(directory) / name
    src.write_text(source)
    subprocess.run(["cc", "-O2", "-o", str(exe), str(src)], check=True)
    return str(exe)


_runner = None


def runner():
    """The runner above, compiled once into a temporary directory removed at exit."""
    global _runner
    if _runner is None:
        d = tempfile.mkdtemp(prefix="vzplan-bench-runner-")
        atexit.register(shutil.rmtree, d, True)
        _runner = compile_c(d, "runner", RUNNER_C)
    return _runner


def cpu_run(argv):
    """CPU seconds (user + sys, to the microsecond), wall seconds and peak RSS in MiB of one
    vzplan (or floor) run: its own, as a small C runner's wait4 reports them. Not from this
    Python: a child forked from it would count Python's pages in its peak; and not through GNU
    time, whose own CPU (~0.8 ms) wait4 on it adds to the command's (runs before 2026-12-05g)."""
    with tempfile.NamedTemporaryFile("r") as tf:
        t = time.perf_counter()
        subprocess.run([runner(), tf.name, *argv], check=True)
        wall = time.perf_counter() - t
        user, sys_, rss, code = (int(x) for x in tf.read().split())
    if code not in (0, 3):
        raise RuntimeError(f"{argv[:2]} exited {code}")
    return (user + sys_) / 1e6, wall, rss / 1024


def sweep_point(vz, paths, repeat, tmp):
    for p in paths:  # into the page cache: the sweep measures vzplan, not the disk
        Path(p).read_bytes()
    out = f"{tmp}/refs.json"
    runs = [cpu_run([vz, "build", *paths, "-o", out, "--force"]) for _ in range(repeat)]
    refs = len(json.load(open(out))["refs"])
    cpu = statistics.median(r[0] for r in runs)
    return {"files": len(paths), "refs": refs, "cpu_s": round(cpu, 4),
            "wall_s": round(statistics.median(r[1] for r in runs), 4),
            "peak_rss_mib": round(max(r[2] for r in runs), 1),
            "cpu_us_per_file": round(cpu / len(paths) * 1e6, 1),
            "cpu_ns_per_ref": round(cpu / refs * 1e9, 1)}


def marginal(points, key):
    """Cost of one more file (or ref) between consecutive points: flat when cost is linear (the
    first point's figure per file also carries the process start)."""
    for a, b in zip(points, points[1:]):
        b[f"marginal_{key}"] = round((b["cpu_s"] - a["cpu_s"]) / max(1, b[key] - a[key]) * 1e6, 2)


def sweep(vz, root, repeat, file_counts, chunk_counts, chunk_files):
    """Cost against files (small files, 5 chunks each) and against chunks per file."""
    res = {"files": [], "chunks_per_file": []}
    many = make_collection(root / "sweep_files", max(file_counts), 10, 20, 73)
    with tempfile.TemporaryDirectory() as tmp:
        for n in file_counts:
            res["files"].append(sweep_point(vz, many[:n], repeat, tmp))
        for c in chunk_counts:
            paths = make_chunked(root / f"sweep_chunks_{c}", chunk_files, c)
            res["chunks_per_file"].append({"chunks_per_file": c, **sweep_point(vz, paths, repeat, tmp)})
    marginal(res["files"], "files")  # µs per file
    marginal(res["chunks_per_file"], "refs")  # µs per ref
    for r in res["files"] + res["chunks_per_file"]:
        print(json.dumps(r), flush=True)
    return res


class ReadCounter:
    """Read system calls and bytes of this process, from /proc/self/io (syscr, rchar) deltas:
    every read h5py makes through the file object, whatever path it takes."""

    @staticmethod
    def _now():
        io = dict(line.split(": ") for line in Path("/proc/self/io").read_text().splitlines())
        return int(io["syscr"]), int(io["rchar"])

    def __init__(self):
        self.c0, self.b0 = self._now()

    @property
    def calls(self):
        return self._now()[0] - self.c0

    @property
    def bytes(self):
        return self._now()[1] - self.b0


def run_vzplan(vz, paths, out, repeat):
    """Wall time (median), peak RSS of the vzplan process itself (GNU time's %M, since a child
    forked from this Python would report Python's pages), requests and bytes per file (--stats)."""
    times, rss = [], 0
    for _ in range(repeat):
        with tempfile.NamedTemporaryFile("r") as tf:
            t = time.perf_counter()
            p = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", tf.name, vz, "build", *paths,
                                "-o", out, "--stats", "--json", "--jobs", "2"],
                               capture_output=True, text=True)
            times.append(time.perf_counter() - t)
            if p.returncode != 0:
                raise RuntimeError(p.stderr)
            rss = max(rss, int(tf.read().split()[-1]))  # KiB
    per_file = stats_per_file(p.stderr).values()
    reqs = [r for r, _ in per_file]
    byts = [b for _, b in per_file]
    refs = json.load(open(out))["refs"]
    return {"seconds": statistics.median(times), "peak_rss_mib": rss / 1024,
            "requests_per_file": statistics.mean(reqs), "bytes_per_file": statistics.mean(byts),
            "refs": len(refs)}


def stats_per_file(stderr):
    """`--stats` lines ("PATH: N request(s), B bytes read of …") as {path: (requests, bytes)}."""
    rows = {}
    for line in stderr.splitlines():
        if "request(s)," in line and not line.startswith("total"):
            name, rest = line.rsplit(": ", 1)
            rows[name.strip()] = (int(rest.split()[0]), int(rest.rsplit(", ", 1)[1].split()[0]))
    return rows


def in_child(fn, *args):
    """Runs fn in a fresh interpreter-like fork so peak memory and counters are per tool."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            res = fn(*args)
        except Exception as e:  # reported, not raised: a tool refusing is a result
            res = {"error": f"{type(e).__name__}: {str(e).splitlines()[0][:200]}"}
        res["peak_rss_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        os.write(w, json.dumps(res).encode())
        os._exit(0)
    os.close(w)
    data = b""
    while chunk := os.read(r, 65536):
        data += chunk
    os.waitpid(pid, 0)
    return json.loads(data)


def kerchunk_build(paths, concat="time"):
    from kerchunk.combine import MultiZarrToZarr
    from kerchunk.hdf import SingleHdf5ToZarr

    import h5py  # noqa: F401  (imported before counting)

    t = time.perf_counter()
    c = ReadCounter()
    singles = [SingleHdf5ToZarr(p, inline_threshold=0).translate() for p in paths]
    combined = MultiZarrToZarr(singles, concat_dims=[concat], identical_dims=["lat", "lon"]).translate()
    calls, nbytes = c.calls, c.bytes
    return {"seconds": time.perf_counter() - t, "read_syscalls_per_file": calls / len(paths),
            "bytes_per_file": nbytes / len(paths), "refs": len(combined["refs"]), "_refs": combined}


def virtualizarr_build(paths, concat="time", decode_times=None):
    import xarray as xr
    from obstore.store import LocalStore
    from virtualizarr import open_virtual_dataset
    from virtualizarr.parsers import HDFParser
    from obspec_utils.registry import ObjectStoreRegistry

    t = time.perf_counter()
    reg = ObjectStoreRegistry({"file://": LocalStore()})
    vds = [open_virtual_dataset("file://" + os.path.abspath(p), registry=reg, parser=HDFParser(),
                                loadable_variables=["time", "lat", "lon"], decode_times=decode_times)
           for p in paths]
    combined = xr.concat(vds, dim=concat, coords="minimal", compat="override", join="override")
    refs = combined.vz.to_kerchunk(format="dict")
    return {"seconds": time.perf_counter() - t, "refs": len(refs["refs"]), "_refs": refs}


def timed(fn, paths, repeat):
    runs = [in_child(lambda: {k: v for k, v in fn(paths).items() if k != "_refs"}) for _ in range(repeat)]
    if "error" in runs[0]:
        return runs[0]
    out = dict(runs[-1])
    out["seconds"] = statistics.median(r["seconds"] for r in runs)
    out["peak_rss_mib"] = max(r["peak_rss_mib"] for r in runs)
    return out


def raw(path, var):
    with netCDF4.Dataset(path) as ds:
        v = ds[var]
        v.set_auto_maskandscale(False)
        return np.asarray(v[...])


def kerchunk_readback(refs, paths, var="tas"):
    import fsspec
    import zarr

    fs = fsspec.filesystem("reference", fo=refs, remote_protocol="file", asynchronous=True)
    g = zarr.open_group(zarr.storage.FsspecStore(fs, read_only=True), mode="r", zarr_format=2)
    got = g[var][...]
    want = np.concatenate([raw(p, var) for p in sorted(paths, key=lambda p: raw(p, "time")[0])])
    if got.shape != want.shape:
        return f"wrong shape {got.shape} (expected {want.shape})"
    bad = int(np.sum(~((got == want) | (np.isnan(got) & np.isnan(want)))))
    return "exact" if bad == 0 else f"{bad} wrong values"


def capability(vz):
    rows = []
    for case in ["yearly", "daily20", "monthly", "padded", "padded_raw"]:
        paths = sorted(glob.glob(str(ROOT / "testdata/collections" / case / "*.nc")))
        row = {"case": case, "files": len(paths)}
        with tempfile.TemporaryDirectory() as tmp:
            p = subprocess.run([vz, "build", *paths, "-o", f"{tmp}/r.json", "--json"],
                               capture_output=True, text=True)
            rep = json.loads(p.stdout) if p.stdout else {}
            row["vzplan"] = ("built, exact (tests/conformance)" if "tas" in [a["path"] for a in rep.get("arrays", [])]
                             else "refused tas with findings: " + ", ".join(sorted({f["kind"] for f in rep.get("findings", [])})))
        r = in_child(lambda: _kerchunk_case(paths))
        row["kerchunk"] = r.get("error") or r["result"]
        r = in_child(lambda: _vz_case(paths))
        row["virtualizarr"] = r.get("error") or r["result"]
        rows.append(row)
    return rows


def _kerchunk_case(paths):
    b = kerchunk_build(paths)
    return {"result": "built, read back: " + kerchunk_readback(b["_refs"], paths)}


def _vz_case(paths):
    b = virtualizarr_build(paths)
    return {"result": "built, read back: " + kerchunk_readback(b["_refs"], paths)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--vzplan", default=str(ROOT / "target/release/vzplan"))
    ap.add_argument("--files", type=int, default=40)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--dir", default="/tmp/vzplan-bench")
    ap.add_argument("--out", default=None)
    ap.add_argument("--sweep", action="store_true", help="cost against files and chunks per file")
    ap.add_argument("--scale", action="store_true",
                    help="the side-by-side table: 1,000 files, 307 k and 1 M refs against kerchunk and VirtualiZarr")
    ap.add_argument("--sweep-files", default="100,300,1000,3000")
    ap.add_argument("--sweep-chunks", default="4,30,300,3000")
    ap.add_argument("--sweep-chunk-files", type=int, default=20, help="files per chunks point")
    args = ap.parse_args()
    if args.scale:
        import bench_scale
        res = bench_scale.run(args.vzplan, args.dir, args.repeat)
        if args.out:
            Path(args.out).write_text(json.dumps(res, indent=1))
        return
    if args.sweep:
        ints = lambda s: [int(x) for x in s.split(",")]  # noqa: E731
        res = sweep(args.vzplan, Path(args.dir), args.repeat, ints(args.sweep_files),
                    ints(args.sweep_chunks), args.sweep_chunk_files)
        res["machine"] = f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.1f} at the end"
        if args.out:
            Path(args.out).write_text(json.dumps(res, indent=1))
        return
    results = {"machine": f"{os.cpu_count()} cores", "collections": {}}
    for name, (ny, nx, ct) in {"regular_5_chunks_per_file": (90, 180, 73),
                               "many_365_chunks_per_file": (45, 90, 1)}.items():
        paths = make_collection(Path(args.dir) / name, args.files, ny, nx, ct)
        size = sum(os.path.getsize(p) for p in paths)
        with tempfile.TemporaryDirectory() as tmp:
            res = {"files": len(paths), "total_mib": size / 2**20,
                   "vzplan": run_vzplan(args.vzplan, paths, f"{tmp}/refs.json", args.repeat),
                   "kerchunk": timed(kerchunk_build, paths, args.repeat),
                   "virtualizarr": timed(virtualizarr_build, paths, args.repeat)}
        results["collections"][name] = res
        print(json.dumps({name: res}, indent=1), flush=True)
    results["capability"] = capability(args.vzplan)
    print(json.dumps(results["capability"], indent=1))
    if args.out:
        Path(args.out).write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    sys.exit(main())
