"""Azure end to end, against azurite (Microsoft's emulator, scripts/setup-azurite.sh) on 127.0.0.1:
the shipped collections uploaded to a container, built from `az://container/prefix/*.nc` globs,
must give the local build's refs (modulo URLs and provenance times), read back through fsspec's az
filesystem (adlfs) equal to the local files, and pass `vzplan verify` — the listing's ETags are
bare and a GET's are quoted, so this is where ETags must be compared normalised.

    .venv/bin/python scripts/readback_azure.py --vzplan target/debug/vzplan

Prints 'readback_azure: N passed, N failed' and exits non-zero on a failure.
"""

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import fsspec
import numpy as np
import zarr
from azure.storage.blob import BlobServiceClient

sys.path.insert(0, str(Path(__file__).resolve().parent))
from readback_s3 import local_values, normalized, same  # noqa: E402

zarr.config.set({"array.rectilinear_chunks": True})
ROOT = Path(__file__).resolve().parent.parent
ACCOUNT = "devstoreaccount1"
# azurite's well-known development key (public, in Microsoft's documentation).
KEY = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_azurite(workdir):
    port = free_port()
    exe = ROOT / ".tools/azurite/node_modules/.bin/azurite-blob"
    workdir.mkdir(parents=True, exist_ok=True)
    proc = subprocess.Popen([str(exe), "--blobHost", "127.0.0.1", "--blobPort", str(port), "--inMemoryPersistence",
                             "--skipApiVersionCheck", "--silent"], cwd=workdir,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/{ACCOUNT}"
    for _ in range(100):
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return proc, url
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError("azurite did not start")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--vzplan", required=True)
    a = ap.parse_args()
    passed = failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        proc, url = start_azurite(tmp / "azurite")
        try:
            conn = (f"DefaultEndpointsProtocol=http;AccountName={ACCOUNT};AccountKey={KEY};"
                    f"BlobEndpoint={url};")
            svc = BlobServiceClient.from_connection_string(conn)
            svc.create_container("coll")
            coll = ROOT / "testdata/collections"
            for case in ["yearly", "monthly"]:
                for f in sorted((coll / case).glob("*.nc")):
                    svc.get_blob_client("coll", f"{case}/{f.name}").upload_blob(f.read_bytes())
            env = dict(os.environ, AZURE_STORAGE_USE_EMULATOR="true", AZURITE_BLOB_STORAGE_URL=url.rsplit("/", 1)[0],
                       AZURE_STORAGE_ACCOUNT_NAME=ACCOUNT, AZURE_STORAGE_ACCOUNT_KEY=KEY)
            for case in ["yearly", "monthly"]:
                errs = []
                out, ref = tmp / f"{case}.json", tmp / f"{case}.local.json"
                local = sorted(str(p) for p in (coll / case).glob("*.nc"))
                p = subprocess.run([a.vzplan, "build", f"az://coll/{case}/*.nc", "-o", str(out), "--json"],
                                   capture_output=True, text=True, env=env)
                subprocess.run([a.vzplan, "build", *local, "-o", str(ref)], capture_output=True, check=True)
                if p.returncode != 0:
                    errs.append(f"exit {p.returncode}: {p.stderr}")
                else:
                    if normalized(out, f"az://coll/{case}", "X") != normalized(ref, f"file://{coll / case}", "X"):
                        errs.append("refs differ from the local build's (modulo URLs)")
                    report = json.loads(p.stdout)
                    fs = fsspec.filesystem("reference", fo=str(out), remote_protocol="az",
                                           remote_options={"connection_string": conn, "asynchronous": True},
                                           asynchronous=True)
                    g = zarr.open_group(zarr.storage.FsspecStore(fs, read_only=True, path=""), mode="r",
                                        zarr_format=3)
                    for arr in report["arrays"]:
                        d = same(np.asarray(g[arr["path"]][...]),
                                 local_values(local, arr["path"], report["concat_dim"]))
                        if d:
                            errs.append(f"{arr['path']}: {d}")
                    v = subprocess.run([a.vzplan, "verify", str(out), "--json"], capture_output=True, text=True,
                                       env=env)
                    if v.returncode != 0:
                        errs.append(f"verify: exit {v.returncode}: {v.stdout} {v.stderr}")
                if errs:
                    failed += 1
                    print(f"FAIL azure {case}")
                    for e in errs:
                        print("  " + e)
                else:
                    passed += 1
                    print(f"ok   azure {case}: built from az:// on azurite, read back over az, verify passes")
        finally:
            proc.kill()
    print(f"readback_azure: {passed} passed, {failed} failed", flush=True)
    sys.stderr.flush()
    # adlfs' finalizers complain about a closed event loop at interpreter exit: skip them.
    os._exit(1 if failed else 0)


if __name__ == "__main__":
    main()
