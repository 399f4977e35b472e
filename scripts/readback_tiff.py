"""Read-back conformance for vzplan-tiff: every array the Rust reader describes must read back
through zarr-python (kerchunk v1 refs + fsspec ReferenceFileSystem) exactly as tifffile decodes it.

    cargo build -p vzplan-tiff --examples
    .venv/bin/python scripts/readback_tiff.py [--dump PATH/TO/dump] [testdata/tiff/*.tif]

For each fixture the layout is dumped by the Rust example `dump`, a zarr.json is built per array
(regular grid, or rectilinear along an axis whose last block is stored exact/short), chunk keys
`c/i/j…` point at `[url, offset, length]`, and the array is compared with tifffile's `asarray`.
Prints a table of codec chains and whether they read back; exits 1 on any mismatch.

Also proves (outside the Rust model) that the TIFF floating-point predictor reads back with
`imagecodecs_floatpred` as the array-to-bytes codec, in place of `bytes`.
"""

from __future__ import annotations

import argparse
import base64
import glob
import json
import os
import subprocess
import sys
import warnings

import fsspec
import imagecodecs.zarr
import numpy as np
import tifffile
import zarr
import zarr.storage

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import fixtures_tiff  # noqa: E402  (for the written data of fixtures tifffile cannot decode)

warnings.filterwarnings("ignore")
imagecodecs.zarr.register_codecs(verbose=False)


def zarr_dtype(dt: dict) -> str:
    return {"int": "int", "uint": "uint", "float": "float", "bool": "bool"}[dt["kind"]] + (
        str(8 * dt["size"]) if dt["kind"] != "bool" else "")


def numpy_dtype(dt: dict) -> np.dtype:
    code = {"int": "i", "uint": "u", "float": "f", "bool": "b"}[dt["kind"]]
    order = ">" if dt["endian"] == "big" else "<"
    return np.dtype(f"{order}{code}{dt['size']}")


def chunk_grid(a: dict) -> tuple[dict, bool]:
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
        return {"name": "rectilinear",
                "configuration": {"kind": "inline", "chunk_shapes": axes}}, True
    return {"name": "regular", "configuration": {"chunk_shape": block}}, False


def zarr_json(a: dict) -> dict:
    dt = a["dtype"]
    fill = 0
    if a.get("fill_value"):
        fill = np.frombuffer(base64.b64decode(a["fill_value"]), dtype=numpy_dtype(dt))[0].item()
        if isinstance(fill, float) and fill != fill:
            fill = "NaN"
    a2a = [{"name": c["name"], "configuration": c["configuration"]}
           for c in a["codecs"] if c["stage"] == "array_to_array"]
    b2b = [{"name": c["name"], "configuration": c["configuration"]}
           for c in a["codecs"] if c["stage"] == "bytes_to_bytes"]
    a2b = [{"name": c["name"], "configuration": c["configuration"]}
           for c in a["codecs"] if c["stage"] == "array_to_bytes"]
    grid, _ = chunk_grid(a)
    return {
        "zarr_format": 3, "node_type": "array", "shape": a["shape"],
        "data_type": zarr_dtype(dt), "chunk_grid": grid,
        "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
        "fill_value": fill,
        "codecs": a2a + (a2b or [{"name": "bytes", "configuration": {"endian": dt["endian"]}}]) + b2b,
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
            key = f"{a['path']}/c/" + "/".join(str(i) for i in index)
            refs[key] = [path, offset, length]
    return {"version": 1, "refs": refs}


def open_array(refs: dict, name: str):
    fs = fsspec.filesystem("reference", fo=refs, asynchronous=True)
    store = zarr.storage.FsspecStore(fs, read_only=True, path=name)
    return zarr.open_array(store=store, mode="r", zarr_format=3)


def expected_arrays(path: str) -> dict[str, np.ndarray]:
    """tifffile's decoded data under the Rust reader's array names."""
    out: dict[str, np.ndarray] = {}
    base = os.path.basename(path)
    fallback = None
    if base.startswith("strips_padded_last"):
        fallback = fixtures_tiff.ramp((120, 16), "u1")[:100]

    def decode(page):
        try:
            return page.asarray()
        except Exception:
            return fallback

    with tifffile.TiffFile(path) as tif:
        pages, counters, last = [], {}, None

        def ovname(p, n):
            return f"overview_{n}/0" if p == 0 else f"{p}_overview_{n}/{p}"

        for i, page in enumerate(tif.pages):
            st = int(page.subfiletype)
            owner = None
            if st & 4:
                pass
            elif st & 1:
                owner = last if last is not None else 0
                counters[owner] = counters.get(owner, 0) + 1
                out[ovname(owner, counters[owner])] = decode(page)
            else:
                owner = len(pages)
                arr = decode(page)
                out[str(owner)] = arr
                pages.append(arr)
                last = owner
            if owner is None:
                continue
            for j, off in enumerate(page.subifds or ()):
                tif.filehandle.seek(off)
                sub = tifffile.TiffPage(tif, index=(i, j))
                sst = int(sub.subfiletype)
                if sst & 4:
                    continue
                if sst & 1:
                    counters[owner] = counters.get(owner, 0) + 1
                    out[ovname(owner, counters[owner])] = decode(sub)
                else:
                    out[f"{owner}_subifd_{j}"] = decode(sub)
        if len(pages) > 1 and all(p is not None and p.shape == pages[0].shape
                                  and p.dtype == pages[0].dtype for p in pages):
            out["pages"] = np.stack(pages)
    return out


def floatpred_proof(path: str) -> str:
    """Predictor 3 + deflate, read with imagecodecs_floatpred replacing `bytes`."""
    with tifffile.TiffFile(path) as tif:
        page = tif.pages[0]
        data = page.asarray()
        tl, tw = page.tilelength, page.tilewidth
        dt = "float32" if page.dtype.itemsize == 4 else "float64"
        meta = {
            "zarr_format": 3, "node_type": "array", "shape": list(data.shape), "data_type": dt,
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
    return "OK" if np.array_equal(got, data) else "MISMATCH"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--dump", default=os.environ.get(
        "VZPLAN_TIFF_DUMP", "/work/target-vzplan-tiff/debug/examples/dump"))
    ap.add_argument("files", nargs="*")
    args = ap.parse_args()
    files = args.files or sorted(glob.glob(os.path.join(HERE, "..", "testdata", "tiff", "*.tif")))
    zarr.config.set({"array.rectilinear_chunks": True})
    failures = 0
    codec_rows: dict[str, set] = {}
    for f in files:
        f = os.path.abspath(f)
        proc = subprocess.run([args.dump, f], capture_output=True, text=True)
        if proc.returncode != 0:
            print(f"FAIL {os.path.basename(f)}: dump failed: {proc.stderr.strip()}")
            failures += 1
            continue
        layout = json.loads(proc.stdout)
        refs = refs_for(layout, f)
        want = expected_arrays(f)
        for a in layout["arrays"]:
            chain = " + ".join([c["name"] for c in a["codecs"]] or ["bytes only"])
            endian = a["dtype"]["endian"] if a["dtype"]["size"] > 1 else "-"
            grid = chunk_grid(a)[0]["name"]
            label = f"{os.path.basename(f)}:{a['path']} [{grid}, {a['chunks']['edges']}, {endian}]"
            try:
                got = open_array(refs, a["path"])[...]
                exp = want.get(a["path"])
                if exp is None:
                    status = "NO-ORACLE"
                elif got.shape == exp.shape and np.array_equal(got, exp.astype(got.dtype)):
                    status = "OK"
                else:
                    status = f"MISMATCH shape {got.shape} vs {exp.shape}"
            except Exception as e:  # report, keep going
                status = f"ERROR {type(e).__name__}: {e}"
            if status != "OK":
                failures += 1
            codec_rows.setdefault(chain, set()).add(status == "OK")
            print(f"{status:4} {label}  codecs: {chain}")
        for p in layout.get("problems", []):
            print(f"PROB {os.path.basename(f)}:{p['path']}: {p['reason']}")
    pred3 = os.path.join(HERE, "..", "testdata", "tiff", "pred3_f32.tif")
    if os.path.exists(pred3):
        print(f"floatpred proof (predictor 3 via imagecodecs_floatpred, hand-built metadata): "
              f"{floatpred_proof(os.path.abspath(pred3))}")
    print("\ncodec chain (encode order, `bytes` omitted) -> reads back")
    for chain, oks in sorted(codec_rows.items()):
        print(f"  {chain:45} {'yes' if oks == {True} else 'NO'}")
    print(f"\n{failures} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
