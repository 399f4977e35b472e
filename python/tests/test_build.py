"""build/plan/scan against the CLI: the same bytes, the same findings, the same layouts."""

from __future__ import annotations

import concurrent.futures
import json
import subprocess

import pytest

import vzplan
from conftest import CASES, COLLECTIONS, ROOT, case_files, case_inputs, case_kwargs

def cli_args(case):
    return [str(a) for a in case.get("args") or []]


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_build_equals_the_cli_byte_for_byte(case, cli, tmp_path):
    ours, theirs = tmp_path / "py.json", tmp_path / "cli.json"
    report = vzplan.build(case_inputs(case), output=ours, **case_kwargs(case))
    done = subprocess.run([cli, "build", *case_inputs(case), *cli_args(case), "-o", str(theirs),
                           "--json"], capture_output=True, text=True)
    # --no-templates too: full URLs in every reference, still the CLI's bytes.
    vzplan.build(case_inputs(case), output=tmp_path / "pyf.json", no_templates=True,
                 **case_kwargs(case))
    subprocess.run([cli, "build", *case_inputs(case), *cli_args(case), "-o",
                    str(tmp_path / "clif.json"), "--no-templates"], capture_output=True)
    assert (tmp_path / "pyf.json").read_bytes() == (tmp_path / "clif.json").read_bytes()
    assert done.returncode == report.exit_code == case["exit"], done.stderr
    assert ours.read_bytes() == theirs.read_bytes()
    assert (tmp_path / "py.zarr.json").read_bytes() == (tmp_path / "cli.zarr.json").read_bytes()
    # The in-memory refs are the file's bytes, and the report is the CLI's --json.
    assert report.refs_bytes() == ours.read_bytes()
    assert report.refs() == json.loads(theirs.read_text())
    cli_report = json.loads(done.stdout)
    py_report = json.loads(report.to_json())
    for key in ("arrays", "complete", "sources", "left_out"):
        assert py_report[key] == cli_report[key], key
    assert py_report["refs"] == str(ours) and report.zarr_json_path == str(tmp_path / "py.zarr.json")
    # The same findings, their options worded as keyword arguments (patch=True, not --patch).
    same = ("kind", "severity", "file", "array", "location")
    assert [{k: f.get(k) for k in same} for f in py_report["findings"]] == \
        [{k: f.get(k) for k in same} for f in cli_report["findings"]]
    for f in py_report["findings"]:
        for flag in ("--patch", "--sources-under", "--var", "--concat-dim", "--keep-layouts"):
            assert flag not in json.dumps(f), f
    assert sorted(a["path"] for a in report.arrays) == sorted(case["arrays"])
    assert report.complete == (case["exit"] == 0)


def test_plan_findings_name_the_files_to_rewrite():
    case = next(c for c in CASES if c["name"] == "padded")
    report = vzplan.plan(case_inputs(case))
    assert report.exit_code == 3 and not report.complete
    padded = [f for f in report.findings if f["kind"] == "padded_interior_chunk"]
    assert len(padded) == 2
    files = sorted(f["file"].rsplit("/", 1)[-1] for f in padded)
    expected = sorted({f["file"].rsplit("/", 1)[-1] for f in case["findings"]})
    assert files == expected
    for f in padded:
        assert f["variable"] == "tas" and f["severity"] and f["message"] and f["fix"]


def test_unknown_option_is_a_type_error():
    with pytest.raises(TypeError, match="no_such_option"):
        vzplan.plan(str(COLLECTIONS / "yearly/*.nc"), no_such_option=1)
    with pytest.raises(ValueError, match="concat_dim or stack_dim"):
        vzplan.plan(str(COLLECTIONS / "yearly/*.nc"), concat_dim="time", stack_dim="t")


def test_nothing_read_raises_with_the_failures():
    with pytest.raises(vzplan.VzplanError, match="no input could be read"):
        vzplan.plan(str(COLLECTIONS / "bad/not_netcdf.nc"))
    with pytest.raises(vzplan.VzplanError, match="no such file"):
        vzplan.plan(str(COLLECTIONS / "nothing-here/*.nc"))


def test_icechunk_commit_reads_back(tmp_path):
    icechunk = pytest.importorskip("icechunk")
    import xarray as xr
    import zarr

    case = next(c for c in CASES if c["name"] == "yearly")
    repo = tmp_path / "repo"
    report = vzplan.build(case_inputs(case), icechunk=repo)
    c = report.icechunk
    assert c["branch"] == "main" and c["created"] and c["virtual_refs"] > 0
    prefix = f"file://{COLLECTIONS / 'yearly'}/"
    config = icechunk.RepositoryConfig.default()
    for url in c["virtual_chunk_containers"]:
        config.set_virtual_chunk_container(icechunk.VirtualChunkContainer(url, icechunk.local_filesystem_store(url[len("file://"):])))
    creds = icechunk.containers_credentials(
        {u: icechunk.Credentials.LocalFileSystemAccess() for u in c["virtual_chunk_containers"]})
    r = icechunk.Repository.open(icechunk.local_filesystem_storage(str(repo)), config=config,
                                 authorize_virtual_chunk_access=creds)
    zarr.config.set({"array.rectilinear_chunks": True})
    g = zarr.open_group(r.readonly_session("main").store, mode="r")
    ref = xr.open_mfdataset(case_files(case), engine="netcdf4", mask_and_scale=False,
                            decode_times=False)
    assert any(u.startswith(prefix) or prefix.startswith(u) for u in c["virtual_chunk_containers"])
    assert (g["tas"][...] == ref["tas"].values).all()


def test_scan_is_the_cli_scan_line(cli, tmp_path):
    f = case_files(next(c for c in CASES if c["name"] == "yearly"))[0]
    out = tmp_path / "layouts.jsonl"
    subprocess.run([cli, "scan", f, "-o", str(out)], check=True, capture_output=True)
    assert vzplan.scan(f) == json.loads(out.read_text())
    with pytest.raises(vzplan.VzplanError):
        vzplan.scan(str(COLLECTIONS / "bad/not_netcdf.nc"))


def test_scan_chunk_columns_are_the_chunks_h5py_lists():
    """The chunk columns of `vzplan.scan()` (a grid's shape or one index per chunk, offsets,
    lengths, masks aside) name the chunks h5py lists, under every HDF5 chunk index: its
    `get_chunk_info` live, and the fixture's oracle table (matched by content where HDF5's chunk
    info APIs get a swizzled index wrong, `chunk_iter_agrees: false`)."""
    import h5py
    import numpy as np

    files = sorted((ROOT / "testdata" / "hdf5" / "chunks").glob("*.h5"))
    assert len(files) > 20
    for f in files:
        oracle = json.loads(f.with_name(f.name + ".oracle.json").read_text())
        (a,) = [a for a in vzplan.scan(str(f))["arrays"] if a["path"] == "x"]
        e = a["chunks"]["entries"]
        index = e["index"]
        keys = np.ndindex(*index["grid"]) if isinstance(index, dict) else map(tuple, index)
        masks = dict(e.get("filter_mask", []))
        got = {tuple(k): (o, n, masks.get(i, 0))
               for i, (k, o, n) in enumerate(zip(keys, e["offset"], e["length"]))}
        assert not e.get("inline")
        # The oracle's keys are element offsets, as h5py gives them.
        block = oracle["chunks"] or oracle["shape"]
        want = {tuple(x // b for x, b in zip(k, block)): (o, n, m)
                for k, o, n, m in oracle["chunk_list"]}
        assert got == want, f.name
        if oracle["chunk_iter_agrees"]:
            with h5py.File(f, "r") as h:
                d = h["x"]
                live = {}
                for i in range(d.id.get_num_chunks()):
                    c = d.id.get_chunk_info(i)
                    key = tuple(x // b for x, b in zip(c.chunk_offset, d.chunks or d.shape))
                    live[key] = (c.byte_offset, c.size, c.filter_mask)
            assert got == live, f.name


def test_scan_with_an_executor_builds_the_same_refs(tmp_path):
    case = next(c for c in CASES if c["name"] == "daily20")
    files = case_files(case)
    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as ex:
        layouts = list(ex.map(vzplan.scan, files))
    remote = vzplan.build(layouts=layouts)
    local = vzplan.build(case_inputs(case))
    assert remote.refs_bytes() == local.refs_bytes()


def test_append_equals_the_cli_and_one_build(cli, tmp_path):
    files = sorted(str(p) for p in (COLLECTIONS / "monthly").glob("*.nc"))
    ours, theirs, whole = tmp_path / "py.json", tmp_path / "cli.json", tmp_path / "all.json"
    first = vzplan.build(files[:4], output=ours, keep_layouts=True)
    assert first.complete and (tmp_path / "py.layouts.jsonl").exists()
    report = vzplan.append(files[4:], output=ours)
    assert report.complete
    subprocess.run([cli, "build", *files[:4], "-o", str(theirs), "--keep-layouts"], check=True,
                   capture_output=True)
    subprocess.run([cli, "append", *files[4:], "-o", str(theirs)], check=True,
                   capture_output=True)
    vzplan.build(files, output=whole)
    assert ours.read_bytes() == theirs.read_bytes() == whole.read_bytes()
    assert (tmp_path / "py.layouts.jsonl").read_bytes() == (tmp_path / "cli.layouts.jsonl").read_bytes()
    # Without kept layouts there is nothing to append to.
    # The message names the keyword argument, not the flag.
    with pytest.raises(vzplan.VzplanError, match="keep_layouts"):
        vzplan.append(files[:1], output=whole)


def test_icechunk_append_is_one_more_commit_equal_to_one_build(tmp_path):
    icechunk = pytest.importorskip("icechunk")
    import zarr

    files = sorted(str(p) for p in (COLLECTIONS / "yearly").glob("*.nc"))
    repo, whole = tmp_path / "repo", tmp_path / "whole"
    vzplan.build(files[:2], icechunk=repo, keep_layouts=True)
    assert (tmp_path / "repo.layouts.jsonl").exists()
    report = vzplan.append(files[2:], icechunk=repo)
    assert report.complete and report.icechunk["virtual_refs"] == 12
    vzplan.build(files, icechunk=whole)

    def group(path):
        prefixes = [f"file://{COLLECTIONS / 'yearly'}/"]
        creds = icechunk.containers_credentials(
            {p: icechunk.Credentials.LocalFileSystemAccess() for p in prefixes})
        r = icechunk.Repository.open(icechunk.local_filesystem_storage(str(path)),
                                     authorize_virtual_chunk_access=creds)
        return r, zarr.open_group(r.readonly_session("main").store, mode="r", zarr_format=3)

    zarr.config.set({"array.rectilinear_chunks": True})
    (ra, a), (_, b) = group(repo), group(whole)
    # Two commits on main after the repository's initial one: the build and the append.
    assert len(list(ra.ancestry(branch="main"))) == 3
    assert sorted(a.array_keys()) == sorted(b.array_keys())
    for name in b.array_keys():
        assert a[name].metadata.to_dict() == b[name].metadata.to_dict(), name
        assert (a[name][...] == b[name][...]).all(), name
