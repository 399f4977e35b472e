"""The loopback servers the checks read from, each on 127.0.0.1 at a free port: moto's S3, a
static HTTP server with byte ranges, and azurite (Azure Blob Storage). Only 127.0.0.1 is ever
contacted. scripts/s3_server.py and scripts/http_server.py run the first two as programs."""

from __future__ import annotations

import email.utils
import hashlib
import os
import re
import socket
import subprocess
import threading
import time
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

# Any credentials do for moto; set them before boto3 looks.
os.environ.setdefault("AWS_ACCESS_KEY_ID", "testing")
os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "testing")
os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")

ROOT = Path(__file__).resolve().parents[2]


def start_moto():
    """Starts moto's S3 on 127.0.0.1 at a free port; returns (server, endpoint URL)."""
    import logging

    from moto.server import ThreadedMotoServer

    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # no line per request
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    return server, f"http://{host}:{port}"


def s3_client(endpoint):
    import boto3

    return boto3.client(
        "s3",
        endpoint_url=endpoint,
        aws_access_key_id=os.environ["AWS_ACCESS_KEY_ID"],
        aws_secret_access_key=os.environ["AWS_SECRET_ACCESS_KEY"],
        region_name="us-east-1",
    )


def upload_dir(endpoint, bucket, directory, prefix=""):
    """Creates `bucket` (if needed) and uploads every file under `directory` as prefix + relative path."""
    c = s3_client(endpoint)
    try:
        c.create_bucket(Bucket=bucket)
    except c.exceptions.BucketAlreadyOwnedByYou:
        pass
    n = 0
    root = Path(directory)
    for p in sorted(root.rglob("*")):
        if p.is_file():
            c.upload_file(str(p), bucket, prefix + p.relative_to(root).as_posix())
            n += 1
    return n


RANGE = re.compile(r"^bytes=(\d*)-(\d*)$")


class RangeHandler(SimpleHTTPRequestHandler):
    """GET with `Range: bytes=a-b` (206 Partial Content; 416 past the end), HEAD with
    Content-Length, ETag and Last-Modified. The standard library's handler ignores Range."""

    protocol_version = "HTTP/1.1"

    def log_message(self, *args):  # quiet
        pass

    def _file(self):
        path = Path(self.translate_path(self.path))
        return path if path.is_file() else None

    def _headers(self, path, length, status, extra=()):
        st = path.stat()
        self.send_response(status)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(length))
        self.send_header("Accept-Ranges", "bytes")
        tag = hashlib.md5(f"{st.st_size}-{st.st_mtime_ns}".encode()).hexdigest()
        self.send_header("ETag", f'"{tag}"')
        self.send_header("Last-Modified", email.utils.formatdate(st.st_mtime, usegmt=True))
        for k, v in extra:
            self.send_header(k, v)
        self.end_headers()

    def do_HEAD(self):
        path = self._file()
        if path is None:
            self.send_error(404)
            return
        self._headers(path, path.stat().st_size, 200)

    def do_GET(self):
        path = self._file()
        if path is None:
            self.send_error(404)
            return
        size = path.stat().st_size
        m = RANGE.match(self.headers.get("Range", ""))
        if not m:
            self._headers(path, size, 200)
            with open(path, "rb") as f:
                self.wfile.write(f.read())
            return
        a, b = m.groups()
        if a == "":  # suffix range: the last b bytes
            start, end = max(0, size - int(b)), size - 1
        else:
            start, end = int(a), min(int(b) if b else size - 1, size - 1)
        if start >= size or start > end:
            self.send_response(416)
            self.send_header("Content-Range", f"bytes */{size}")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self._headers(path, end - start + 1, 206, [("Content-Range", f"bytes {start}-{end}/{size}")])
        with open(path, "rb") as f:
            f.seek(start)
            self.wfile.write(f.read(end - start + 1))


class _Backlogged(ThreadingHTTPServer):
    # socketserver's default backlog of 5 drops the connections of a client that opens dozens at
    # once (a scan with 32 files in flight), which then wait for the kernel's 1 s SYN retry.
    request_queue_size = 256


def start_http(directory, port=0):
    """Serves `directory` with byte ranges in a background thread; returns (server, base URL)."""
    handler = lambda *a, **k: RangeHandler(*a, directory=str(directory), **k)  # noqa: E731
    server = _Backlogged(("127.0.0.1", port), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


AZURE_ACCOUNT = "devstoreaccount1"
# azurite's well-known development key (public, in Microsoft's documentation).
AZURE_KEY = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_azurite(workdir):
    """Starts azurite's blob service (scripts/setup-azurite.sh installs it under .tools/) in memory;
    returns (process, account URL)."""
    port = free_port()
    exe = ROOT / ".tools/azurite/node_modules/.bin/azurite-blob"
    Path(workdir).mkdir(parents=True, exist_ok=True)
    proc = subprocess.Popen([str(exe), "--blobHost", "127.0.0.1", "--blobPort", str(port), "--inMemoryPersistence",
                             "--skipApiVersionCheck", "--silent"], cwd=workdir,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/{AZURE_ACCOUNT}"
    # Node takes seconds to load azurite, over ten on a busy 2-core machine.
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return proc, url
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError(f"azurite did not start (exit {proc.poll()})")


def azure_connection_string(url):
    return (f"DefaultEndpointsProtocol=http;AccountName={AZURE_ACCOUNT};AccountKey={AZURE_KEY};"
            f"BlobEndpoint={url};")


def azure_env(url):
    """The environment vzplan reads azurite's endpoint and account from."""
    return dict(AZURE_STORAGE_USE_EMULATOR="true", AZURITE_BLOB_STORAGE_URL=url.rsplit("/", 1)[0],
                AZURE_STORAGE_ACCOUNT_NAME=AZURE_ACCOUNT, AZURE_STORAGE_ACCOUNT_KEY=AZURE_KEY)
