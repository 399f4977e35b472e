"""A VirtualiZarr 2.x parser built from vzplan's layout of one file."""

from __future__ import annotations

import base64
import json
import math
import re
from typing import Any

from ._api import _run

_TEMPLATE = re.compile(r"\{\{(\w+)\}\}")


def _sizes(spec: Any, extent: int) -> list[int]:
    """One axis of a rectilinear chunk_shapes entry: an int (regular), or a list of sizes and
    [size, repeat] runs."""
    if isinstance(spec, int):
        return [spec] * max(1, math.ceil(extent / spec)) if spec else [0]
    out: list[int] = []
    for item in spec:
        if isinstance(item, list):
            size, count = item
            out.extend([size] * count)
        else:
            out.append(item)
    return out


def _regular_grid(meta: dict[str, Any]) -> list[int]:
    grid = meta["chunk_grid"]
    if grid["name"] == "regular":
        return list(grid["configuration"]["chunk_shape"])
    shapes = grid["configuration"]["chunk_shapes"]
    chunk = []
    for axis, (spec, extent) in enumerate(zip(shapes, meta["shape"])):
        sizes = _sizes(spec, extent)
        first = sizes[0]
        # Regular: every chunk but the last is `first` long, the last at most that.
        if any(s != first for s in sizes[:-1]) or sizes[-1] > first:
            raise ValueError(
                f"axis {axis} has irregular chunks {sizes[:8]}…: VirtualiZarr's manifests take "
                "regular chunk grids only; use vzplan.build or vzplan.open_dataset instead"
            )
        chunk.append(first)
    return chunk


def _entry(value: Any, templates: dict[str, str]) -> dict[str, Any]:
    if isinstance(value, str):
        data = base64.b64decode(value[7:]) if value.startswith("base64:") else value.encode()
        return {"path": "", "offset": 0, "length": len(data), "data": data}
    url = _TEMPLATE.sub(lambda m: templates[m.group(1)], value[0])
    if len(value) == 1:
        raise ValueError(f"{url}: a whole-file reference has no byte range")
    return {"path": url, "offset": int(value[1]), "length": int(value[2])}


class VirtualiZarrParser:
    """VirtualiZarr 2.x parser: ``__call__(url, registry) -> ManifestStore``, from vzplan's
    layout of one file (netCDF-4/HDF5, netCDF classic, (Geo)TIFF)::

        vds = virtualizarr.open_virtual_dataset(url, registry=registry,
                                                parser=vzplan.VirtualiZarrParser())

    Single file only, and regular chunk grids only: a variable whose chunks vzplan would place on
    a rectilinear grid (e.g. netCDF-3 records merged unevenly) raises ValueError, as VirtualiZarr's
    manifests cannot hold it. Keyword options are vzplan's (``var``, ``chunk_bytes``,
    ``storage_options``, …); the registry is used for reading the chunks, not for scanning.
    """

    def __init__(self, **opts: Any) -> None:
        self.opts = opts

    def __call__(self, url: str, registry: Any) -> Any:
        from virtualizarr.manifests import (
            ChunkManifest,
            ManifestArray,
            ManifestGroup,
            ManifestStore,
        )
        from zarr.core.metadata.v3 import ArrayV3Metadata

        report = _run([url], None, dict(self.opts), build=True)
        doc = report.refs()
        templates = doc.get("templates", {})
        refs = doc["refs"]
        root: dict[str, Any] = {"arrays": {}, "groups": {}, "attributes": {}}

        def node(path: str) -> dict[str, Any]:
            n = root
            for part in [p for p in path.split("/") if p]:
                n = n["groups"].setdefault(part, {"arrays": {}, "groups": {}, "attributes": {}})
            return n

        for key, value in refs.items():
            if not key.endswith("zarr.json"):
                continue
            meta = json.loads(value)
            path = key[: -len("zarr.json")].rstrip("/")
            if meta.get("node_type") == "group":
                node(path)["attributes"] = meta.get("attributes", {})
                continue
            chunk = _regular_grid(meta)
            meta["chunk_grid"] = {"name": "regular", "configuration": {"chunk_shape": chunk}}
            grid = tuple(math.ceil(s / c) if c else 1 for s, c in zip(meta["shape"], chunk))
            prefix = f"{path}/c"
            entries = {}
            for k, v in refs.items():
                if k == prefix or k.startswith(prefix + "/"):
                    idx = k[len(prefix) + 1 :] if k != prefix else ""
                    entries[idx or "0"] = _entry(v, templates)
            if grid == ():
                entries = {"0": e for e in entries.values()}
            manifest = ChunkManifest(entries, shape=grid, separator="/")
            parent, _, name = path.rpartition("/")
            node(parent)["arrays"][name] = ManifestArray(
                metadata=ArrayV3Metadata.from_dict(meta), chunkmanifest=manifest
            )

        def group(n: dict[str, Any]) -> Any:
            return ManifestGroup(
                arrays=n["arrays"],
                groups={k: group(v) for k, v in n["groups"].items()},
                attributes=n["attributes"],
            )

        return ManifestStore(group(root), registry=registry)
