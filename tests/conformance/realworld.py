"""The real-world sweep's reading and classifying (test_realworld.py runs it per file): `vzplan
build` on one file written by a real writer, every array read back through zarr-python and
compared with the writer's own reader, opened with xarray too.

  exact       every array the file has is built and reads back equal
  partial     some arrays are built (and equal), the others are left out with a finding
  refused     nothing is built; every array left out with a finding (or a whole-file error)
  wrong       an array reads back with different values or shape
  unreadable  an array is in the output but zarr-python cannot read it, an array is missing
              without a finding, or an output array has no counterpart"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import tifffile
import zarr

from .helpers import open_refs, reference_store
from .sources import tiff_arrays

# The reader configuration the README documents (what `vzplan.zarr_settings()` returns):
# imagecodecs' Zarr 3 codecs, chosen explicitly for every name vzplan writes, so that a second
# package registering the same codec names (virtual-tiff) is never picked instead.
IMAGECODECS = ("szip", "lz4h5", "bitshuffle", "delta", "floatpred", "lzw", "packbits", "jpeg",
               "bitorder", "packints", "ccittrle", "ccittfax3", "ccittfax4", "webp", "png",
               "jpeg2k", "jpegxl", "jpegxr", "lerc", "lzf")
READER_CONFIG = {"array.rectilinear_chunks": True} | {
    f"codecs.imagecodecs_{n}": f"imagecodecs.zarr.{n.capitalize()}" for n in IMAGECODECS}
CLASSES = ("exact", "partial", "refused", "wrong", "unreadable")

try:
    import virtual_tiff  # noqa: F401  (only its presence matters: it registers imagecodecs_*)

    VIRTUAL_TIFF = True
except ImportError:
    VIRTUAL_TIFF = False


def oracle(path: Path) -> dict[str, np.ndarray]:
    """Every array of the file as the writer's own reader decodes it, by vzplan's array names."""
    import h5py
    import netCDF4

    kind = path.parent.name
    if kind == "tiff":
        out = tiff_arrays(str(path))
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


def equal(got: np.ndarray, want: np.ndarray) -> bool:
    if got.shape != want.shape:
        return False
    if want.dtype.kind in "SU" or got.dtype.kind in "SU":
        return bool(np.array_equal(got.astype("S"), want.astype("S")))
    nan = want.dtype.kind in "fc"
    return bool(np.array_equal(got, want.astype(got.dtype), equal_nan=nan))


def xarray_check(refs: Path, want: dict[str, np.ndarray]) -> str:
    try:
        import xarray as xr
    except ImportError:  # xarray is optional
        return "-"
    try:
        ds = xr.open_zarr(reference_store(refs), consolidated=False, zarr_format=3, mask_and_scale=False,
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


def findings_by_array(plan_stdout: str) -> dict[str, list[str]]:
    try:
        report = json.loads(plan_stdout)
    except json.JSONDecodeError:
        report = {"findings": []}
    findings = {}
    for f in report["findings"]:
        if f.get("array"):
            findings.setdefault(f["array"], []).append(f["message"])
    return findings


def classify(status: dict[str, str]) -> str:
    vals = list(status.values())
    if "WRONG" in vals:
        return "wrong"
    if any(v.startswith(("UNREADABLE", "MISSING", "NO ORACLE")) for v in vals):
        return "unreadable"
    if all(v == "left out" for v in vals):
        return "refused"
    return "partial" if "left out" in vals else "exact"


def array_statuses(path, refs, findings, row) -> tuple[dict, dict, dict]:
    """(status per array, value hashes, the arrays built)."""
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
        elif name not in want:
            status[name] = "NO ORACLE"
        else:
            try:
                got = built[name][...]
            except Exception as e:
                status[name] = f"UNREADABLE ({type(e).__name__}: {e})"
                continue
            hashes[name] = hashlib.sha1(got.tobytes()).hexdigest()
            status[name] = "equal" if equal(got, want[name]) else "WRONG"
    return status, hashes, (want, built)


def sweep_one(vzplan: str, path: Path, work: Path) -> dict:
    refs = work / (path.parent.name + "_" + path.name + ".refs.json")
    plan = subprocess.run([vzplan, "plan", str(path), "--json"], capture_output=True, text=True)
    build = subprocess.run([vzplan, "build", str(path), "-o", str(refs)], capture_output=True, text=True)
    row = {"file": f"{path.parent.name}/{path.name}", "exit": build.returncode, "arrays": {},
           "findings": [], "xarray": "-"}
    findings = findings_by_array(plan.stdout)
    if build.returncode not in (0, 3):
        # Nothing built: refused when every array is left out with a finding, or the whole file
        # is refused with an error message.
        row["findings"] = [f"{a}: {m[0]}" for a, m in sorted(findings.items())]
        if not row["findings"]:
            row["findings"] = (build.stderr or plan.stderr).strip().splitlines()[-1:]
        row["class"] = "refused" if row["findings"] else "unreadable"
        return row
    status, hashes, (want, built) = array_statuses(path, refs, findings, row)
    row["arrays"] = status
    row["class"] = classify(status)
    if built:
        row["xarray"] = xarray_check(refs, want)
    if VIRTUAL_TIFF and built and "imagecodecs_" in refs.read_text():
        row["unpinned"] = unpinned(refs, hashes)
    return row


def row_lines(row: dict) -> list[str]:
    """What the sweep prints of one file."""
    n = sum(v == "equal" for v in row["arrays"].values())
    lines = [f"{row['class']:10} {row['file']:38} exit {row['exit']}  "
             f"{n}/{len(row['arrays'])} arrays equal  xarray: {row['xarray']}"]
    if "unpinned" in row:
        lines.append(f"    without the codec choice of READER_CONFIG: {row['unpinned']}")
    lines += [f"    {name}: {s}" for name, s in row["arrays"].items() if s not in ("equal", "left out")]
    lines += [f"    finding: {f}" for f in row["findings"]]
    return lines


def row_errors(row: dict) -> list[str]:
    """Why one file fails the sweep: wrong or unreadable; partial or refused without saying why; a
    codec configuration both packages accept that decodes differently under virtual-tiff's."""
    errors = []
    if row["class"] in ("wrong", "unreadable"):
        errors.append(f"{row['file']}: {row['class']}")
    if row["class"] in ("partial", "refused") and not row["findings"]:
        errors.append(f"left out without a finding: {row['file']}")
    if "DIFFERENT" in row.get("unpinned", ""):
        errors.append(f"read differently by virtual-tiff's codec classes: {row['file']}")
    return errors


def summary_lines(rows: list[dict]) -> list[str]:
    """The counts per class and the README's table."""
    order = ("tiff", "nc", "h5")
    rows = sorted(rows, key=lambda r: (order.index(r["file"].split("/")[0]), r["file"]))
    counts = {c: sum(r["class"] == c for r in rows) for c in CLASSES}
    lines = [", ".join(f"{c} {n}" for c, n in counts.items()) + f" of {len(rows)} files", "",
             "| file | class | arrays equal | xarray | finding (first) |", "|---|---|---|---|---|"]
    for r in rows:
        n = sum(v == "equal" for v in r["arrays"].values())
        first = r["findings"][0].replace("|", "\\|") if r["findings"] else ""
        xa = r["xarray"].split(":")[0].replace("|", "\\|")
        lines.append(f"| `{r['file']}` | {r['class']} | {n}/{len(r['arrays'])} | {xa} | {first} |")
    if VIRTUAL_TIFF:
        lines.append("read back with virtual-tiff installed (READER_CONFIG selects imagecodecs.zarr)")
    return lines
