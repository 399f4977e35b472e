"""What the checks share: the repository's paths, running the binary, the cases files, opening refs
through fsspec's ReferenceFileSystem with zarr-python, and refs normalised for comparison."""

from __future__ import annotations

import glob
import json
import os
import re
import subprocess
from pathlib import Path

import fsspec
import zarr
import zarr.storage

# The grids vzplan writes are rectilinear; zarr-python reads them only with this switched on.
zarr.config.set({"array.rectilinear_chunks": True})
try:  # TIFF LZW / PackBits / predictor / JPEG codecs
    import imagecodecs.zarr

    imagecodecs.zarr.register_codecs(verbose=False)
except (ImportError, AttributeError):
    pass

ROOT = Path(__file__).resolve().parents[2]
TESTDATA = ROOT / "testdata"
COLLECTIONS = TESTDATA / "collections"
CASES_FILES = {
    "collections": TESTDATA / "collections" / "cases.json",
    "real": TESTDATA / "real" / "cases.json",
    "mosaic": TESTDATA / "mosaic" / "cases.json",
}
# moto accepts any credentials; these are the ones every S3 client here is given.
S3_ENV = dict(AWS_ACCESS_KEY_ID="testing", AWS_SECRET_ACCESS_KEY="testing", AWS_REGION="us-east-1")


def run(cmd, env=None, **kw):
    """Runs a command, capturing its output as text; `env` entries are added to os.environ."""
    full = dict(os.environ, **env) if env else None
    return subprocess.run([str(c) for c in cmd], capture_output=True, text=True, env=full, **kw)


def load_cases(kind: str) -> list[dict]:
    """The cases of testdata/<kind>/cases.json."""
    return json.loads(CASES_FILES[kind].read_text())["cases"]


def case_params(*kinds: str):
    """(kind, case) pairs with readable ids, for pytest.mark.parametrize."""
    import pytest

    return [pytest.param(kind, case, id=f"{kind}-{case['name']}") for kind in kinds for case in load_cases(kind)]


def case_inputs(kind: str, case: dict) -> list[str]:
    """The case's input files: each glob of `inputs` expanded and sorted, in order."""
    base = CASES_FILES[kind].parent
    out = []
    for pat in case["inputs"]:
        out.extend(sorted(glob.glob(str(base / pat))))
    return out


def case_args(kind: str, case: dict) -> list[str]:
    """The case's extra arguments, `{base}` standing for its cases file's folder."""
    base = str(CASES_FILES[kind].parent)
    return [a.replace("{base}", base) for a in case.get("args", [])]


def local(url: str) -> str:
    return url[len("file://"):] if url.startswith("file://") else url


def reference_store(fo, protocol="file", options=None, path=""):
    """A read-only FsspecStore over refs (a path or a loaded dict) through ReferenceFileSystem."""
    remote = {"asynchronous": True, **(options or {})} if protocol != "file" else None
    kw = {"remote_options": remote} if remote else {}
    fs = fsspec.filesystem("reference", fo=fo if isinstance(fo, dict) else str(fo),
                           remote_protocol=protocol, asynchronous=True, **kw)
    return zarr.storage.FsspecStore(fs, read_only=True, path=path)


def open_refs(refs, protocol="file", options=None) -> zarr.Group:
    """The root group of refs.json as zarr-python reads it (Zarr v3, rectilinear grids on)."""
    return zarr.open_group(store=reference_store(refs, protocol, options), mode="r", zarr_format=3)


def s3_options(endpoint: str) -> dict:
    return {"endpoint_url": endpoint, "anon": False, "key": "testing", "secret": "testing",
            "client_kwargs": {"region_name": "us-east-1"}}


def normalized(refs_path, local_prefix: str, remote_prefix: str) -> dict:
    """refs.json with `local_prefix` replaced by `remote_prefix` and the sources' provenance times
    and ETags dropped: what two builds of the same bytes from different places share."""
    v = json.loads(Path(refs_path).read_text().replace(local_prefix, remote_prefix))
    root = json.loads(v["refs"]["zarr.json"])
    for s in root["attributes"]["vzplan"]["sources"]:
        s.pop("mtime", None)
        s.pop("etag", None)
    v["refs"]["zarr.json"] = json.dumps(root, sort_keys=True)
    return v


def stats_lines(stderr: str) -> dict:
    """`--stats` lines: {url: (requests, retried, bytes read, round trips)}."""
    out = {}
    for line in stderr.splitlines():
        m = re.match(r"^(\S+): (\d+) request\(s\)(?: \((\d+) retried\))?, (\d+) round trip\(s\), "
                     r"(\d+) bytes read", line)
        if m:
            out[m.group(1)] = (int(m.group(2)), int(m.group(3) or 0), int(m.group(5)), int(m.group(4)))
    return out


def fail_on(errors: list[str], what: str = "") -> None:
    """Fails the running test with every error on its own line (none: passes)."""
    import pytest

    if errors:
        head = f"{what}: " if what else ""
        pytest.fail(head + "\n" + "\n".join("  " + str(e).replace("\n", "\n  ") for e in errors),
                    pytrace=False)


def fixture_generator(name: str):
    """A fixture generator of scripts/fixtures/ as a module, for the data it writes (loaded from its
    file: scripts/ is not a package)."""
    import importlib.util
    import sys

    key = f"vzplan_fixture_{name}"
    if key not in sys.modules:
        spec = importlib.util.spec_from_file_location(key, ROOT / "scripts" / "fixtures" / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[key] = module
        spec.loader.exec_module(module)
    return sys.modules[key]
