"""The Python API: plan, build, scan and open, over the native extension (the library the CLI calls)."""

from __future__ import annotations

import json
import os
import warnings
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any
from urllib.parse import urlparse

from . import _vzplan
from ._options import io_options, split_storage_options

if TYPE_CHECKING:
    import xarray

VzplanError = _vzplan.VzplanError


class FindingWarning(UserWarning):
    """A finding of vzplan's plan (a file left out, a chunk padded, an array that cannot be built)."""


def _paths(paths: Any) -> list[str]:
    if isinstance(paths, (str, os.PathLike)):
        return [os.fspath(paths)]
    return [os.fspath(p) for p in paths]


def _finding(f: Mapping[str, Any]) -> dict[str, Any]:
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
    """The result of :func:`plan` or :func:`build`: what was (or would be) built and the findings.

    ``exit_code`` is the CLI's: 0 everything built, 3 built but something was left out.
    """

    def __init__(
        self,
        report: dict[str, Any],
        exit_code: int,
        refs: bytes | None,
        zarr_json: bytes | None,
        output: str | None = None,
        zarr_json_path: str | None = None,
    ) -> None:
        self._report = report
        self.exit_code: int = exit_code
        self._refs = refs
        self._zarr_json = zarr_json
        self.output = output
        self.zarr_json_path = zarr_json_path

    @property
    def findings(self) -> list[dict[str, Any]]:
        """Each finding as a dict: kind, severity, file, variable, message, fix (and location, text)."""
        return [_finding(f) for f in self._report.get("findings", [])]

    @property
    def arrays(self) -> list[dict[str, Any]]:
        """Each array built: path, dtype, dimension_names, shape, chunk_grid, chunks, files, inline."""
        return list(self._report.get("arrays", []))

    @property
    def complete(self) -> bool:
        """True when nothing was left out (exit code 0)."""
        return bool(self._report.get("complete"))

    @property
    def icechunk(self) -> dict[str, Any] | None:
        """The Icechunk commit (repository, branch, snapshot, virtual_refs, …), if one was made."""
        return self._report.get("icechunk")

    @property
    def sources(self) -> list[str]:
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
        """The report as `vzplan plan --json` / `vzplan build --json` prints it."""
        r = dict(self._report)
        if self.output is not None:
            r["refs"] = self.output
            if self.zarr_json_path is not None:
                r["zarr_json"] = self.zarr_json_path
        return json.dumps(r, indent=2)

    def __repr__(self) -> str:
        return (
            f"<vzplan.Report arrays={[a['path'] for a in self.arrays]} "
            f"findings={len(self.findings)} complete={self.complete}>"
        )


def _layout_lines(layouts: Iterable[Any]) -> list[str]:
    lines = []
    for item in layouts:
        if isinstance(item, bytes):
            lines.extend(item.decode().splitlines())
        elif isinstance(item, str):
            lines.extend(item.splitlines())
        else:
            lines.append(json.dumps(item))
    return lines


def _run(
    paths: Any,
    layouts: Iterable[Any] | None,
    opts: dict[str, Any],
    *,
    build: bool,
    output: str | None = None,
    append: bool = False,
) -> Report:
    options, env = split_storage_options(opts)
    lines = _layout_lines(layouts) if layouts is not None else None
    plist = None if paths is None else _paths(paths)
    with env:
        report, code, refs, zarr = _vzplan.run(
            plist, lines, options, build=build, output=output, in_memory=True, append=append
        )
    zpath = None
    if output is not None and not options.get("no_zarr_json"):
        zpath = options.get("zarr_json") or _default_zarr_json(output)
    return Report(json.loads(report), code, refs, zarr, output, zpath)


def _default_zarr_json(refs: str) -> str:
    # As vzplan::outputs::zarr_json_path: refs.json → refs.zarr.json.
    root, ext = os.path.splitext(refs)
    return f"{root}.zarr.json" if ext == ".json" else f"{refs}.zarr.json"


def plan(paths: Any = None, *, layouts: Iterable[Any] | None = None, **opts: Any) -> Report:
    """Plans the files as `vzplan plan` does; nothing is written.

    ``paths``: local paths, globs, or ``s3://``/``gs://``/``az://``/``https://`` URLs (or
    ``layouts``: layout dicts/lines from :func:`scan`, instead of scanning). Options are the CLI's,
    as keyword arguments: ``concat_dim``, ``stack_dim``, ``var``, ``mosaic``, ``mosaic_layout``,
    ``patch``, ``html``, ``jobs``, ``chunk_bytes``, ``fail_fast``, ``s3_endpoint``, ``anon``,
    ``region``, ``retries``, ``io_timeout``, ``first_read``, ``block_size``, and
    ``storage_options`` in fsspec's spelling (``key``, ``secret``, ``token``, ``endpoint_url``,
    ``anon``, ``region``). The GIL is released while scanning; Ctrl-C stops the scan.
    """
    return _run(paths, layouts, opts, build=False)


def _outputs(paths, layouts, opts, output, icechunk, client, batch_size):
    """build/append's common part: the Icechunk option, the output path, and the files scanned
    on ``client``'s workers (their layouts instead of the paths)."""
    if icechunk is not None:
        opts = dict(opts, icechunk=os.fspath(icechunk))
    out = None if output is None else os.fspath(output)
    if client is not None:
        if layouts is not None:
            raise ValueError("give either client or layouts, not both")
        from ._distributed import scan_on_client

        layouts, files = scan_on_client(client, _paths(paths), opts, batch_size)
        opts = dict(opts, sources_named=files)
        paths = None
    return paths, layouts, opts, out


def build(
    paths: Any = None,
    *,
    output: str | os.PathLike[str] | None = None,
    icechunk: Any = None,
    client: Any = None,
    layouts: Iterable[Any] | None = None,
    batch_size: int = 16,
    **opts: Any,
) -> Report:
    """Builds as `vzplan build` does: writes ``output`` (refs.json) and its zarr.json beside it
    (``zarr_json=PATH`` elsewhere, ``no_zarr_json=True`` none), byte for byte as the CLI; with no
    ``output`` nothing is written and the refs are in the report (``Report.refs()``).

    ``client``: a ``dask.distributed.Client``; the files are scanned on its workers in batches of
    ``batch_size`` and planned here; the refs are identical to a local build.
    ``icechunk``: an Icechunk repository (a local directory or ``s3://``/``gs://``/``az://``
    prefix) to commit to, on ``branch="main"`` (``Report.icechunk`` tells the commit), as
    `vzplan build --icechunk`. ``no_templates=True``: full URLs in every reference; ``force``:
    replace files that are not vzplan outputs; ``keep_layouts=True`` (or a path): keep every
    file's layout beside the outputs so that :func:`append` can add files later without scanning
    these again. Options as :func:`plan`. Raises :class:`VzplanError` when nothing can be built.
    """
    paths, layouts, opts, out = _outputs(paths, layouts, opts, output, icechunk, client, batch_size)
    return _run(paths, layouts, opts, build=True, output=out)


def append(
    paths: Any = None,
    *,
    output: str | os.PathLike[str] | None = None,
    icechunk: Any = None,
    client: Any = None,
    layouts: Iterable[Any] | None = None,
    batch_size: int = 16,
    **opts: Any,
) -> Report:
    """Adds files to the collection at ``output``, built with ``keep_layouts=True`` (or
    `vzplan build --keep-layouts`), as `vzplan append` does: only the new files are scanned (here,
    or on ``client``'s workers), and refs.json, zarr.json and the kept layouts are rewritten as a
    build of all the files would write them. Pass the same plan options as the build. A kept file
    changed since it was scanned is left out (give it again to rescan it); a collection without
    kept layouts raises :class:`VzplanError`. ``icechunk=REPO``: append to a repository built
    with ``keep_layouts`` in one more commit (a concurrent commit is a conflict, not a lost update).
    """
    paths, layouts, opts, out = _outputs(paths, layouts, opts, output, icechunk, client, batch_size)
    return _run(paths, layouts, opts, build=True, output=out, append=True)


def scan(path: str | os.PathLike[str], **opts: Any) -> dict[str, Any]:
    """One file's layout: the JSON line `vzplan scan` writes, as a dict. Raises
    :class:`VzplanError` if the file cannot be read. Scan options only (``chunk_bytes``, the
    object-storage options, ``storage_options``).

    Each array's chunk table (``layout["arrays"][i]["chunks"]["entries"]``) is columns:
    ``{"index": {"grid": shape} | [[i, j, ...], ...], "offset": [...], "length": [...]}``; with
    ``{"grid": shape}`` chunk ``k`` is at ``numpy.unravel_index(k, shape)``. Inline bytes and
    non-zero HDF5 filter masks, if any, are listed aside as ``[position, value]`` pairs
    (``"inline"``, ``"filter_mask"``).

    Fan out with any executor, then build from the layouts::

        with concurrent.futures.ProcessPoolExecutor() as ex:
            layouts = list(ex.map(vzplan.scan, files))
        vzplan.build(layouts=layouts, output="refs.json")
    """
    lines = scan_batch([os.fspath(path)], **opts).decode().splitlines()
    if len(lines) != 1:
        raise ValueError(f"{os.fspath(path)}: names {len(lines)} files; scan takes one")
    layout = json.loads(lines[0])
    if "error" in layout and "url" in layout and len(layout) == 2:
        raise VzplanError(layout["error"])
    return layout


def scan_batch(paths: Sequence[str], **opts: Any) -> bytes:
    """Layout lines of these files (newline-terminated JSON lines, failures included as
    ``{"url", "error"}``), as bytes: what a worker sends back."""
    options, env = split_storage_options(opts)
    with env:
        lines = _vzplan.scan_lines(list(paths), options)
    return "".join(line + "\n" for line in lines).encode()


def _remote_protocol(refs: Mapping[str, Any]) -> str:
    for url in refs.get("templates", {}).values():
        scheme = urlparse(url).scheme
        return {"": "file", "az": "abfs", "http": "https"}.get(scheme, scheme)
    return "file"


def open_dataset(
    paths: Any,
    *,
    concat_dim: str | None = None,
    stack_dim: str | None = None,
    mosaic: bool = False,
    var: str | Sequence[str] | None = None,
    patch: bool = False,
    storage_options: Mapping[str, Any] | None = None,
    **opts: Any,
) -> xarray.Dataset:
    """Plans the files in process and opens the virtual dataset with xarray, reading the
    sources' bytes lazily through fsspec's ReferenceFileSystem (zarr's rectilinear chunk grids
    enabled). Equal to ``xr.open_mfdataset(paths)`` where both can open the files.

    Findings are emitted as :class:`FindingWarning` warnings. Options as :func:`plan`;
    ``storage_options`` also configure fsspec for the reads.
    """
    import fsspec
    import xarray as xr
    import zarr

    report = _run(
        paths,
        None,
        dict(
            opts,
            concat_dim=concat_dim,
            stack_dim=stack_dim,
            mosaic=mosaic,
            var=var,
            patch=patch,
            storage_options=storage_options,
        ),
        build=True,
    )
    for f in report.findings:
        warnings.warn(f["text"] or f["message"], FindingWarning, stacklevel=2)
    refs = report.refs()
    zarr.config.set({"array.rectilinear_chunks": True})
    protocol = _remote_protocol(refs)
    fs = fsspec.filesystem(
        "reference",
        fo=refs,
        remote_protocol=protocol,
        remote_options=io_options(protocol, storage_options),
        asynchronous=True,
    )
    store = zarr.storage.FsspecStore(fs, read_only=True, path="")
    return xr.open_dataset(store, engine="zarr", zarr_format=3, consolidated=False, chunks=None)
