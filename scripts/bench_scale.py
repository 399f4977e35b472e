"""The side-by-side table: vzplan against kerchunk and VirtualiZarr at scale.

    bash scripts/setup-bench.sh
    .venv-bench/bin/python scripts/bench.py --scale --vzplan target/release/vzplan \
        --out scripts/bench-results/DATE-scale-compare.json

Rounds are interleaved (vzplan, kerchunk, VirtualiZarr, the I/O floor, then again), and every tool
is measured by the CPU time (user + sys) of its own work: vzplan's whole process (start, scan,
plan, write), the Python tools' build after their imports, in a forked child each. The "I/O
floor" is a C program (compiled here with `cc`) that opens every file and makes the same number of
`pread`s of the same total size as vzplan reported for it (`--stats`): what any metadata reader
has to pay on these files, without parsing anything.
"""

import functools
import json
import os
import resource
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import bench

FLOOR_C = r"""
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
/* floor LIST: each line "path requests bytes"; per file open, `requests` preads adding up to
   `bytes` (the first one the largest, as vzplan's first read), close. */
int main(int argc, char **argv) {
    FILE *f = fopen(argv[1], "r");
    static char buf[1 << 20];
    char path[4096];
    long reqs, bytes, sum = 0;
    while (fscanf(f, "%4095s %ld %ld", path, &reqs, &bytes) == 3) {
        int fd = open(path, O_RDONLY);
        if (fd < 0) { perror(path); return 1; }
        long rest = reqs > 1 ? 4096 * (reqs - 1) : 0;
        long first = bytes - rest > 4096 ? bytes - rest : 4096;
        if (first > (long)sizeof buf) first = sizeof buf;
        sum += pread(fd, buf, first, 0);
        for (long k = 1; k < reqs; k++) sum += pread(fd, buf, 4096, first + 4096 * (k - 1));
        close(fd);
    }
    printf("%ld\n", sum);
    return 0;
}
"""


def make_vars(d, files):
    """1,000-file workload: three variables (tas, pr, huss) in 4 chunks each per file."""
    return bench.make_chunked(d, files, 4, names=("tas", "pr", "huss"), prefix="v")


def cpu_in_child(fn, paths):
    """CPU seconds (user + sys) and wall of `fn(paths)` in a forked child, imports excluded."""
    def work():
        r0, t0 = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
        out = fn(paths)
        r1, wall = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter() - t0
        cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
        return {"cpu": cpu, "wall": wall, "refs": out["refs"]}
    return bench.in_child(work)


def vzplan_stats(vz, paths, tmp):
    """Requests and bytes vzplan read per file (its `--stats` lines), for the floor's list."""
    p = subprocess.run([vz, "build", *paths, "-o", f"{tmp}/s.json", "--stats"],
                       capture_output=True, text=True)
    rows = bench.stats_per_file(p.stderr)
    return [(path, *rows[path]) for path in paths]


def floor_binary(tmp):
    return bench.compile_c(tmp, "floor", FLOOR_C)


def workload(vz, paths, rounds, tmp, tools=("kerchunk", "virtualizarr")):
    """Interleaved rounds of vzplan, the tools and the floor on `paths`; medians and ratios."""
    stats = vzplan_stats(vz, paths, tmp)
    listing = Path(tmp) / "floor.txt"
    listing.write_text("".join(f"{p} {r} {b}\n" for p, r, b in stats))
    floor = floor_binary(tmp)
    # Times not decoded: xarray cannot concatenate the standard-calendar times of these files
    # once decoded ("float() argument must be … not 'Timestamp'"), and decoding is not the work
    # measured here.
    builds = {"kerchunk": bench.kerchunk_build,
              "virtualizarr": functools.partial(bench.virtualizarr_build, decode_times=False)}
    runs = {k: [] for k in ["vzplan", "floor", *tools]}
    for _ in range(rounds):
        cpu, wall, rss = bench.cpu_run([vz, "build", *paths, "-o", f"{tmp}/r.json"])
        runs["vzplan"].append({"cpu": cpu, "wall": wall, "peak_rss_mib": rss})
        for t in tools:
            runs[t].append(cpu_in_child(builds[t], paths))
        cpu, wall, _ = bench.cpu_run([floor, str(listing)])
        runs["floor"].append({"cpu": cpu, "wall": wall})
    med = {k: {m: statistics.median(r[m] for r in v) for m in v[0] if m != "refs"}
           for k, v in runs.items() if v and "error" not in v[0]}
    errors = {k: v[0]["error"] for k, v in runs.items() if v and "error" in v[0]}
    vz_cpu = med["vzplan"]["cpu"]
    out = {"files": len(paths), "refs": len(json.load(open(f"{tmp}/r.json"))["refs"]),
           "requests_per_file": statistics.mean(r for _, r, _ in stats),
           "bytes_per_file": statistics.mean(b for _, _, b in stats),
           "median": med, "errors": errors, "rounds": rounds,
           "ratio_cpu": {k: med[k]["cpu"] / vz_cpu for k in med if k != "vzplan"}}
    print(json.dumps(out, indent=1), flush=True)
    return out


def layouts_run(vz, root, files, chunks, rounds):
    """vzplan alone from a synthetic layouts file (`fixtures/layouts.py`): refs per second, memory."""
    # Chunk tables as columns, the form `vzplan scan` writes (named so that a file of the older
    # entry-object form left by an earlier run is not taken for it).
    lay = root / f"layouts-{files}x{chunks}-columns.jsonl"
    if not lay.exists():
        subprocess.run(["python3", str(bench.ROOT / "scripts/fixtures/layouts.py"), "--files",
                        str(files), "--chunks", str(chunks), "-o", str(lay)], check=True)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(rounds):
            cpu, wall, rss = bench.cpu_run([vz, "build", "--from-layouts", str(lay),
                                            "--stack-dim", "member", "-o", f"{tmp}/r.json"])
            rows.append({"cpu": cpu, "wall": wall, "peak_rss_mib": rss})
    med = {m: statistics.median(r[m] for r in rows) for m in rows[0]}
    med["refs"] = files * chunks
    med["ns_cpu_per_ref"] = med["cpu"] / med["refs"] * 1e9
    print(json.dumps({f"layouts {files}x{chunks}": med}), flush=True)
    return med


def run(vz, root, rounds):
    root = Path(root)
    res = {"machine": f"{os.cpu_count()} cores", "date": time.strftime("%Y-%m-%d"),
           "vzplan": subprocess.run([vz, "--version"], capture_output=True,
                                    text=True).stdout.strip()}
    with tempfile.TemporaryDirectory() as tmp:
        res["1000_files_3_vars_4_chunks"] = workload(vz, make_vars(root / "vars", 1000), rounds,
                                                     tmp)
    with tempfile.TemporaryDirectory() as tmp:
        res["100_files_3072_chunks"] = workload(
            vz, bench.make_chunked(root / "chunked3072", 100, 3072), rounds, tmp)
    with tempfile.TemporaryDirectory() as tmp:
        res["1000_files_1000_chunks"] = workload(
            vz, bench.make_chunked(root / "chunked1000", 1000, 1000), 1, tmp)
    res["layouts_1m"] = layouts_run(vz, root, 1000, 1000, rounds)
    res["layouts_10m"] = layouts_run(vz, root, 1000, 10000, rounds)
    res["load_average_end"] = os.getloadavg()
    return res
