"""Azure end to end, against azurite on 127.0.0.1 (the `azurite` fixture; scripts/setup-azurite.sh
installs it): the shipped collections uploaded to a container, built from `az://container/prefix/*.nc`
globs, give the local build's refs (modulo URLs and provenance times), read back through fsspec's az
filesystem (adlfs) equal to the local files, and pass `vzplan verify`: the listing's ETags are bare
and a GET's are quoted, so this is where ETags must be compared normalised."""

from __future__ import annotations

import json
import weakref

import numpy as np
import pytest

from .compare import same
from .helpers import COLLECTIONS, fail_on, normalized, open_refs, run
from .servers import azure_connection_string, azure_env
from .sources import netcdf_values

CASES = ["yearly", "monthly"]


@pytest.fixture(scope="module")
def azure(azurite):
    """azurite with container `coll` holding the yearly and monthly collections; (URL, connection string)."""
    from azure.storage.blob import BlobServiceClient

    conn = azure_connection_string(azurite)
    svc = BlobServiceClient.from_connection_string(conn)
    svc.create_container("coll")
    for case in CASES:
        for f in sorted((COLLECTIONS / case).glob("*.nc")):
            svc.get_blob_client("coll", f"{case}/{f.name}").upload_blob(f.read_bytes())
    yield azurite, conn
    close_az_filesystems()


def close_az_filesystems():
    """adlfs closes an asynchronous filesystem's client in a finalizer that holds the filesystem and
    no running loop, so it fails at exit: close the clients on zarr's loop, where they were made,
    and drop those finalizers."""
    from adlfs import AzureBlobFileSystem
    from adlfs.utils import close_service_client
    from zarr.core.sync import sync

    for f in list(getattr(weakref.finalize, "_registry", {})):
        target = f.peek()  # (filesystem, fsspec's sync, (loop, closer, filesystem), {})
        if target and isinstance(target[0], AzureBlobFileSystem):
            f.detach()
            if close_service_client in target[2]:
                sync(close_service_client(target[0]))


@pytest.mark.parametrize("case", CASES)
def test_azure(vzplan, azure, case, tmp_path, report):
    url, conn = azure
    env = azure_env(url)
    out, ref = tmp_path / f"{case}.json", tmp_path / f"{case}.local.json"
    local = sorted(str(p) for p in (COLLECTIONS / case).glob("*.nc"))
    p = run([vzplan, "build", f"az://coll/{case}/*.nc", "-o", out, "--json"], env=env)
    q = run([vzplan, "build", *local, "-o", ref])
    if q.returncode != 0:
        fail_on([f"local build exit {q.returncode}: {q.stderr}"])
    if p.returncode != 0:
        fail_on([f"exit {p.returncode}: {p.stderr}"])
    errs = []
    if normalized(out, f"az://coll/{case}", "X") != normalized(ref, f"file://{COLLECTIONS / case}", "X"):
        errs.append("refs differ from the local build's (modulo URLs)")
    built = json.loads(p.stdout)
    g = open_refs(out, "az", {"connection_string": conn})
    for arr in built["arrays"]:
        d = same(np.asarray(g[arr["path"]][...]), netcdf_values(local, arr["path"], built["concat_dim"]))
        if d:
            errs.append(f"{arr['path']}: {d}")
    v = run([vzplan, "verify", out, "--json"], env=env)
    if v.returncode != 0:
        errs.append(f"verify: exit {v.returncode}: {v.stdout} {v.stderr}")
    report(f"azure {case}: built from az:// on azurite, read back over az, verify passes")
    fail_on(errs)
