"""Icechunk read-back: build every collection case with `vzplan build --icechunk REPO`, open the
repository with icechunk-python (authorising exactly the virtual chunk containers the repository
declares), and compare every array read through zarr-python on the Icechunk store with what
netCDF4-python / h5py / tifffile read from the sources (the comparisons of scripts/readback.py).
Also checks that each array's metadata is the one `-o refs.json` writes except for the rectilinear
`chunk_shapes`, which Icechunk needs as lists on every axis, and that a second build commits again.

    .venv/bin/python scripts/readback_icechunk.py --vzplan target/debug/vzplan [--cases …] [--only NAME]

Prints 'N passed, N failed' and exits non-zero when something failed.
"""

import argparse
import asyncio
import fnmatch
import glob
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import icechunk
import numpy as np
import zarr
from zarr.core.buffer import default_buffer_prototype

sys.path.insert(0, str(Path(__file__).resolve().parent))
import readback  # noqa: E402  (source readers and comparisons; enables rectilinear grids)


def expand(axis, length):
    """One chunk_shapes entry → the list of edge lengths (bare integer, values, [value, count] runs)."""
    if isinstance(axis, int):
        return [axis] * max(1, -(-length // axis))
    out = []
    for v in axis:
        out.extend([v[0]] * v[1] if isinstance(v, list) else [v])
    return out


def open_repo(path, branch="main"):
    storage = icechunk.local_filesystem_storage(str(path))
    config = icechunk.Repository.fetch_config(storage)
    prefixes = sorted((config.virtual_chunk_containers or {}).keys()) if config else []
    # file:// containers need no credentials, only the explicit authorisation.
    creds = icechunk.containers_credentials({p: icechunk.Credentials.LocalFileSystemAccess() for p in prefixes})
    repo = icechunk.Repository.open(storage, authorize_virtual_chunk_access=creds)
    return repo, prefixes, repo.readonly_session(branch=branch)


def raw_json(store, key):
    buf = asyncio.run(store.get(key, default_buffer_prototype()))
    return json.loads(buf.to_bytes())


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True)


def check_metadata(store, refs, built):
    errors = []
    for a in built:
        got = raw_json(store, f"{a}/zarr.json")
        want = json.loads(refs[f"{a}/zarr.json"])
        g, w = got.get("chunk_grid", {}), want.get("chunk_grid", {})
        if w.get("name") == "rectilinear":
            gs, ws = g["configuration"]["chunk_shapes"], w["configuration"]["chunk_shapes"]
            if not all(isinstance(x, list) for x in gs):
                errors.append(f"{a}: chunk_shapes {gs} has a bare integer")
            if [expand(x, n) for x, n in zip(gs, got["shape"])] != [expand(x, n) for x, n in zip(ws, want["shape"])]:
                errors.append(f"{a}: chunk_shapes {gs} != {ws}")
            g = {**g, "configuration": {**g["configuration"], "chunk_shapes": ws}}
        if {**got, "chunk_grid": g} != want:
            errors.append(f"{a}: metadata differs from refs.json's")
    return errors


def check_values(group, report, sources, case):
    errors = []
    concat = report["concat_dim"]
    built = [a["path"] for a in report["arrays"]]
    for a in report["arrays"]:
        name, dims = a["path"], a["dimension_names"]
        arr = group[name]
        got = np.asarray(arr[...])
        if report.get("stack_dim") and report["stack_dim"] == dims[0] and len(sources) > 1:
            want = np.stack([readback.source_values(s, name) for s in sources])
        elif concat in dims and len(sources) > 1:
            want = np.concatenate([readback.source_values(s, name) for s in sources], axis=dims.index(concat))
        else:
            want = readback.source_values(sources[0], name)
        if name == concat and case.get("time") == "rebased":
            import netCDF4

            units, cal = arr.attrs["units"], arr.attrs.get("calendar", "standard")
            parts = []
            for s in sources:
                with netCDF4.Dataset(s) as ds:
                    t = ds[name]
                    parts.append(np.asarray(netCDF4.date2num(netCDF4.num2date(t[:], t.units, cal), units, cal),
                                            dtype=t.dtype))
            want = np.concatenate(parts)
        d = readback.same(got, np.asarray(want))
        if d:
            errors.append(f"{name}: {d}")
        elif name != concat and concat in dims and concat in built:
            if concat not in arr.attrs.get("coords:coordinates", {}):
                errors.append(f"{name}: no coords:coordinates entry for {concat}")
    return errors


def check_case(vzplan, base, case, workdir):
    inputs = []
    for pat in case["inputs"]:
        inputs.extend(sorted(glob.glob(str(base / pat))))
    args = [a.replace("{base}", str(base)) for a in case.get("args", [])]
    repo_path = workdir / f"{case['name']}.icechunk"
    p = run([vzplan, "build", *inputs, "--icechunk", str(repo_path), "--json", *args])
    if p.returncode != case["exit"]:
        return [f"exit code {p.returncode}, expected {case['exit']}\nstderr: {p.stderr}\nstdout: {p.stdout[:2000]}"]
    if case["exit"] == 1:
        return [f"{repo_path} written although nothing was built"] if repo_path.exists() else []
    report = json.loads(p.stdout)
    built = [a["path"] for a in report["arrays"]]
    if sorted(built) != sorted(case["arrays"]):
        return [f"built {built}, expected {case['arrays']}"]
    refs_path = workdir / f"{case['name']}.json"
    p = run([vzplan, "build", *inputs, "-o", str(refs_path), "--no-zarr-json", *args])
    if p.returncode != case["exit"]:
        return [f"-o build: exit code {p.returncode}\n{p.stderr}"]
    refs = json.loads(refs_path.read_text())["refs"]

    repo, prefixes, session = open_repo(repo_path)
    store = session.store
    errors = check_metadata(store, refs, built)
    root = raw_json(store, "zarr.json")
    prov = root["attributes"]["vzplan"]
    urls = [s["url"] for s in prov["sources"]]
    templates = {r[0] for r in refs.values() if isinstance(r, list)}  # "{{u3}}"
    used = sorted({u[: u.rindex("/") + 1] for i, u in enumerate(urls) if f"{{{{u{i}}}}}" in templates})
    if prefixes != used:
        errors.append(f"declared containers {prefixes}, the references need {used}")
    if report["icechunk"]["virtual_chunk_containers"] != used:
        errors.append(f"reported containers {report['icechunk']['virtual_chunk_containers']} != {used}")
    group = zarr.open_group(store, mode="r", zarr_format=3)
    sources = [readback.local(u) for u in urls]
    if prov.get("mosaic") is not None:
        errors += readback.check_mosaic(group, report, sources, prov["mosaic"])
    else:
        errors += check_values(group, report, sources, case)

    # A second build is a new commit on the same branch, and reads the same.
    p = run([vzplan, "build", *inputs, "--icechunk", str(repo_path), "--json", *args])
    if p.returncode != case["exit"]:
        return errors + [f"second build: exit code {p.returncode}\n{p.stderr}"]
    repo, _, session = open_repo(repo_path)
    history = list(repo.ancestry(branch="main"))
    if len(history) != 3 or history[0].id != json.loads(p.stdout)["icechunk"]["snapshot"]:
        errors.append(f"history after two builds: {[h.message for h in history]}")
    first = built[0]
    again = np.asarray(zarr.open_group(session.store, mode="r", zarr_format=3)[first][...])
    if readback.same(again, np.asarray(group[first][...])):
        errors.append(f"{first}: second commit reads differently")
    return errors


def check_s3(vzplan, base, case):
    """The same case with sources and repository on moto's S3 (scripts/s3_server.py): the repository
    declares the s3:// source prefix as a container and icechunk-python reads through it."""
    import s3_server

    server, endpoint = s3_server.start_moto()
    try:
        s3_server.upload_dir(endpoint, "collections", base)
        s3_server.s3_client(endpoint).create_bucket(Bucket="repos")
        env = dict(os.environ, AWS_ACCESS_KEY_ID="testing", AWS_SECRET_ACCESS_KEY="testing",
                   AWS_REGION="us-east-1")
        srcs = [f"s3://collections/{pat}" for pat in case["inputs"]]
        p = subprocess.run([vzplan, "build", *srcs, "--s3-endpoint", endpoint, "--icechunk",
                            f"s3://repos/{case['name']}", "--json"], capture_output=True, text=True, env=env)
        if p.returncode != case["exit"]:
            return [f"s3 build: exit code {p.returncode}\n{p.stderr}"]
        report = json.loads(p.stdout)
        want_prefixes = sorted({f"s3://collections/{pat.rsplit('/', 1)[0]}/" for pat in case["inputs"]})
        if report["icechunk"]["virtual_chunk_containers"] != want_prefixes:
            return [f"containers {report['icechunk']['virtual_chunk_containers']} != {want_prefixes}"]
        storage = icechunk.s3_storage(bucket="repos", prefix=case["name"], endpoint_url=endpoint,
                                      allow_http=True, force_path_style=True, region="us-east-1",
                                      access_key_id="testing", secret_access_key="testing")
        config = icechunk.Repository.fetch_config(storage)
        prefixes = sorted(config.virtual_chunk_containers.keys())
        if prefixes != want_prefixes:
            return [f"declared containers {prefixes} != {want_prefixes}"]
        creds = icechunk.containers_credentials({
            pfx: icechunk.s3_credentials(access_key_id="testing", secret_access_key="testing") for pfx in prefixes})
        repo = icechunk.Repository.open(storage, authorize_virtual_chunk_access=creds)
        group = zarr.open_group(repo.readonly_session(branch="main").store, mode="r", zarr_format=3)
        sources = []
        for pat in case["inputs"]:
            sources.extend(sorted(glob.glob(str(base / pat))))
        return check_values(group, report, sources, case)
    finally:
        server.stop()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--vzplan", required=True)
    ap.add_argument("--cases", default=str(Path(__file__).resolve().parent.parent / "testdata/collections/cases.json"))
    ap.add_argument("--only", default="*")
    ap.add_argument("--no-s3", action="store_true", help="skip the case on moto's S3")
    args = ap.parse_args()
    cases_path = Path(args.cases)
    spec = json.loads(cases_path.read_text())
    passed = failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for case in spec["cases"]:
            if not fnmatch.fnmatch(case["name"], args.only):
                continue
            try:
                errs = check_case(args.vzplan, cases_path.parent, case, Path(tmp))
            except Exception as e:  # a reader error is a failure of this case, not of the run
                errs = [f"{type(e).__name__}: {e}"]
            if errs:
                failed += 1
                print(f"FAIL {case['name']}")
                for e in errs:
                    print("  " + e.replace("\n", "\n  "))
            else:
                passed += 1
                print(f"ok   {case['name']}")
    if not args.no_s3 and fnmatch.fnmatch("yearly", args.only):
        case = next(c for c in spec["cases"] if c["name"] == "yearly")
        try:
            errs = check_s3(args.vzplan, cases_path.parent, case)
        except Exception as e:
            errs = [f"{type(e).__name__}: {e}"]
        if errs:
            failed += 1
            print("FAIL s3 yearly")
            for e in errs:
                print("  " + e.replace("\n", "\n  "))
        else:
            passed += 1
            print("ok   s3 yearly: sources and repository on S3 (moto), read back by icechunk-python")
    print(f"readback_icechunk: {passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
