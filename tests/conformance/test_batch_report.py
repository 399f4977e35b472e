"""The batch report end to end: --batch-files netCDF-4 files written by netCDF4-python (the
`padded` collection's writer, scripts/fixtures/collection_sets.py) whose padded last chunk sits in
the middle of the combined array, all but the last. `vzplan plan` starts with a summary (1 of N
fits, N-1 need a rewrite, their bytes), shows the N-1 findings as ONE group with a shortened file
list and one shell loop, `--json` carries the same as `summary`; then the loop is run (nccopy) and
the rewritten files planned: everything fits (exit 0)."""

from __future__ import annotations

import json
import os
import shutil

from .helpers import fail_on, fixture_generator, run


def text_errors(vz, files, bad, d, n) -> tuple[list[str], str]:
    """The text report's summary, group, shortened list and loop; (errors, the loop)."""
    errors = []

    def check(ok, what):
        if not ok:
            errors.append(what)

    text = run([vz, "plan", *files])
    check(text.returncode == 3, f"plan exit {text.returncode}, expected 3\n{text.stderr}")
    lines = text.stdout.splitlines()
    check(lines[1].startswith(f"summary: 1 of {n} file(s) fit as they are; {n - 1} need a rewrite ("),
          f"summary line: {lines[1]!r}")
    check(any(f"{n - 1} file(s) (" in l and "padded interior chunk in tas: nccopy" in l for l in lines),
          "no rewrite line in the summary")
    grouped = [l for l in lines if l.startswith(f"  [error] {n - 1} files: tas: last chunk along time")]
    check(len(grouped) == 1, f"expected one group of {n - 1} files:\n{text.stdout}")
    check(not any(l.startswith(f"  [error] {bad[0]}") for l in lines), "a file of the group has a line of its own")
    check(any(l.endswith(f" and {n - 4} more") for l in lines), "file list not shortened")
    loops = [l.split("all at once: ", 1)[1] for l in lines if "all at once: " in l]
    want = (f'for f in {d}/tas_*.nc; do case "$f" in {files[-1]}) continue;; esac; '
            f'nccopy -c time/100,lat/3,lon/4 "$f" "${{f%.nc}}.rechunked.nc"; done')
    check(loops == [want], f"loop {loops}, expected [{want!r}]")
    return errors, want


def json_errors(vz, files, bad, n, loop) -> list[str]:
    s = json.loads(run([vz, "plan", "--json", *files]).stdout)["summary"]
    errors = []
    if (s["files"], s["fit"], s["rewrite"], s["unreadable"], s["other"]) != (n, 1, n - 1, 0, 0):
        errors.append(f"summary counts {s}")
    bad_bytes = sum(os.path.getsize(f) for f in bad)
    if s["rewrite_bytes"] != bad_bytes:
        errors.append(f"rewrite_bytes {s['rewrite_bytes']} != {bad_bytes}")
    groups = [g for g in s["groups"] if g["kind"] == "padded_interior_chunk"]
    if not (len(groups) == 1 and groups[0]["files"] == bad and groups[0]["loop"] == loop):
        errors.append(f"JSON groups {groups}")
    return errors


def loop_errors(vz, tmp, d, last, n, loop) -> list[str]:
    """The loop run with nccopy; the rewritten files and the last one all fit."""
    r = run(["bash", "-c", loop], cwd=tmp)
    if r.returncode != 0:
        return [f"the loop failed: {r.stderr}"]
    fixed = sorted(str(p) for p in d.glob("tas_*.rechunked.nc"))
    if len(fixed) != n - 1:
        return [f"{len(fixed)} rewritten files"]
    after = run([vz, "plan", "--json", *fixed, last])
    a = json.loads(after.stdout)
    if not (after.returncode == 0 and a["summary"]["fit"] == n and "tas" not in a["left_out"]):
        return [f"after the loop: exit {after.returncode}, summary {a['summary']}"]
    return []


def test_batch_report(vzplan, tmp_path, pytestconfig, report):
    n = pytestconfig.getoption("batch_files")
    write_daily = fixture_generator("collection_sets").write_daily
    d = tmp_path / "data"
    d.mkdir()
    # 100 days per file in chunks of 30: every file but the last has a padded chunk inside.
    for i in range(n):
        write_daily(d / f"tas_{i:03d}.nc", 100 * i, 100, 3, 4, 30, seed=i)
    files = sorted(str(p) for p in d.glob("tas_*.nc"))
    errors, loop = text_errors(vzplan, files, files[:-1], d, n)
    errors += json_errors(vzplan, files, files[:-1], n, loop)
    if shutil.which("nccopy") is None:
        # scripts/setup-tools.sh installs it; under CI its absence is a failure.
        if os.environ.get("CI"):
            errors.append("nccopy not found (scripts/setup-tools.sh installs it)")
        report("batch report: nccopy not found; the loop was not run")
    elif not errors:
        errors += loop_errors(vzplan, tmp_path, d, files[-1], n, loop)
    fail_on(errors, "batch report: FAILED")
    report(f"batch report: {n} files, one group of {n - 1} with one loop; after the loop all {n} fit")
