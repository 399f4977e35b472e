"""The batch report end to end: N netCDF-4 files written by netCDF4-python (the `padded`
collection's writer, scripts/fixtures_collections.py) whose padded last chunk sits in the middle
of the combined array, all but the last. Checks that `vzplan plan` starts with a summary (1 of N
fits, N-1 need a rewrite, their bytes), shows the N-1 findings as ONE group with a shortened file
list and one shell loop, that `--json` carries the same as `summary`, and then runs the loop
(nccopy) and plans the rewritten files: everything fits (exit 0).

    .venv/bin/python scripts/batch_report_check.py --vzplan target/debug/vzplan [--files 40]
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fixtures_collections import write_daily  # noqa: E402


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--vzplan", required=True)
    ap.add_argument("--files", type=int, default=40)
    args = ap.parse_args()
    vz = os.path.abspath(args.vzplan)
    n = args.files
    errors = []

    def check(ok, what):
        if not ok:
            errors.append(what)

    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp) / "data"
        d.mkdir()
        # 100 days per file in chunks of 30: every file but the last has a padded chunk inside.
        for i in range(n):
            write_daily(d / f"tas_{i:03d}.nc", 100 * i, 100, 3, 4, 30, seed=i)
        files = sorted(str(p) for p in d.glob("tas_*.nc"))
        last = files[-1]
        bad = files[:-1]
        bad_bytes = sum(os.path.getsize(f) for f in bad)

        text = run([vz, "plan", *files])
        check(text.returncode == 3, f"plan exit {text.returncode}, expected 3\n{text.stderr}")
        lines = text.stdout.splitlines()
        check(lines[1].startswith(f"summary: 1 of {n} file(s) fit as they are; {n - 1} need a rewrite ("),
              f"summary line: {lines[1]!r}")
        check(any(f"{n - 1} file(s) (" in l and "padded interior chunk in tas: nccopy" in l for l in lines),
              "no rewrite line in the summary")
        grouped = [l for l in lines if l.startswith(f"  [error] {n - 1} files: tas: last chunk along time")]
        check(len(grouped) == 1, f"expected one group of {n - 1} files:\n{text.stdout}")
        check(not any(l.startswith(f"  [error] {bad[0]}") for l in lines),
              "a file of the group has a line of its own")
        check(any(l.endswith(f" and {n - 4} more") for l in lines), "file list not shortened")
        loops = [l.split("all at once: ", 1)[1] for l in lines if "all at once: " in l]
        want = (f'for f in {d}/tas_*.nc; do case "$f" in {last}) continue;; esac; '
                f'nccopy -c time/100,lat/3,lon/4 "$f" "${{f%.nc}}.rechunked.nc"; done')
        check(loops == [want], f"loop {loops}, expected [{want!r}]")

        js = run([vz, "plan", "--json", *files])
        s = json.loads(js.stdout)["summary"]
        check((s["files"], s["fit"], s["rewrite"], s["unreadable"], s["other"]) == (n, 1, n - 1, 0, 0),
              f"summary counts {s}")
        check(s["rewrite_bytes"] == bad_bytes, f"rewrite_bytes {s['rewrite_bytes']} != {bad_bytes}")
        groups = [g for g in s["groups"] if g["kind"] == "padded_interior_chunk"]
        check(len(groups) == 1 and groups[0]["files"] == bad and groups[0]["loop"] == want,
              f"JSON groups {groups}")

        if shutil.which("nccopy") is None:
            # scripts/setup-tools.sh installs it; under CI its absence is a failure.
            check(not os.environ.get("CI"), "nccopy not found (scripts/setup-tools.sh installs it)")
            print("batch report: nccopy not found; the loop was not run")
        elif not errors:
            r = run(["bash", "-c", want], cwd=tmp)
            check(r.returncode == 0, f"the loop failed: {r.stderr}")
            fixed = sorted(str(p) for p in d.glob("tas_*.rechunked.nc"))
            check(len(fixed) == n - 1, f"{len(fixed)} rewritten files")
            after = run([vz, "plan", "--json", *fixed, last])
            a = json.loads(after.stdout)
            check(after.returncode == 0 and a["summary"]["fit"] == n and "tas" not in a["left_out"],
                  f"after the loop: exit {after.returncode}, summary {a['summary']}")

    if errors:
        print("batch report: FAILED\n" + "\n".join(errors))
        sys.exit(1)
    print(f"batch report: {n} files, one group of {n - 1} with one loop; after the loop all {n} fit")


if __name__ == "__main__":
    main()
