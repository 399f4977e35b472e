"""An HTTP proxy on 127.0.0.1 that adds a fixed latency to every request and logs it, in front of
a byte-range HTTP server or an S3 server (moto), for scripts/bench_latency.py and for looking at
what a scan asks for:

    python scripts/latency_proxy.py http://127.0.0.1:9000 --delay-ms 50 [--info FILE]

The delay is slept before the request is forwarded, so each request costs at least one delay, as
a round trip to a distant store does, and concurrent requests overlap as they would there.
Connections are kept alive (HTTP/1.1), as clients of S3 keep theirs. GET /__log returns the log
as JSON ({"requests": [[start, end, method, path, range, status, bytes], …]}, times in seconds
since the proxy started; "t0": that start on the system's monotonic clock, which other processes
share, so that a client can place the requests in its own timeline); GET /__reset empties it.
Only 127.0.0.1 is ever contacted.

scripts/bench_latency.py runs crates/vzplan-latency-proxy instead when it is built (--proxy): this
proxy and the servers behind it are Python, and on two cores they bound the benchmark.
"""

from __future__ import annotations

import argparse
import http.client
import json
import socketserver
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, HTTPServer

HOP = {"connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "trailer", "upgrade"}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    proxy: "LatencyProxy"
    upstream_conn: http.client.HTTPConnection | None = None

    def log_message(self, *a):
        pass

    def handle_any(self):
        p = self.proxy
        if self.path in ("/__log", "/__reset"):
            with p.lock:
                body = json.dumps({"requests": p.log, "t0": p.t0}).encode()
                if self.path == "/__reset":
                    p.log = []
            self.answer(200, body)
            return
        start = time.monotonic() - p.t0
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(n) if n else None
        if p.delay > 0:
            time.sleep(p.delay)
        headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP}
        status, resp_headers, data = self.forward(body, headers)
        self.send_response(status)
        # A HEAD's body is empty, but its Content-Length is the object's size: passed on as is.
        length = str(len(data))
        for k, v in resp_headers:
            if k.lower() == "content-length":
                length = v if self.command == "HEAD" else length
            elif k.lower() not in HOP:
                self.send_header(k, v)
        self.send_header("Content-Length", length)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)
        self.wfile.flush()
        end = time.monotonic() - p.t0
        with p.lock:
            p.log.append([round(start, 6), round(end, 6), self.command, self.path,
                          self.headers.get("Range", ""), status, len(data)])

    def forward(self, body, headers):
        # One upstream connection per client connection, kept alive; a fresh one if it dropped.
        for attempt in range(2):
            if self.upstream_conn is None:
                self.upstream_conn = http.client.HTTPConnection(self.proxy.upstream, timeout=60)
            try:
                self.upstream_conn.request(self.command, self.path, body=body, headers=headers)
                resp = self.upstream_conn.getresponse()
                return resp.status, resp.getheaders(), resp.read()
            except (http.client.HTTPException, OSError):
                self.upstream_conn.close()
                self.upstream_conn = None
                if attempt == 1:
                    raise
        raise RuntimeError("unreachable")

    def answer(self, status, body):
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = handle_any


class Server(socketserver.ThreadingMixIn, HTTPServer):
    daemon_threads = True
    request_queue_size = 256

    def handle_error(self, request, client_address):
        if not isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            super().handle_error(request, client_address)


class LatencyProxy:
    """Forwards to `upstream` (`http://host:port`) after `delay_ms`, logging every request."""

    def __init__(self, upstream: str, delay_ms: float):
        self.upstream = upstream.split("://", 1)[1].rstrip("/")
        self.delay = delay_ms / 1000.0
        self.lock = threading.Lock()
        self.log: list = []
        self.t0 = time.monotonic()
        handler = type("BoundHandler", (Handler,), {"proxy": self})
        self.server = Server(("127.0.0.1", 0), handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def take_log(self) -> list:
        with self.lock:
            log, self.log = self.log, []
        return log

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("upstream")
    ap.add_argument("--delay-ms", type=float, default=0.0)
    ap.add_argument("--info", help="JSON file to write {\"url\": …} to once listening")
    a = ap.parse_args()
    proxy = LatencyProxy(a.upstream, a.delay_ms)
    if a.info:
        with open(a.info, "w") as f:
            json.dump({"url": proxy.url}, f)
    print(proxy.url, flush=True)
    threading.Event().wait()


if __name__ == "__main__":
    main()
