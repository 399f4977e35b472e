"""The HTML report in a real headless browser: `vzplan plan --html` for mosaic and concat cases,
rendered by Debian's chromium (installed by scripts/setup-chromium.sh), and the rendered DOM
checked: the drawing's elements (tiles by status, cuts, staggered cuts, gaps, overlaps; for a
concatenation bands per file, the chunks marked alone, left-out arrays drawn, the legend about the
concat axis, coordinates as table rows), the findings beside their drawing and the chunk grid. A screenshot of each page is written to
--shots DIR for a person to look at; its PNG must not be blank.

    .venv/bin/python scripts/html_check.py --vzplan target/debug/vzplan [--shots /tmp/vzplan-html]
"""

import argparse
import glob
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
M = ROOT / "testdata" / "mosaic"
C = ROOT / "testdata" / "collections"

# name, inputs, args, expectations
CASES = [
    ("grid2x2", [M / "grid2x2/*.tif"], ["--mosaic"],
     {"kind": "mosaic", "tiles": {"fits": 4}, "cuts0": 6, "cuts1": 3, "staggered": 0, "gaps": 0,
      "grid": "rectilinear"}),
    ("grid3x3", [M / "grid3x3/*.tif"], ["--mosaic"],
     {"kind": "mosaic", "tiles": {"fits": 4, "padded": 5}, "staggered": 0, "gaps": 0, "grid": "regular"}),
    ("brick_strips", [M / "brick_strips/*.tif"], ["--mosaic"],
     {"kind": "mosaic", "tiles": {"staggered": 4}, "staggered": 4, "gaps": 2,
      "findings": {"staggered_cut": 4, "rewrite_suggestion": 1}}),
    ("overlap_blocks", [M / "overlap_blocks/*.tif"], ["--mosaic"],
     {"kind": "mosaic", "tiles": {"overlap_resolved": 1, "fits": 1}, "overlaps": {"overlap_resolved": 1},
      "dropped": 2, "findings": {"overlap_resolved": 1}}),
    ("overlap_partial", [M / "overlap_partial/*.tif"], ["--mosaic"],
     {"kind": "mosaic", "overlaps": {"overlap": 1}, "findings": {"overlap": 1}}),
    ("gap", [M / "grid2x2/t_r0_c0.tif", M / "grid2x2/t_r0_c1.tif", M / "grid2x2/t_r1_c0.tif"], ["--mosaic"],
     {"kind": "mosaic", "tiles": {"fits": 3}, "gaps": 1, "findings": {"gap": 1}}),
    ("misaligned", [M / "misaligned/*.tif"], ["--mosaic"],
     {"kind": "mosaic", "tiles": {"fits": 2, "unplaced": 2}}),
    # Concatenations: bands along the axis, one per file; the chunks that matter marked alone.
    ("concat_padded_raw", [C / "padded_raw/*.nc"], [],
     {"kind": "concat", "bands": {"rescued": 2, "fits": 1}, "marks": {"rescued": 2}, "grid": "rectilinear",
      "coords": 3, "findings": {"rescued_prefix": 2}}),
    ("concat_yearly", [C / "yearly/*.nc"], [],
     {"kind": "concat", "bands": {"fits": 12}, "marks": {}, "coords": 3}),
    # A left-out array is drawn from the layouts: its files along the axis, the padded chunk of
    # each of the two first files marked; one finding entry for both, with one loop.
    ("concat_padded", [C / "padded/*.nc"], [],
     {"kind": "concat", "bands": {"padded_interior": 2, "fits": 1}, "marks": {"padded_interior": 2},
      "left_out": ["tas"], "coords": 3, "findings": {"padded_interior_chunk": 2}, "loops": 1}),
    ("concat_patch", [C / "padded/*.nc"], ["--patch"],
     {"kind": "concat", "bands": {"patched": 2, "fits": 1}, "marks": {"patched": 2}, "coords": 3,
      "findings": {"patched": 2}}),
    ("concat_mismatch", [C / "mismatch/*.nc"], [],
     {"kind": "concat", "bands": {"problem": 1, "fits": 1}, "marks": {"problem": 1}, "left_out": ["tas"],
      "findings": {"mismatch": 1}}),
]


class Dom(HTMLParser):
    def __init__(self):
        super().__init__()
        self.elems = []

    def handle_starttag(self, tag, attrs):
        self.elems.append((tag, dict(attrs)))


def chromium():
    for c in ("chromium", "chromium-browser"):
        if shutil.which(c):
            return c
    sys.exit("html_check: chromium not found (run scripts/setup-chromium.sh)")


def run_browser(exe, page, *mode):
    with tempfile.TemporaryDirectory() as prof:
        cmd = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
               "--disable-component-update", "--disable-sync", "--no-first-run",
               f"--user-data-dir={prof}", *mode, page.as_uri()]
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        return p


def png_not_blank(path):
    """Decodes the PNG (8-bit RGB/RGBA, no palette) and counts pixels that are not white."""
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
        for i in range(stride):
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
        coloured += sum(1 for x in range(0, stride, bpp) if line[x:x + 3] != b"\xff\xff\xff")
        prev = line
    return coloured > 0.02 * w * h


def check_concat(el, dom, want):
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
    coords = [a["data-coord"] for t, a in el if "data-coord" in a]
    if "coords" in want and len(coords) != want["coords"]:
        errs.append(f"{len(coords)} coordinate rows, expected {want['coords']}")
    bars = [a["data-array"] for t, a in el if t == "svg" and a.get("data-kind") == "axis" and a.get("data-array") in coords]
    if bars:
        errs.append(f"coordinates drawn as bars: {bars}")
    one = [a["data-dim"] for t, a in el if t == "svg" and a.get("data-kind") == "axis" and a.get("data-chunks") == "1"]
    if one:
        errs.append(f"axes of one chunk drawn as bars: {one}")
    # Each finding list follows its own array's drawing (in the same row).
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


def check(exe, vzplan, name, inputs, args, want, workdir, shots):
    files = []
    for pat in inputs:
        files.extend(sorted(glob.glob(str(pat))))
    page = workdir / f"{name}.html"
    p = subprocess.run([vzplan, "plan", *files, *args, "--html", str(page)], capture_output=True, text=True)
    if not page.exists():
        return [f"no page written (exit {p.returncode}): {p.stderr}"]
    errs = []
    src = page.read_text()
    if any(s in src for s in ("<script", "src=\"http", "href=\"http", "@import", "url(")):
        errs.append("page is not self-contained (script or external reference)")
    r = run_browser(exe, page, "--dump-dom")
    if r.returncode != 0 or "<svg" not in r.stdout:
        return errs + [f"chromium --dump-dom failed ({r.returncode}): {r.stderr[-500:]}"]
    dom = Dom()
    dom.feed(r.stdout)
    el = dom.elems
    body = next((a for t, a in el if t == "body"), {})
    if body.get("data-kind") != want["kind"]:
        errs.append(f"body data-kind {body.get('data-kind')}, expected {want['kind']}")
    if want["kind"] == "mosaic":
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
        if "staggered" in want:
            n = sum(1 for t, a in el if "data-staggered" in a)
            if n != want["staggered"]:
                errs.append(f"{n} staggered cuts drawn, expected {want['staggered']}")
        if "gaps" in want:
            n = sum(1 for t, a in el if "data-gap" in a)
            if n != want["gaps"]:
                errs.append(f"{n} gaps drawn, expected {want['gaps']}")
        ov = Counter(a["data-status"] for t, a in el if "data-overlap" in a)
        for st, n in want.get("overlaps", {}).items():
            if ov.get(st, 0) != n:
                errs.append(f"overlaps {dict(ov)}, expected {st}: {n}")
        if "dropped" in want:
            n = sum(1 for t, a in el if "data-dropped" in a)
            if n != want["dropped"]:
                errs.append(f"{n} dropped blocks drawn, expected {want['dropped']}")
    else:
        errs += check_concat(el, r.stdout, want)
    fnd = Counter()
    for t, a in el:
        if "data-finding" in a:
            fnd[a["data-finding"]] += int(a.get("data-files", 1))
    for k, n in want.get("findings", {}).items():
        if fnd.get(k, 0) != n:
            errs.append(f"findings {dict(fnd)}, expected {k}: {n}")
    if "grid" in want:
        grids = [a for t, a in el if t == "pre" and "data-chunk-grid" in a]
        if not grids or want["grid"] not in r.stdout:
            errs.append(f"no {want['grid']} chunk_grid shown")
    shot = shots / f"{name}.png"
    s = run_browser(exe, page, f"--screenshot={shot}", "--window-size=1400,1000", "--hide-scrollbars")
    if not shot.exists() or not png_not_blank(shot):
        errs.append(f"screenshot missing or blank: {s.stderr[-300:]}")
    return errs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--vzplan", required=True)
    ap.add_argument("--shots", default=os.path.join(tempfile.gettempdir(), "vzplan-html"))
    args = ap.parse_args()
    exe = chromium()
    shots = Path(args.shots)
    shots.mkdir(parents=True, exist_ok=True)
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, inputs, a, want in CASES:
            errs = check(exe, args.vzplan, name, inputs, a, want, Path(tmp), shots)
            if errs:
                failed += 1
                print(f"FAIL {name}")
                for e in errs:
                    print("  " + e)
            else:
                print(f"ok   {name}")
    print(f"html: {len(CASES) - failed} passed, {failed} failed (screenshots in {shots})")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
