"""The HTML report in a real headless browser: `vzplan plan --html` for mosaic and concat cases,
rendered by Debian's chromium (scripts/setup-chromium.sh), and the rendered DOM checked: the
drawing's elements (tiles by status, cuts, staggered cuts, gaps, overlaps; for a concatenation
bands per file, the chunks marked alone, left-out arrays drawn, the legend about the concat axis,
coordinates as table rows), the findings beside their drawing and the chunk grid. A screenshot of
each page is written to --html-shots for a person to look at; its PNG must not be blank."""

from __future__ import annotations

import glob
from collections import Counter
from pathlib import Path

import pytest

from .helpers import TESTDATA, fail_on, run
from .html_dom import Dom, check_concat, check_mosaic_page, png_not_blank, run_browser

M = TESTDATA / "mosaic"
C = TESTDATA / "collections"

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


def page_errors(el, dom_text, files, want) -> list[str]:
    errs = []
    body = next((a for t, a in el if t == "body"), {})
    if body.get("data-kind") != want["kind"]:
        errs.append(f"body data-kind {body.get('data-kind')}, expected {want['kind']}")
    if want["kind"] == "mosaic":
        errs += check_mosaic_page(el, files, want)
    else:
        errs += check_concat(el, dom_text, want)
    fnd = Counter()
    for t, a in el:
        if "data-finding" in a:
            fnd[a["data-finding"]] += int(a.get("data-files", 1))
    for k, n in want.get("findings", {}).items():
        if fnd.get(k, 0) != n:
            errs.append(f"findings {dict(fnd)}, expected {k}: {n}")
    if "grid" in want:
        grids = [a for t, a in el if t == "pre" and "data-chunk-grid" in a]
        if not grids or want["grid"] not in dom_text:
            errs.append(f"no {want['grid']} chunk_grid shown")
    return errs


@pytest.mark.parametrize("name, inputs, args, want", CASES, ids=[c[0] for c in CASES])
def test_html(vzplan, chromium, pytestconfig, name, inputs, args, want, tmp_path):
    shots = Path(pytestconfig.getoption("html_shots"))
    shots.mkdir(parents=True, exist_ok=True)
    files = []
    for pat in inputs:
        files.extend(sorted(glob.glob(str(pat))))
    page = tmp_path / f"{name}.html"
    p = run([vzplan, "plan", *files, *args, "--html", page])
    if not page.exists():
        fail_on([f"no page written (exit {p.returncode}): {p.stderr}"])
    errs = []
    src = page.read_text()
    if any(s in src for s in ("<script", "src=\"http", "href=\"http", "@import", "url(")):
        errs.append("page is not self-contained (script or external reference)")
    r = run_browser(chromium, page, "--dump-dom")
    if r.returncode != 0 or "<svg" not in r.stdout:
        fail_on(errs + [f"chromium --dump-dom failed ({r.returncode}): {r.stderr[-500:]}"])
    dom = Dom()
    dom.feed(r.stdout)
    errs += page_errors(dom.elems, r.stdout, files, want)
    shot = shots / f"{name}.png"
    s = run_browser(chromium, page, f"--screenshot={shot}", "--window-size=1400,1000", "--hide-scrollbars")
    if not shot.exists() or not png_not_blank(shot):
        errs.append(f"screenshot missing or blank: {s.stderr[-300:]}")
    fail_on(errs)
