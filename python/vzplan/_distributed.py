"""Scanning on a Dask cluster: batches of files per task, layouts back as bytes, planned here."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from . import _vzplan
from ._api import scan_batch
from ._options import split_storage_options

_PLAN_ONLY = {
    "concat_dim",
    "stack_dim",
    "stack_coord",
    "var",
    "mosaic",
    "mosaic_layout",
    "patch",
    "html",
    "zarr_json",
    "no_zarr_json",
    "sources_under",
    "sources_named",
}


def scan_on_client(
    client: Any, paths: Sequence[str], opts: dict[str, Any], batch_size: int
) -> tuple[list[bytes], list[str]]:
    """Expands ``paths`` here (globs, object listings), scans batches of files on the workers and
    returns their layout lines in input order, and the files (named by the caller: a patch may
    read them)."""
    if batch_size < 1:
        raise ValueError("batch_size must be at least 1")
    scan_opts = {k: v for k, v in opts.items() if k not in _PLAN_ONLY}
    files = expand(paths, scan_opts)
    batches = [files[i : i + batch_size] for i in range(0, len(files), batch_size)]
    # client.map passes the keyword arguments to every call.
    futures = client.map(scan_batch, batches, pure=False, **scan_opts)
    return client.gather(futures), files


def expand(paths: Sequence[str], opts: dict[str, Any]) -> list[str]:
    """The files that ``paths`` name, in the order the CLI scans them."""
    options, env = split_storage_options(opts)
    with env:
        return _vzplan.expand(list(paths), options)
