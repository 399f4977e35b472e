"""Icechunk read-back: every collection case built with `vzplan build --icechunk REPO`, the
repository opened with icechunk-python authorising exactly the virtual chunk containers it
declares, every array read through zarr-python on the Icechunk store and compared with the sources
(as test_readback compares). Each array's metadata is the one `-o refs.json` writes but for the
rectilinear `chunk_shapes`, which Icechunk needs as lists on every axis; a second build commits
again. One case with sources and repository on moto's S3."""

from __future__ import annotations

import asyncio
import json

import icechunk
import numpy as np
import pytest
import zarr
from zarr.core.buffer import default_buffer_prototype

from .compare import GEO_COORDINATES, check_mosaic, expected, missing_concat_coordinate, same
from .helpers import (S3_ENV, case_args, case_inputs, case_params, fail_on, load_cases, local,
                      open_refs, run)


def edge_lengths(axis, length):
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


def check_metadata(store, refs, built) -> list[str]:
    errors = []
    for a in built:
        got = raw_json(store, f"{a}/zarr.json")
        want = json.loads(refs[f"{a}/zarr.json"])
        g, w = got.get("chunk_grid", {}), want.get("chunk_grid", {})
        if w.get("name") == "rectilinear":
            gs, ws = g["configuration"]["chunk_shapes"], w["configuration"]["chunk_shapes"]
            if not all(isinstance(x, list) for x in gs):
                errors.append(f"{a}: chunk_shapes {gs} has a bare integer")
            if [edge_lengths(x, n) for x, n in zip(gs, got["shape"])] != \
                    [edge_lengths(x, n) for x, n in zip(ws, want["shape"])]:
                errors.append(f"{a}: chunk_shapes {gs} != {ws}")
            g = {**g, "configuration": {**g["configuration"], "chunk_shapes": ws}}
        if {**got, "chunk_grid": g} != want:
            errors.append(f"{a}: metadata differs from refs.json's")
    return errors


def check_values(group, report, sources, case, refs_group=None) -> list[str]:
    errors = []
    built = [a["path"] for a in report["arrays"]]
    for a in report["arrays"]:
        arr = group[a["path"]]
        if a["path"].rsplit("/", 1)[-1] in GEO_COORDINATES:
            # Computed from the georeferencing (test_geo.py checks them against rioxarray), and
            # written inline: the repository's native chunks read as refs.json's inline ones.
            want = refs_group[a["path"]][...]
        else:
            want = expected(arr, a, report, sources, case)
        d = same(np.asarray(arr[...]), np.asarray(want))
        if d:
            errors.append(f"{a['path']}: {d}")
        else:
            errors += filter(None, [missing_concat_coordinate(arr, a, report, built)])
    return errors


def check_containers(report, refs, prov, prefixes) -> list[str]:
    """The repository declares exactly the source prefixes its references use."""
    urls = [s["url"] for s in prov["sources"]]
    templates = {r[0] for r in refs.values() if isinstance(r, list)}  # "{{u3}}"
    used = sorted({u[: u.rindex("/") + 1] for i, u in enumerate(urls) if f"{{{{u{i}}}}}" in templates})
    errors = []
    if prefixes != used:
        errors.append(f"declared containers {prefixes}, the references need {used}")
    if report["icechunk"]["virtual_chunk_containers"] != used:
        errors.append(f"reported containers {report['icechunk']['virtual_chunk_containers']} != {used}")
    return errors


def second_commit(vzplan, inputs, args, repo_path, group, built, case) -> list[str]:
    """A second build is a new commit on the same branch, and reads the same."""
    p = run([vzplan, "build", *inputs, "--icechunk", repo_path, "--json", *args])
    if p.returncode != case["exit"]:
        return [f"second build: exit code {p.returncode}\n{p.stderr}"]
    repo, _, session = open_repo(repo_path)
    history = list(repo.ancestry(branch="main"))
    errors = []
    if len(history) != 3 or history[0].id != json.loads(p.stdout)["icechunk"]["snapshot"]:
        errors.append(f"history after two builds: {[h.message for h in history]}")
    first = built[0]
    again = np.asarray(zarr.open_group(session.store, mode="r", zarr_format=3)[first][...])
    if same(again, np.asarray(group[first][...])):
        errors.append(f"{first}: second commit reads differently")
    return errors


def check_case(vzplan, kind, case, workdir) -> list[str]:
    inputs, args = case_inputs(kind, case), case_args(kind, case)
    repo_path = workdir / f"{case['name']}.icechunk"
    p = run([vzplan, "build", *inputs, "--icechunk", repo_path, "--json", *args])
    if p.returncode != case["exit"]:
        return [f"exit code {p.returncode}, expected {case['exit']}\nstderr: {p.stderr}\nstdout: {p.stdout[:2000]}"]
    if case["exit"] == 1:
        return [f"{repo_path} written although nothing was built"] if repo_path.exists() else []
    report = json.loads(p.stdout)
    built = [a["path"] for a in report["arrays"]]
    if sorted(built) != sorted(case["arrays"]):
        return [f"built {built}, expected {case['arrays']}"]
    refs_path = workdir / f"{case['name']}.json"
    p = run([vzplan, "build", *inputs, "-o", refs_path, "--no-zarr-json", *args])
    if p.returncode != case["exit"]:
        return [f"-o build: exit code {p.returncode}\n{p.stderr}"]
    refs = json.loads(refs_path.read_text())["refs"]
    _, prefixes, session = open_repo(repo_path)
    errors = check_metadata(session.store, refs, built)
    prov = raw_json(session.store, "zarr.json")["attributes"]["vzplan"]
    errors += check_containers(report, refs, prov, prefixes)
    group = zarr.open_group(session.store, mode="r", zarr_format=3)
    sources = [local(s["url"]) for s in prov["sources"]]
    if prov.get("mosaic") is not None:
        errors += check_mosaic(group, report, sources, prov["mosaic"])
    else:
        errors += check_values(group, report, sources, case, open_refs(refs_path))
    return errors + second_commit(vzplan, inputs, args, repo_path, group, built, case)


@pytest.mark.parametrize("kind, case", case_params("collections"))
def test_icechunk(vzplan, kind, case, tmp_path):
    try:
        errors = check_case(vzplan, kind, case, tmp_path)
    except Exception as e:  # a reader's error is this case's failure, told in one line
        errors = [f"{type(e).__name__}: {e}"]
    fail_on(errors)


def test_icechunk_s3_yearly(vzplan, s3):
    """Sources and repository on moto's S3: the repository declares the s3:// source prefix as a
    container and icechunk-python reads through it."""
    kind, case = "collections", next(c for c in load_cases("collections") if c["name"] == "yearly")
    s3.client().create_bucket(Bucket="repos")
    srcs = [f"s3://collections/{pat}" for pat in case["inputs"]]
    p = run([vzplan, "build", *srcs, "--s3-endpoint", s3.endpoint, "--icechunk",
             f"s3://repos/{case['name']}", "--json"], env=S3_ENV)
    if p.returncode != case["exit"]:
        fail_on([f"s3 build: exit code {p.returncode}\n{p.stderr}"])
    report = json.loads(p.stdout)
    want_prefixes = sorted({f"s3://collections/{pat.rsplit('/', 1)[0]}/" for pat in case["inputs"]})
    if report["icechunk"]["virtual_chunk_containers"] != want_prefixes:
        fail_on([f"containers {report['icechunk']['virtual_chunk_containers']} != {want_prefixes}"])
    storage = icechunk.s3_storage(bucket="repos", prefix=case["name"], endpoint_url=s3.endpoint,
                                  allow_http=True, force_path_style=True, region="us-east-1",
                                  access_key_id="testing", secret_access_key="testing")
    prefixes = sorted(icechunk.Repository.fetch_config(storage).virtual_chunk_containers.keys())
    if prefixes != want_prefixes:
        fail_on([f"declared containers {prefixes} != {want_prefixes}"])
    creds = icechunk.containers_credentials({
        pfx: icechunk.s3_credentials(access_key_id="testing", secret_access_key="testing") for pfx in prefixes})
    repo = icechunk.Repository.open(storage, authorize_virtual_chunk_access=creds)
    group = zarr.open_group(repo.readonly_session(branch="main").store, mode="r", zarr_format=3)
    fail_on(check_values(group, report, case_inputs(kind, case), case))
