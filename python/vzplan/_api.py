"""The Python API: plan, build, append, scan and open, over the native extension (the library the
`vzplan` command runs)."""

from __future__ import annotations

import json
import os
import warnings
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Union
from urllib.parse import urlparse

from . import _vzplan
from ._options import io_options, split_storage_options
from ._progress import progress_bar
from ._report import Report
from ._zarr import configure_zarr

if TYPE_CHECKING:
    import xarray

#: Paths, glob patterns or object URLs: one, or a sequence of them.
Paths = Union[str, "os.PathLike[str]", Sequence[Union[str, "os.PathLike[str]"]]]

VzplanError = _vzplan.VzplanError


class FindingWarning(UserWarning):
    """A finding of vzplan's plan (a file left out, a chunk padded, an array that cannot be built)."""


def _paths(paths: Paths) -> list[str]:
    if isinstance(paths, (str, os.PathLike)):
        return [os.fspath(paths)]
    return [os.fspath(p) for p in paths]


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
    paths: Paths | None,
    layouts: Iterable[Any] | None,
    opts: dict[str, Any],
    *,
    build: bool,
    output: str | None = None,
    append: bool = False,
) -> Report:
    show = opts.pop("progress", None)
    options, env = split_storage_options(opts)
    lines = _layout_lines(layouts) if layouts is not None else None
    plist = None if paths is None else _paths(paths)
    with env, progress_bar(show) as tick:
        report, code, refs, zarr, page = _vzplan.run(
            plist, lines, options, build=build, output=output, in_memory=True, append=append,
            page=True, progress=tick,
        )
    return Report(json.loads(report), code, refs, zarr, page)


def plan(paths: Paths | None = None, *, layouts: Iterable[Any] | None = None, **opts: Any) -> Report:
    """Plans the files as ``vzplan plan`` does; nothing is written.

    ``paths``: local paths, globs, or ``s3://``/``gs://``/``az://``/``https://`` URLs (or
    ``layouts``: layout dicts or lines from :func:`scan`, instead of scanning). Options are the
    CLI's, as keyword arguments: ``concat_dim``, ``stack_dim``, ``stack_coord``, ``var``, ``mosaic``,
    ``mosaic_layout``, ``patch``, ``html``, ``jobs``, ``chunk_bytes``, ``fail_fast``,
    ``allow_unreachable``, ``s3_endpoint``, ``gcs_endpoint``, ``anon``, ``region``, ``retries``,
    ``io_timeout``, ``first_read``, ``block_size``, ``sources_under``, ``dmrpp`` (read each
    input's ``INPUT.dmrpp`` sidecar in place of its metadata), and ``storage_options`` in
    fsspec's spelling (``key``, ``secret``, ``token``, ``endpoint_url``, ``anon``, ``region``).
    ``progress``: True draws a bar (tqdm), False none; by default one in a notebook. The GIL is
    released while scanning; Ctrl-C stops the scan.

    Example::

        >>> report = vzplan.plan("data/tas_*.nc")
        >>> report.exit_code
        0
        >>> [a["path"] for a in report.arrays]
        ['time', 'lat', 'lon', 'tas']
    """
    return _run(paths, layouts, opts, build=False)


def _outputs(
    paths: Paths | None,
    layouts: Iterable[Any] | None,
    opts: dict[str, Any],
    output: str | os.PathLike[str] | None,
    icechunk: str | os.PathLike[str] | None,
    client: Any,
    batch_size: int,
) -> tuple[Paths | None, Iterable[Any] | None, dict[str, Any], str | None]:
    """build/append's common part: the Icechunk option, the output path, and the files scanned
    on ``client``'s workers (their layouts instead of the paths)."""
    if icechunk is not None:
        opts = dict(opts, icechunk=os.fspath(icechunk))
    out = None if output is None else os.fspath(output)
    if client is not None:
        if layouts is not None:
            raise ValueError("give either client or layouts, not both")
        if paths is None:
            raise ValueError("client scans paths: give them")
        from ._distributed import scan_on_client

        layouts, files = scan_on_client(client, _paths(paths), opts, batch_size)
        opts = dict(opts, sources_named=files)
        paths = None
    return paths, layouts, opts, out


def build(
    paths: Paths | None = None,
    *,
    output: str | os.PathLike[str] | None = None,
    icechunk: str | os.PathLike[str] | None = None,
    client: Any = None,
    layouts: Iterable[Any] | None = None,
    batch_size: int = 16,
    **opts: Any,
) -> Report:
    """Builds as ``vzplan build`` does: writes ``output`` (refs.json) and its zarr.json beside it
    (``zarr_json=PATH`` elsewhere, ``no_zarr_json=True`` none), byte for byte as the CLI; with no
    ``output`` nothing is written and the references stay in the report (:meth:`Report.refs`).

    ``client``: a ``dask.distributed.Client``; the files are scanned on its workers in batches of
    ``batch_size`` and planned here; the refs are identical to a local build. ``icechunk``: an
    Icechunk repository (a local directory or ``s3://``/``gs://``/``az://`` prefix) to commit to,
    on ``branch="main"`` (:attr:`Report.icechunk` tells the commit). ``no_templates=True``: full
    URLs in every reference; ``force``: replace files that are not vzplan outputs;
    ``keep_layouts=True`` (or a path): keep every file's layout beside the outputs so that
    :func:`append` can add files later without scanning these again. Options as :func:`plan`.
    Raises :class:`VzplanError` when nothing can be built, ``ValueError`` for options that cannot
    go together.

    Example::

        >>> report = vzplan.build("data/tas_*.nc", output="refs.json", keep_layouts=True)
        >>> report.output, report.zarr_json_path, report.layouts_path
        ('refs.json', 'refs.zarr.json', 'refs.layouts.jsonl')
    """
    paths, layouts, opts, out = _outputs(paths, layouts, opts, output, icechunk, client, batch_size)
    return _run(paths, layouts, opts, build=True, output=out)


def append(
    paths: Paths | None = None,
    *,
    output: str | os.PathLike[str] | None = None,
    icechunk: str | os.PathLike[str] | None = None,
    client: Any = None,
    layouts: Iterable[Any] | None = None,
    batch_size: int = 16,
    **opts: Any,
) -> Report:
    """Adds files to the collection at ``output``, built with ``keep_layouts=True`` (or
    ``vzplan build --keep-layouts``), as ``vzplan append`` does: only the new files are scanned
    (here, or on ``client``'s workers), and refs.json, zarr.json and the kept layouts are
    rewritten as a build of all the files would write them. Pass the same plan options as the
    build. A kept file changed since it was scanned is left out (give it again to rescan it); a
    collection without kept layouts raises :class:`VzplanError`. Kept objects are checked on the
    store only under ``sources_under`` prefixes. ``icechunk=REPO``: append to a repository built
    with ``keep_layouts`` in one more commit (a concurrent commit is a conflict, not a lost
    update). With no paths, the collection is rewritten from its kept layouts.

    Example::

        >>> vzplan.build(["data/2001.nc", "data/2002.nc"], output="refs.json", keep_layouts=True)
        >>> vzplan.append("data/2003.nc", output="refs.json").sources
        ['data/2001.nc', 'data/2002.nc', 'data/2003.nc']
    """
    paths, layouts, opts, out = _outputs(paths, layouts, opts, output, icechunk, client, batch_size)
    return _run(paths, layouts, opts, build=True, output=out, append=True)


def scan(path: str | os.PathLike[str], **opts: Any) -> dict[str, Any]:
    """One file's layout: the JSON line ``vzplan scan`` writes, as a dict. Raises
    :class:`VzplanError` if the file cannot be read. Scan options only (``chunk_bytes``, the
    object-storage options, ``storage_options``).

    Each array's chunk table (``layout["arrays"][i]["chunks"]["entries"]``) is columns:
    ``{"index": {"grid": shape} | [[i, j, ...], ...], "offset": [...], "length": [...]}``; with
    ``{"grid": shape}`` chunk ``k`` is at ``numpy.unravel_index(k, shape)``. Inline bytes and
    non-zero HDF5 filter masks, if any, are listed aside as ``[position, value]`` pairs
    (``"inline"``, ``"filter_mask"``).

    Example: fan out with any executor, then build from the layouts::

        >>> with concurrent.futures.ProcessPoolExecutor() as ex:
        ...     layouts = list(ex.map(vzplan.scan, files))
        >>> vzplan.build(layouts=layouts, output="refs.json")
    """
    lines = scan_batch([os.fspath(path)], **opts).decode().splitlines()
    if len(lines) != 1:
        raise ValueError(f"{os.fspath(path)}: names {len(lines)} files; scan takes one")
    layout = json.loads(lines[0])
    if "error" in layout and "arrays" not in layout:
        raise VzplanError(layout["error"])
    return layout


def scan_batch(paths: Sequence[str | os.PathLike[str]], **opts: Any) -> bytes:
    """Layout lines of these files (newline-terminated JSON lines, failures included as
    ``{"url", "error"}``), as bytes: what a worker sends back to be planned with
    ``build(layouts=...)``.

    Example::

        >>> lines = vzplan.scan_batch(["data/a.nc", "data/b.nc"])
        >>> len(lines.splitlines())
        2
    """
    options, env = split_storage_options(opts)
    with env:
        lines = _vzplan.scan_lines([os.fspath(p) for p in paths], options)
    return "".join(line + "\n" for line in lines).encode()


def _remote_protocol(refs: Mapping[str, Any]) -> str:
    for url in refs.get("templates", {}).values():
        scheme = urlparse(url).scheme
        return {"": "file", "az": "abfs", "http": "https"}.get(scheme, scheme)
    return "file"


def open_dataset(
    paths: Paths,
    *,
    concat_dim: str | None = None,
    stack_dim: str | None = None,
    stack_coord: str | None = None,
    mosaic: bool = False,
    var: str | Sequence[str] | None = None,
    patch: bool = False,
    storage_options: Mapping[str, Any] | None = None,
    **opts: Any,
) -> xarray.Dataset:
    """Plans the files in process and opens the virtual dataset with xarray, reading the
    sources' bytes lazily through fsspec's ReferenceFileSystem. Equal to
    ``xr.open_mfdataset(paths)`` where both can open the files.

    Needs no configuration: zarr-python is set up to read what vzplan writes
    (:func:`configure_zarr`: rectilinear chunk grids, imagecodecs' codecs for TIFF and HDF5 plugin
    compression). Findings are emitted as :class:`FindingWarning` warnings. Options as
    :func:`plan`; ``storage_options`` also configure fsspec for the reads. A GeoTIFF pyramid (a
    COG with overviews) opens at its full resolution, the multiscales' first level; open the refs
    with ``xr.open_datatree`` to see every level.

    Example::

        >>> ds = vzplan.open_dataset("data/tas_day_*.nc")
        >>> ds.tas.chunks          # the files' own blocks, as a rectilinear grid
        ((366, 365, 365, 365), (3,), (4,))
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
            stack_coord=stack_coord,
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
    configure_zarr()
    protocol = _remote_protocol(refs)
    fs = fsspec.filesystem(
        "reference",
        fo=refs,
        remote_protocol=protocol,
        remote_options=io_options(protocol, storage_options),
        asynchronous=True,
    )
    store = zarr.storage.FsspecStore(fs, read_only=True, path="")
    return xr.open_dataset(
        store, engine="zarr", zarr_format=3, consolidated=False, chunks=None, group=_first_level(refs)
    )


def _first_level(refs: Mapping[str, Any]) -> str | None:
    """The group of a pyramid's first (full-resolution) level, from the root's multiscales
    attribute; None (the root) when there is no pyramid."""
    try:
        root = json.loads(refs["refs"]["zarr.json"])
        return root["attributes"]["multiscales"]["layout"][0]["asset"]
    except (KeyError, IndexError, TypeError, ValueError):
        return None
