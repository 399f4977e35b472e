"""A loopback S3 server for the object-storage tests: moto's server on 127.0.0.1 (a free port), buckets
filled from local directories, and optionally a fault-injecting HTTP proxy in front of it.

    .venv/bin/python scripts/s3_server.py --info /tmp/s3.json \
        --upload collections=testdata/collections [--faults 0.3 --fault-delay 2] [--lifetime 900]

Writes {"endpoint": "http://127.0.0.1:P", "proxy": "http://127.0.0.1:Q" | null} to --info once the
buckets are filled, then serves until killed, until its parent exits, or --lifetime seconds have
passed (it always stops by itself). Only 127.0.0.1 is ever contacted.

Faults (the proxy): a request is faulted only the first time it is seen (same method, path, query
and Range), and only when a hash of it falls in the --faults share, so every retry succeeds and the
outcome is deterministic. Kinds rotate by hash: HTTP 500 (S3 InternalError), a response delayed by
--fault-delay seconds (beyond the client's timeout), and a truncated body (full Content-Length,
half the bytes, connection closed). GET /__faults on the proxy returns the counts as JSON.
With --reset-writes, a share of PUT/POST requests has its connection reset (RST): half of them before
the request reaches the server, half after the server took it (the answer is lost). With
--outage-after N, every request after the first N gets 503 SlowDown: the store is down.

Importable: start_moto(), upload_dir(), FaultProxy.
"""

import argparse
import hashlib
import http.client
import json
import os
import socket
import socketserver
import struct
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

# Any credentials do for moto; set them before boto3 looks.
os.environ.setdefault("AWS_ACCESS_KEY_ID", "testing")
os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "testing")
os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")


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
            key = prefix + p.relative_to(root).as_posix()
            c.upload_file(str(p), bucket, key)
            n += 1
    return n


HOP = {"connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "trailer", "upgrade"}


class FaultProxy:
    """An HTTP proxy on 127.0.0.1 that forwards to `upstream` and faults a share of requests."""

    def __init__(self, upstream, share, delay, max_faults=100_000, reset_writes=0.0, outage_after=None):
        self.upstream = upstream.split("://", 1)[1]
        self.share = share
        self.delay = delay
        self.max_faults = max_faults
        self.reset_writes = reset_writes
        self.outage_after = outage_after
        self.seen = set()
        self.lock = threading.Lock()
        self.counts = {"requests": 0, "status_500": 0, "slow": 0, "truncated": 0,
                       "reset_before": 0, "reset_after": 0, "reset_response": 0, "outage": 0}
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.0"

            def log_message(self, *a):
                pass

            def handle_any(self):
                if self.path == "/__faults":
                    body = json.dumps(proxy.counts).encode()
                    self.send_response(200)
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                    return
                n = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(n) if n else None
                kind = proxy.decide(self.command, self.path, self.headers.get("Range", ""))
                if kind == "outage":
                    msg = b"<?xml version='1.0'?><Error><Code>SlowDown</Code><Message>down</Message></Error>"
                    self.send_response(503)
                    self.send_header("Content-Length", str(len(msg)))
                    self.end_headers()
                    self.wfile.write(msg)
                    return
                if kind == "reset_before":
                    self.reset()
                    return
                if kind == "status_500":
                    msg = b"<?xml version='1.0'?><Error><Code>InternalError</Code><Message>injected</Message></Error>"
                    self.send_response(500)
                    self.send_header("Content-Type", "application/xml")
                    self.send_header("Content-Length", str(len(msg)))
                    self.end_headers()
                    self.wfile.write(msg)
                    return
                if kind == "slow":
                    time.sleep(proxy.delay)
                headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP}
                conn = http.client.HTTPConnection(proxy.upstream, timeout=60)
                try:
                    conn.request(self.command, self.path, body=body, headers=headers)
                    resp = conn.getresponse()
                    data = resp.read()
                finally:
                    conn.close()
                self.send_response(resp.status)
                for k, v in resp.getheaders():
                    if k.lower() not in HOP and k.lower() != "content-length":
                        self.send_header(k, v)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                if kind == "reset_after":
                    self.reset()
                    return
                if kind == "reset_response":
                    # The status line and half the headers, then the connection drops.
                    self.wfile.write(f"HTTP/1.1 {resp.status} OK\r\nContent-Le".encode())
                    self.wfile.flush()
                    self.reset()
                    return
                if kind == "truncated" and len(data) > 1:
                    self.wfile.write(data[: len(data) // 2])
                    self.wfile.flush()
                    self.close_connection = True
                    return
                if self.command != "HEAD":
                    self.wfile.write(data)

            def reset(self):
                # SO_LINGER 0: closing sends RST, as a dropped connection does.
                self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                self.close_connection = True

            do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = handle_any

        class Server(socketserver.ThreadingMixIn, HTTPServer):
            daemon_threads = True

            def handle_error(self, request, client_address):
                # A client that timed out on a delayed response has hung up: expected here.
                if not isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
                    super().handle_error(request, client_address)

        self.server = Server(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def decide(self, method, path, rng):
        key = f"{method} {path} {rng}"
        with self.lock:
            self.counts["requests"] += 1
            if self.outage_after is not None and self.counts["requests"] > self.outage_after:
                self.counts["outage"] += 1
                return "outage"
            if method in ("PUT", "POST") and self.reset_writes > 0:
                # Every attempt is a draw: a retried write may be reset again, as on a flaky link.
                h = int.from_bytes(hashlib.sha256(f"{key} {self.counts['requests']}".encode()).digest()[:8], "big")
                if (h % 10_000) < self.reset_writes * 10_000:
                    kind = ["reset_before", "reset_after", "reset_response"][(h // 10_000) % 3]
                    self.counts[kind] += 1
                    return kind
                return None
            if key in self.seen:
                return None
            self.seen.add(key)
            h = int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big")
            faulted = sum(v for k, v in self.counts.items() if k != "requests")
            if (h % 10_000) >= self.share * 10_000 or faulted >= self.max_faults:
                return None
            kind = ["status_500", "slow", "truncated"][(h // 10_000) % 3]
            if kind == "truncated" and method != "GET":
                kind = "status_500"
            self.counts[kind] += 1
            return kind

    def stop(self):
        self.server.shutdown()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--info", required=True, help="JSON file to write the endpoints to")
    ap.add_argument("--upload", action="append", default=[], metavar="BUCKET=DIR[:PREFIX]")
    ap.add_argument("--bucket", action="append", default=[], help="create an empty bucket")
    ap.add_argument("--faults", type=float, default=0.0, help="share of requests the proxy faults")
    ap.add_argument("--fault-delay", type=float, default=2.0)
    ap.add_argument("--lifetime", type=float, default=900.0, help="stop after this many seconds")
    a = ap.parse_args()
    server, endpoint = start_moto()
    for spec in a.bucket:
        c = s3_client(endpoint)
        c.create_bucket(Bucket=spec)
    for spec in a.upload:
        bucket, rest = spec.split("=", 1)
        directory, _, prefix = rest.partition(":")
        upload_dir(endpoint, bucket, directory, prefix)
    proxy = FaultProxy(endpoint, a.faults, a.fault_delay) if a.faults > 0 else None
    info = {"endpoint": endpoint, "proxy": proxy.url if proxy else None}
    tmp = a.info + ".tmp"
    with open(tmp, "w") as f:
        json.dump(info, f)
    os.replace(tmp, a.info)
    parent = os.getppid()
    deadline = time.monotonic() + a.lifetime
    while time.monotonic() < deadline and os.getppid() == parent:
        time.sleep(0.2)
    if proxy:
        proxy.stop()
    server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
