"""Real-world sweep: `vzplan build` on each file written by the real writers (scripts/realworld/
make.sh: GDAL, nccopy, h5repack, plus netCDF-C's own reference files), each file alone, then every
array read back through zarr-python (rectilinear chunks on) and compared with the writers' readers
(tifffile, netCDF4-python, h5py), and opened with xarray where it is installed.

Each file is classified:
  exact       every array the file has is built and reads back equal
  partial     some arrays are built (and equal), the others are left out with a finding
  refused     nothing is built; every array left out with a finding (or a whole-file error)
  wrong       an array reads back with different values or shape   -> fails the sweep
  unreadable  an array is in the output but zarr-python cannot read it, an array is missing
              without a finding, or an output array has no counterpart -> fails the sweep

Run it in a venv that also has virtual-tiff (scripts/realworld/setup-venv.sh): virtual-tiff
registers its own `imagecodecs_*` Zarr codecs under the same names as imagecodecs, so the read-back
uses the reader configuration the README documents (`READER_CONFIG`), and proves it is enough.

    .venv-realworld/bin/python scripts/realworld/sweep.py --vzplan target/debug/vzplan [--markdown]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

import fsspec
import h5py
import imagecodecs.zarr
import netCDF4
import numpy as np
import tifffile
import zarr
import zarr.storage

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from readback_tiff import expected_arrays  # noqa: E402  (tifffile's view under vzplan's names)

warnings.filterwarnings("ignore")

# The reader configuration the README documents: imagecodecs' Zarr 3 codecs, chosen explicitly, so
# that a second package registering the same codec names (virtual-tiff) is never picked instead.
READER_CONFIG = {
    "array.rectilinear_chunks": True,
    "codecs.imagecodecs_floatpred": "imagecodecs.zarr.Floatpred",
    "codecs.imagecodecs_jpeg": "imagecodecs.zarr.Jpeg",
    "codecs.imagecodecs_lzw": "imagecodecs.zarr.Lzw",
    "codecs.imagecodecs_delta": "imagecodecs.zarr.Delta",
    "codecs.imagecodecs_packbits": "imagecodecs.zarr.Packbits",
}
imagecodecs.zarr.register_codecs(verbose=False)
zarr.config.set(READER_CONFIG)

try:
    import virtual_tiff  # noqa: F401  (only its presence matters: it registers imagecodecs_*)
    VIRTUAL_TIFF = True
except ImportError:
    VIRTUAL_TIFF = False

try:
    import xarray as xr
except ImportError:  # xarray is optional
    xr = None


def oracle(path: Path) -> dict[str, np.ndarray]:
    """Every array of the file as the writer's own reader decodes it, by vzplan's array names."""
    kind = path.parent.name
    if kind == "tiff":
        out = expected_arrays(str(path))
        if out.get("0") is None:
            out["0"] = gdal_oracle(path)
        return {k: v for k, v in out.items() if v is not None}
    out: dict[str, np.ndarray] = {}
    if kind == "nc":
        with netCDF4.Dataset(path) as ds:
            ds.set_auto_maskandscale(False)
            ds.set_auto_chartostring(False)
            for name, v in ds.variables.items():
                out[name] = np.asarray(v[...])
        return out
    with h5py.File(path, "r") as f:
        def visit(name, obj):
            if isinstance(obj, h5py.Dataset):
                out[name] = obj[()]
        f.visititems(visit)
    return out


def gdal_oracle(path: Path) -> np.ndarray | None:
    """The first image as GDAL (the writer) decodes it, for files tifffile cannot decode (GDAL's
    never-written bands: their padded last strips overflow tifffile's decode buffer). Shaped as
    vzplan shapes it: (band, y, x) for band interleave, (y, x, band) for pixel interleave."""
    with tifffile.TiffFile(path) as tif:
        page = tif.pages[0]
        dtype, planar, shape = page.dtype, page.planarconfig == 2, page.shape
    with tempfile.TemporaryDirectory() as tmp:
        raw = Path(tmp) / "x.bin"
        p = subprocess.run(["gdal_translate", "-q", "-of", "ENVI", "-co", "INTERLEAVE=BSQ",
                            str(path), str(raw)], capture_output=True)
        if p.returncode != 0:
            return None
        hdr = (Path(tmp) / "x.hdr").read_text()
        order = ">" if "byte order = 1" in hdr else "<"
        a = np.fromfile(raw, dtype=dtype.newbyteorder(order))
    bands = a.size // (shape[-2] * shape[-1]) if planar else (shape[-1] if len(shape) == 3 else 1)
    if planar:
        return a.reshape(bands, shape[-2], shape[-1])
    h, w = shape[0], shape[1]
    a = a.reshape(bands, h, w)
    return np.moveaxis(a, 0, -1) if len(shape) == 3 else a[0]


def open_refs(refs: Path) -> zarr.Group:
    fs = fsspec.filesystem("reference", fo=str(refs), remote_protocol="file", asynchronous=True)
    return zarr.open_group(zarr.storage.FsspecStore(fs, read_only=True), mode="r", zarr_format=3)


def equal(got: np.ndarray, want: np.ndarray) -> bool:
    if got.shape != want.shape:
        return False
    if want.dtype.kind in "SU" or got.dtype.kind in "SU":
        return bool(np.array_equal(got.astype("S"), want.astype("S")))
    nan = want.dtype.kind in "fc"
    return bool(np.array_equal(got, want.astype(got.dtype), equal_nan=nan))


def xarray_check(refs: Path, want: dict[str, np.ndarray]) -> str:
    if xr is None:
        return "-"
    try:
        fs = fsspec.filesystem("reference", fo=str(refs), remote_protocol="file",
                               asynchronous=True)
        store = zarr.storage.FsspecStore(fs, read_only=True)
        ds = xr.open_zarr(store, consolidated=False, zarr_format=3, mask_and_scale=False,
                          decode_times=False)
        bad = [n for n in ds.variables if n in want and not equal(ds[n].values, want[n])]
        return "equal" if not bad else f"differs: {bad}"
    except Exception as e:  # report what xarray says; not a failure of the refs
        return f"does not open ({type(e).__name__}: {str(e).splitlines()[0][:70]})"


UNPINNED = """
import hashlib, json, sys, warnings, fsspec, zarr, zarr.storage, imagecodecs.zarr
warnings.filterwarnings("ignore")
imagecodecs.zarr.register_codecs(verbose=False)
zarr.config.set({"array.rectilinear_chunks": True})
fs = fsspec.filesystem("reference", fo=sys.argv[1], remote_protocol="file", asynchronous=True)
g = zarr.open_group(zarr.storage.FsspecStore(fs, read_only=True), mode="r", zarr_format=3)
out = {}
for name, a in g.members(max_depth=None):
    if isinstance(a, zarr.Array):
        out[name] = hashlib.sha1(a[...].tobytes()).hexdigest()
print(json.dumps(out))
"""


def unpinned(refs: Path, hashes: dict[str, str]) -> str:
    """With virtual-tiff installed: does the output read without READER_CONFIG's codec choice,
    and to the same values?"""
    p = subprocess.run([sys.executable, "-c", UNPINNED, str(refs)], capture_output=True, text=True)
    if p.returncode == 0:
        same = json.loads(p.stdout.strip().splitlines()[-1]) == hashes
        return "reads, same values" if same else "reads, DIFFERENT values"
    last = (p.stderr.strip().splitlines() or ["?"])[-1]
    return f"fails: {last[:90]}"


def sweep_one(vzplan: str, path: Path, work: Path) -> dict:
    refs = work / (path.parent.name + "_" + path.name + ".refs.json")
    plan = subprocess.run([vzplan, "plan", str(path), "--json"], capture_output=True, text=True)
    build = subprocess.run([vzplan, "build", str(path), "-o", str(refs)],
                           capture_output=True, text=True)
    row = {"file": f"{path.parent.name}/{path.name}", "exit": build.returncode, "arrays": {},
           "findings": [], "xarray": "-"}
    try:
        report = json.loads(plan.stdout)
    except json.JSONDecodeError:
        report = {"findings": []}
    findings = {}
    for f in report["findings"]:
        if f.get("array"):
            findings.setdefault(f["array"], []).append(f["message"])
    if build.returncode not in (0, 3):
        # Nothing built: refused when every array is left out with a finding, or the whole file
        # is refused with an error message.
        row["findings"] = [f"{a}: {m[0]}" for a, m in sorted(findings.items())]
        if not row["findings"]:
            row["findings"] = (build.stderr or plan.stderr).strip().splitlines()[-1:]
        row["class"] = "refused" if row["findings"] else "unreadable"
        return row
    want = oracle(path)
    g = open_refs(refs)
    built = {name: a for name, a in g.members(max_depth=None) if isinstance(a, zarr.Array)}
    status, hashes = {}, {}
    for name in sorted(set(want) | set(built)):
        if name not in built:
            if findings.get(name):
                status[name] = "left out"
                row["findings"].append(f"{name}: {findings[name][0]}")
            else:
                status[name] = "MISSING (no finding)"
            continue
        if name not in want:
            status[name] = "NO ORACLE"
            continue
        try:
            got = built[name][...]
        except Exception as e:
            status[name] = f"UNREADABLE ({type(e).__name__}: {e})"
            continue
        hashes[name] = hashlib.sha1(got.tobytes()).hexdigest()
        status[name] = "equal" if equal(got, want[name]) else "WRONG"
    row["arrays"] = status
    vals = list(status.values())
    if "WRONG" in vals:
        row["class"] = "wrong"
    elif any(v.startswith(("UNREADABLE", "MISSING", "NO ORACLE")) for v in vals):
        row["class"] = "unreadable"
    elif all(v == "left out" for v in vals):
        row["class"] = "refused"
    elif "left out" in vals:
        row["class"] = "partial"
    else:
        row["class"] = "exact"
    if built:
        row["xarray"] = xarray_check(refs, want)
    if VIRTUAL_TIFF and built and "imagecodecs_" in refs.read_text():
        row["unpinned"] = unpinned(refs, hashes)
    return row


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--vzplan", required=True)
    ap.add_argument("--dir", default=str(HERE / "out"))
    ap.add_argument("--markdown", action="store_true", help="print the README table too")
    ap.add_argument("files", nargs="*")
    args = ap.parse_args()
    root = Path(args.dir)
    files = [Path(f).resolve() for f in args.files] or sorted(
        p for sub in ("tiff", "nc", "h5") for p in (root / sub).glob("*") if p.is_file())
    if not files:
        print(f"no files under {root}: run scripts/realworld/make.sh first", file=sys.stderr)
        return 1
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for p in files:
            row = sweep_one(args.vzplan, p, Path(tmp))
            rows.append(row)
            n = sum(v == "equal" for v in row["arrays"].values())
            print(f"{row['class']:10} {row['file']:38} exit {row['exit']}  "
                  f"{n}/{len(row['arrays'])} arrays equal  xarray: {row['xarray']}")
            if "unpinned" in row:
                print(f"    without the codec choice of READER_CONFIG: {row['unpinned']}")
            for name, s in row["arrays"].items():
                if s not in ("equal", "left out"):
                    print(f"    {name}: {s}")
            for f in row["findings"]:
                print(f"    finding: {f}")
    counts = {c: sum(r["class"] == c for r in rows)
              for c in ("exact", "partial", "refused", "wrong", "unreadable")}
    print("\n" + ", ".join(f"{c} {n}" for c, n in counts.items()) + f" of {len(rows)} files")
    if args.markdown:
        print("\n| file | class | arrays equal | xarray | finding (first) |\n|---|---|---|---|---|")
        for r in rows:
            n = sum(v == "equal" for v in r["arrays"].values())
            first = r["findings"][0].replace("|", "\\|") if r["findings"] else ""
            xa = r["xarray"].split(":")[0].replace("|", "\\|")
            print(f"| `{r['file']}` | {r['class']} | {n}/{len(r['arrays'])} | {xa} | {first} |")
    if VIRTUAL_TIFF:
        print("read back with virtual-tiff installed (READER_CONFIG selects imagecodecs.zarr)")
    bad = counts["wrong"] + counts["unreadable"]
    # Every partial or refused file must say why, for every array it leaves out.
    silent = [r["file"] for r in rows if r["class"] in ("partial", "refused") and not r["findings"]]
    if silent:
        print(f"left out without a finding: {silent}")
    # A codec configuration both packages accept must also decode the same under either.
    differ = [r["file"] for r in rows if "DIFFERENT" in r.get("unpinned", "")]
    if differ:
        print(f"read differently by virtual-tiff's codec classes: {differ}")
    return 1 if bad or silent or differ else 0


if __name__ == "__main__":
    sys.exit(main())
