"""Reading what headless Chromium rendered of vzplan's HTML report: the DOM's elements and
whether a screenshot (PNG) is more than blank."""

from __future__ import annotations

import struct
import subprocess
import tempfile
import zlib
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path


class Dom(HTMLParser):
    """Every start tag of a page, in order, as (tag, attributes)."""

    def __init__(self):
        super().__init__()
        self.elems = []

    def handle_starttag(self, tag, attrs):
        self.elems.append((tag, dict(attrs)))


def run_browser(exe, page, *mode):
    with tempfile.TemporaryDirectory() as prof:
        cmd = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
               "--disable-component-update", "--disable-sync", "--no-first-run",
               f"--user-data-dir={prof}", *mode, page.as_uri()]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=120)


def _unfilter(f, line, prev, bpp):
    for i in range(len(line)):
        a = line[i - bpp] if i >= bpp else 0
        b, c = prev[i], prev[i - bpp] if i >= bpp else 0
        if f == 1:
            line[i] = (line[i] + a) & 255
        elif f == 2:
            line[i] = (line[i] + b) & 255
        elif f == 3:
            line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255


def png_not_blank(path) -> bool:
    """Decodes the PNG (8-bit RGB/RGBA, no palette): more than 2 % of its pixels are not white."""
    data = Path(path).read_bytes()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        return False
    pos, idat, w, h, ctype = 8, b"", 0, 0, 0
    while pos < len(data):
        n, typ = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if typ == b"IHDR":
            w, h, _, ctype = struct.unpack(">IIBB", body[:10])
        elif typ == b"IDAT":
            idat += body
        pos += 12 + n
    bpp = {2: 3, 6: 4}.get(ctype)
    if not bpp:
        return True
    raw = zlib.decompress(idat)
    stride = w * bpp
    coloured, prev = 0, bytearray(stride)
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        _unfilter(f, line, prev, bpp)
        coloured += sum(1 for x in range(0, stride, bpp) if line[x:x + 3] != b"\xff\xff\xff")
        prev = line
    return coloured > 0.02 * w * h


def check_concat(el, dom, want) -> list[str]:
    """A concat page: bands per file, marked chunks, left-out arrays drawn, the legend about the
    axis, inline coordinates as table rows (no bars), each finding list beside its drawing."""
    errs = []
    bands = Counter(a["data-status"] for t, a in el if "data-band" in a)
    if sum(bands.values()) != sum(want.get("bands", {}).values()):
        errs.append(f"bands {dict(bands)}, expected {want.get('bands')}")
    for st, n in want.get("bands", {}).items():
        if bands.get(st, 0) != n:
            errs.append(f"bands {dict(bands)}, expected {st}: {n}")
    if "marks" in want:
        marks = Counter(a["data-chunk-mark"] for t, a in el if "data-chunk-mark" in a)
        if dict(marks) != want["marks"]:
            errs.append(f"marked chunks {dict(marks)}, expected {want['marks']}")
    drawn_left_out = [a["data-array"] for t, a in el if t == "svg" and a.get("data-array-status") == "left_out"]
    if drawn_left_out != want.get("left_out", []):
        errs.append(f"left-out arrays drawn {drawn_left_out}, expected {want.get('left_out', [])}")
    if "mosaic" in " ".join(a.get("data-legend", "") for t, a in el) or "inside the mosaic" in dom:
        errs.append("the legend speaks of a mosaic")
    if "axis (not at its end)" not in dom:
        errs.append("the legend does not speak of the concat axis")
    return errs + _coordinate_errors(el, want) + _finding_list_errors(el, want)


def _coordinate_errors(el, want) -> list[str]:
    errs = []
    coords = [a["data-coord"] for t, a in el if "data-coord" in a]
    if "coords" in want and len(coords) != want["coords"]:
        errs.append(f"{len(coords)} coordinate rows, expected {want['coords']}")
    bars = [a["data-array"] for t, a in el if t == "svg" and a.get("data-kind") == "axis" and a.get("data-array") in coords]
    if bars:
        errs.append(f"coordinates drawn as bars: {bars}")
    one = [a["data-dim"] for t, a in el if t == "svg" and a.get("data-kind") == "axis" and a.get("data-chunks") == "1"]
    if one:
        errs.append(f"axes of one chunk drawn as bars: {one}")
    return errs


def _finding_list_errors(el, want) -> list[str]:
    # Each finding list follows its own array's drawing (in the same row).
    errs = []
    last_drawn = None
    for t, a in el:
        if t == "svg" and a.get("data-kind") == "bands":
            last_drawn = a.get("data-array")
        if t == "ul" and a.get("data-array"):
            if a["data-array"] != last_drawn:
                errs.append(f"findings of {a['data-array']} follow the drawing of {last_drawn}")
    loops = sum(1 for t, a in el if "data-loop" in a)
    if "loops" in want and loops != want["loops"]:
        errs.append(f"{loops} shell loops, expected {want['loops']}")
    return errs


def check_mosaic_page(el, files, want) -> list[str]:
    """A mosaic page: the drawing, its tiles by status, cuts, staggered cuts, gaps, overlaps and
    dropped blocks."""
    errs = []
    if not any(t == "svg" and a.get("data-kind") == "mosaic" for t, a in el):
        errs.append("no mosaic drawing")
    tiles = Counter(a["data-status"] for t, a in el if "data-tile" in a)
    if sum(tiles.values()) != len(files):
        errs.append(f"{sum(tiles.values())} tiles drawn for {len(files)} files")
    for st, n in want.get("tiles", {}).items():
        if tiles.get(st, 0) != n:
            errs.append(f"tiles {dict(tiles)}, expected {st}: {n}")
    for ax in (0, 1):
        if f"cuts{ax}" in want:
            n = sum(1 for t, a in el if a.get("data-cut") == str(ax))
            if n != want[f"cuts{ax}"]:
                errs.append(f"{n} cuts along axis {ax}, expected {want[f'cuts{ax}']}")
    for key, attr, what in (("staggered", "data-staggered", "staggered cuts"), ("gaps", "data-gap", "gaps"),
                            ("dropped", "data-dropped", "dropped blocks")):
        if key in want:
            n = sum(1 for t, a in el if attr in a)
            if n != want[key]:
                errs.append(f"{n} {what} drawn, expected {want[key]}")
    ov = Counter(a["data-status"] for t, a in el if "data-overlap" in a)
    for st, n in want.get("overlaps", {}).items():
        if ov.get(st, 0) != n:
            errs.append(f"overlaps {dict(ov)}, expected {st}: {n}")
    return errs
