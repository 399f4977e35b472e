"""Read-back conformance: every case of the collection, real-writer and mosaic cases files built
with vzplan, the expected outcome checked (exit code, arrays, left-out arrays, findings, grids),
then every built array read back with zarr-python over fsspec's ReferenceFileSystem and compared,
value by value and fill value, with what netCDF4-python / h5py / tifffile read from the sources.
Mosaic cases compare with the tiles placed at their offsets, the last file winning."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

from .compare import GEO_COORDINATES, check_mosaic, expected, missing_concat_coordinate, same
from .helpers import case_args, case_inputs, case_params, fail_on, local, open_refs, run
from .sources import source_fill


def outcome_errors(case: dict, report: dict) -> list[str]:
    """The built arrays, left-out arrays, findings (warnings aside) and grids the case expects."""
    errors = []
    built = [a["path"] for a in report["arrays"]]
    if sorted(built) != sorted(case["arrays"]):
        errors.append(f"built {built}, expected {case['arrays']}")
    if sorted(report["left_out"]) != sorted(case.get("left_out", [])):
        errors.append(f"left out {report['left_out']}, expected {case.get('left_out', [])}")
    got = {(f["kind"], os.path.basename(local(f.get("file", ""))), f.get("array")) for f in report["findings"]
           if f["severity"] != "warning"}
    want = {(f["kind"], f.get("file", ""), f.get("array")) for f in case["findings"]}
    if got != want:
        errors.append(f"findings {sorted(got, key=str)}, expected {sorted(want, key=str)}\n" +
                      "\n".join(f["text"] for f in report["findings"]))
    for a in report["arrays"]:
        g = case.get("grids", {}).get(a["path"])
        if g is not None and a["chunk_grid"] != g:
            errors.append(f"{a['path']}: grid {a['chunk_grid']}, expected {g}")
    return errors


def value_errors(case: dict, report: dict, out, consolidated: dict) -> list[str]:
    """Every built array read back through the refs, against the sources."""
    errors = []
    built = [a["path"] for a in report["arrays"]]
    # The consolidated zarr.json beside refs.json must describe the same arrays.
    meta = consolidated["consolidated_metadata"]["metadata"]
    refs = json.loads(out.read_text())["refs"]
    for name in built:
        if meta.get(name) != json.loads(refs[f"{name}/zarr.json"]):
            errors.append(f"{name}: consolidated zarr.json differs from the refs' metadata")
    group = open_refs(out)
    root = json.loads(refs["zarr.json"])["attributes"]["vzplan"]
    sources = [local(s["url"]) for s in root["sources"]]
    if root.get("mosaic") is not None:
        return errors + check_mosaic(group, report, sources, root["mosaic"])
    for a in report["arrays"]:
        name = a["path"]
        if name.rsplit("/", 1)[-1] in GEO_COORDINATES:
            continue  # computed from the georeferencing: test_geo.py checks them against rioxarray
        arr = group[name]
        d = same(np.asarray(arr[...]), np.asarray(expected(arr, a, report, sources, case)))
        fill = source_fill(sources[0], name)
        if fill is not None and not (fill == arr.fill_value or (np.isnan(fill) and np.isnan(arr.fill_value))):
            d = f"fill value {arr.fill_value!r} != _FillValue {fill!r}"
        if d:
            errors.append(f"{name}: {d}")
        else:
            errors += filter(None, [missing_concat_coordinate(arr, a, report, built)])
    return errors


@pytest.mark.parametrize("kind, case", case_params("collections", "real", "mosaic"))
def test_readback(vzplan, kind, case, tmp_path):
    inputs, args = case_inputs(kind, case), case_args(kind, case)
    out = tmp_path / f"{case['name']}.json"
    p = run([vzplan, "build", *inputs, "-o", out, "--json", *args])
    if p.returncode != case["exit"]:
        fail_on([f"exit code {p.returncode}, expected {case['exit']}\nstderr: {p.stderr}\nstdout: {p.stdout[:2000]}"])
    if case["exit"] == 1:
        # Nothing built: check the findings from `vzplan plan --json` instead.
        p = run([vzplan, "plan", *inputs, "--json", *args])
    report = json.loads(p.stdout)
    errors = outcome_errors(case, report)
    if not errors and case["exit"] != 1:
        consolidated = json.loads((tmp_path / f"{case['name']}.zarr.json").read_text())
        errors = value_errors(case, report, out, consolidated)
    fail_on(errors)
