"""What a plan or a build says: the arrays, the findings with their fixes, the exit code, the
references in memory — as data, as text, and as the HTML page a notebook shows."""

from __future__ import annotations

import html
import json
from typing import Any


def _finding(f: dict[str, Any]) -> dict[str, Any]:
    # The CLI's JSON names the array "array"; the Python API calls it "variable".
    return {
        "kind": f.get("kind"),
        "severity": f.get("severity"),
        "file": f.get("file"),
        "variable": f.get("array"),
        "message": f.get("message"),
        "fix": f.get("fix"),
        "location": f.get("location"),
        "text": f.get("text"),
    }


class Report:
    """The result of :func:`vzplan.plan` or :func:`vzplan.build`: what was (or would be) built, and
    the findings about what was not, each with the command that fixes it.

    In a notebook the report shows itself as the HTML page ``vzplan plan --html`` writes: the
    summary, the arrays and their grids, the findings with fixes, and the picture of the cuts.

    Example::

        >>> report = vzplan.plan("data/*.nc")
        >>> report.exit_code, report.complete          # 0 and True when nothing is left out
        (3, False)
        >>> report.findings[0]["fix"]
        'pass patch=True to re-encode it inline, or rewrite it … `nccopy -c time/100 …`'
    """

    def __init__(
        self,
        report: dict[str, Any],
        exit_code: int,
        refs: bytes | None,
        zarr_json: bytes | None,
        page: str | None = None,
    ) -> None:
        self._report = report
        #: The CLI's exit code: 0 everything built, 3 built but something was left out.
        self.exit_code: int = exit_code
        self._refs = refs
        self._zarr_json = zarr_json
        self._page = page
        #: Where refs.json, its zarr.json and the kept layouts were written (None: not written).
        self.output: str | None = report.get("refs")
        self.zarr_json_path: str | None = report.get("zarr_json")
        self.layouts_path: str | None = report.get("layouts")

    @property
    def findings(self) -> list[dict[str, Any]]:
        """Each finding: ``kind``, ``severity``, ``file``, ``variable``, ``message``, ``fix`` (and
        ``location``, and ``text``, the whole finding as one line)."""
        return [_finding(f) for f in self._report.get("findings", [])]

    @property
    def arrays(self) -> list[dict[str, Any]]:
        """Each array built: ``path``, ``dtype``, ``dimension_names``, ``shape``,
        ``chunk_grid``, ``chunks``, ``files``, ``inline``."""
        return list(self._report.get("arrays", []))

    @property
    def complete(self) -> bool:
        """True when nothing was left out (exit code 0)."""
        return bool(self._report.get("complete"))

    @property
    def icechunk(self) -> dict[str, Any] | None:
        """The Icechunk commit (``repository``, ``branch``, ``snapshot``, ``virtual_refs``, …), if
        one was made."""
        return self._report.get("icechunk")

    @property
    def sources(self) -> list[str]:
        """The files planned, in order (local files as paths)."""
        return list(self._report.get("sources", []))

    def refs(self) -> dict[str, Any]:
        """The kerchunk reference dict (what refs.json holds)."""
        if self._refs is None:
            raise ValueError("no refs: nothing was built")
        return json.loads(self._refs)

    def refs_bytes(self) -> bytes:
        """refs.json byte for byte as the CLI writes it."""
        if self._refs is None:
            raise ValueError("no refs: nothing was built")
        return self._refs

    def zarr_json(self) -> dict[str, Any]:
        """The consolidated Zarr v3 zarr.json document."""
        if self._zarr_json is None:
            raise ValueError("no zarr.json: nothing was built")
        return json.loads(self._zarr_json)

    def to_json(self) -> str:
        """The report as ``vzplan plan --json`` / ``vzplan build --json`` prints it."""
        return json.dumps(self._report, indent=2)

    def html(self) -> str:
        """The plan as one self-contained HTML page (inline SVG, no external assets): what
        ``vzplan plan --html FILE`` writes."""
        if self._page is None:
            raise ValueError("no page: the report was made without one")
        return self._page

    def _repr_html_(self) -> str:
        # The page in an iframe of its own, so that its styles stay off the notebook's.
        page = html.escape(self.html(), quote=True)
        return (
            '<iframe class="vzplan-report" style="width:100%;height:32em;border:1px solid #ddd" '
            f'srcdoc="{page}"></iframe>'
        )

    def __repr__(self) -> str:
        arrays = self.arrays
        lines = [
            f"<vzplan.Report: {len(self.sources)} file(s), {len(arrays)} array(s), "
            f"{len(self.findings)} finding(s), exit code {self.exit_code}>"
        ]
        for a in arrays[:12]:
            dims = ", ".join(a.get("dimension_names") or [])
            lines.append(f"  {a['path']}  {a['dtype']} ({dims}) {a['shape']}")
        if len(arrays) > 12:
            lines.append(f"  … and {len(arrays) - 12} more")
        left = self._report.get("left_out") or []
        if left:
            lines.append(f"  left out: {', '.join(left)} (see findings)")
        return "\n".join(lines)
