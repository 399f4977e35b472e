"""Read-back of vzplan-tiff's layouts: every array the Rust reader describes (dumped by the `dump`
example of vzplan-tiff, `--tiff-dump`) reads back through zarr-python (refs + fsspec's
ReferenceFileSystem) exactly as tifffile decodes it. A zarr.json is built per array (a regular
grid, or rectilinear along an axis whose last block is stored exact/short) and chunk keys `c/i/j…`
point at `[url, offset, length]`. The report lists the codec chains and whether they read back.

Also proves, outside the Rust model, that the TIFF floating-point predictor reads back with
`imagecodecs_floatpred` as the array-to-bytes codec, in place of `bytes`."""

from __future__ import annotations

import base64
import json
import os

import numpy as np
import pytest
import tifffile
import zarr

from .helpers import TESTDATA, fail_on, reference_store, run
from .sources import tiff_arrays

pytestmark = pytest.mark.filterwarnings("ignore")
FILES = sorted((TESTDATA / "tiff").glob("*.tif"))


def zarr_dtype(dt: dict) -> str:
    return {"int": "int", "uint": "uint", "float": "float", "bool": "bool"}[dt["kind"]] + (
        str(8 * dt["size"]) if dt["kind"] != "bool" else "")


def numpy_dtype(dt: dict) -> np.dtype:
    code = {"int": "i", "uint": "u", "float": "f", "bool": "b"}[dt["kind"]]
    order = ">" if dt["endian"] == "big" else "<"
    return np.dtype(f"{order}{code}{dt['size']}")


def chunk_grid(a: dict) -> dict:
    shape, block = a["shape"], a["chunks"]["block"]
    exact = a["chunks"]["edges"] == "exact"
    axes, rect = [], False
    for n, b in zip(shape, block):
        if exact and n % b:
            full = n // b
            axes.append(([[b, full]] if full else []) + [n % b])
            rect = True
        else:
            axes.append(b)
    if rect:
        return {"name": "rectilinear", "configuration": {"kind": "inline", "chunk_shapes": axes}}
    return {"name": "regular", "configuration": {"chunk_shape": block}}


def zarr_json(a: dict) -> dict:
    dt = a["dtype"]
    fill = 0
    if a.get("fill_value"):
        fill = np.frombuffer(base64.b64decode(a["fill_value"]), dtype=numpy_dtype(dt))[0].item()
        if isinstance(fill, float) and fill != fill:
            fill = "NaN"
    stage = {s: [{"name": c["name"], "configuration": c["configuration"]} for c in a["codecs"] if c["stage"] == s]
             for s in ("array_to_array", "array_to_bytes", "bytes_to_bytes")}
    a2b = stage["array_to_bytes"] or [{"name": "bytes", "configuration": {"endian": dt["endian"]}}]
    return {
        "zarr_format": 3, "node_type": "array", "shape": a["shape"],
        "data_type": zarr_dtype(dt), "chunk_grid": chunk_grid(a),
        "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
        "fill_value": fill,
        "codecs": stage["array_to_array"] + a2b + stage["bytes_to_bytes"],
        "dimension_names": [d["name"] for d in a["dims"]],
        "attributes": a["attrs"],
    }


def ranges(entries) -> list:
    """(index, offset, length) per chunk of a layout line's table: its columns (the index a grid's
    shape in C order, or one list per chunk), or the entry objects of older lines."""
    if isinstance(entries, list):
        return [(e["index"], e["data"]["ref"]["offset"], e["data"]["ref"]["length"]) for e in entries]
    if entries.get("inline"):
        raise ValueError("a TIFF table with inline bytes")
    index = entries["index"]
    keys = np.ndindex(*index["grid"]) if isinstance(index, dict) else index
    return list(zip(keys, entries["offset"], entries["length"]))


def refs_for(layout: dict, path: str) -> dict:
    refs = {"zarr.json": json.dumps({"zarr_format": 3, "node_type": "group", "attributes": {}})}
    for a in layout["arrays"]:
        refs[f"{a['path']}/zarr.json"] = json.dumps(zarr_json(a))
        for index, offset, length in ranges(a["chunks"]["entries"]):
            refs[f"{a['path']}/c/" + "/".join(str(i) for i in index)] = [path, offset, length]
    return {"version": 1, "refs": refs}


def open_array(refs: dict, name: str):
    return zarr.open_array(store=reference_store(refs, path=name), mode="r", zarr_format=3)


def status_of(refs, a, want) -> str:
    try:
        got = open_array(refs, a["path"])[...]
        exp = want.get(a["path"])
        if exp is None:
            return "NO-ORACLE"
        if got.shape == exp.shape and np.array_equal(got, exp.astype(got.dtype)):
            return "OK"
        return f"MISMATCH shape {got.shape} vs {exp.shape}"
    except Exception as e:  # report, keep going
        return f"ERROR {type(e).__name__}: {e}"


@pytest.mark.parametrize("path", FILES, ids=[f.name for f in FILES])
def test_tiff_layout_reads_back(tiff_dump, path, report, record_property):
    f = str(path)
    proc = run([tiff_dump, f])
    if proc.returncode != 0:
        fail_on([f"dump failed: {proc.stderr.strip()}"])
    layout = json.loads(proc.stdout)
    refs, want = refs_for(layout, f), tiff_arrays(f)
    bad = []
    for a in layout["arrays"]:
        chain = " + ".join([c["name"] for c in a["codecs"]] or ["bytes only"])
        endian = a["dtype"]["endian"] if a["dtype"]["size"] > 1 else "-"
        label = f"{os.path.basename(f)}:{a['path']} [{chunk_grid(a)['name']}, {a['chunks']['edges']}, {endian}]"
        status = status_of(refs, a, want)
        if status != "OK":
            bad.append(f"{status} {label}")
        report(f"{status:4} {label}  codecs: {chain}")
        record_property("codec_chain", (chain, status == "OK"))
    for p in layout.get("problems", []):
        report(f"PROB {os.path.basename(f)}:{p['path']}: {p['reason']}")
    fail_on(bad)


def test_floatpred_proof():
    """Predictor 3 + deflate, read with imagecodecs_floatpred replacing `bytes` (hand-built metadata)."""
    path = str(TESTDATA / "tiff" / "pred3_f32.tif")
    with tifffile.TiffFile(path) as tif:
        page = tif.pages[0]
        data = page.asarray()
        tl, tw = page.tilelength, page.tilewidth
        meta = {
            "zarr_format": 3, "node_type": "array", "shape": list(data.shape),
            "data_type": "float32" if page.dtype.itemsize == 4 else "float64",
            "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [tl, tw]}},
            "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
            "fill_value": 0,
            "codecs": [{"name": "imagecodecs_floatpred", "configuration": {"axis": -1, "dist": 1}},
                       {"name": "numcodecs.zlib", "configuration": {"level": 6}}],
        }
        across = -(-page.imagewidth // tw)
        refs = {"zarr.json": json.dumps({"zarr_format": 3, "node_type": "group"}),
                "a/zarr.json": json.dumps(meta)}
        for k, (o, n) in enumerate(zip(page.dataoffsets, page.databytecounts)):
            refs[f"a/c/{k // across}/{k % across}"] = [path, int(o), int(n)]
    got = open_array({"version": 1, "refs": refs}, "a")[...]
    assert np.array_equal(got, data), "floatpred proof: MISMATCH"
