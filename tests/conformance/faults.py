"""A fault-injecting HTTP proxy on 127.0.0.1 in front of an S3 server (moto).

A request is faulted only the first time it is seen (same method, path, query and Range), and only
when a hash of it falls in the `share`, so every retry succeeds and the outcome is deterministic.
Kinds rotate by hash: HTTP 500 (S3 InternalError), a response delayed by `delay` seconds (beyond
the client's timeout), and a truncated body (full Content-Length, half the bytes, connection
closed). GET /__faults returns the counts as JSON. With `reset_writes`, a share of PUT/POST
requests has its connection reset (RST): before the request reaches the server, after the server
took it (the answer is lost), or in the middle of the response's headers. With `outage_after` N,
every request after the first N gets 503 SlowDown: the store is down; with `slowdown_first` N,
the first N object GETs get it (a store that asks a client starting too fast to slow down).

Listings (ListObjectsV2): with `list_delay`, every page after the first is answered that many
seconds late (a listing that is slower than the scan of what it has found); with
`fault_list_page` N, the N-th LIST request gets a 500 (once); with `reverse_listing`, each page
lists its objects in reverse key order (as a store that does not list by key would). GET /__log
returns every request as [start, end, method, path] (seconds on the proxy's clock)."""

from __future__ import annotations

import hashlib
import re
import http.client
import json
import socket
import socketserver
import struct
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, HTTPServer

HOP = {"connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "trailer", "upgrade"}
RESETS = ("reset_before", "reset_after", "reset_response")


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"
    proxy: "FaultProxy"

    def log_message(self, *a):
        pass

    def handle_any(self):
        if self.path == "/__faults":
            self.answer(200, json.dumps(self.proxy.counts).encode())
            return
        if self.path == "/__log":
            self.answer(200, json.dumps(self.proxy.log).encode())
            return
        start = time.monotonic()
        try:
            self.handle_logged()
        finally:
            with self.proxy.lock:
                self.proxy.log.append([start, time.monotonic(), self.command, self.path])

    def handle_logged(self):
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(n) if n else None
        kind = self.proxy.decide(self.command, self.path, self.headers.get("Range", ""))
        if "list-type=2" in self.path:
            kind = self.proxy.list_page(self.path) or kind
        if kind == "outage":
            self.answer(503, b"<?xml version='1.0'?><Error><Code>SlowDown</Code><Message>down</Message></Error>")
            return
        if kind == "reset_before":
            self.reset()
            return
        if kind == "status_500":
            msg = b"<?xml version='1.0'?><Error><Code>InternalError</Code><Message>injected</Message></Error>"
            self.answer(500, msg, "application/xml")
            return
        if kind == "slow":
            time.sleep(self.proxy.delay)
        if kind == "slow_page":
            time.sleep(self.proxy.list_delay)
        self.forward(kind, body)

    def answer(self, status, body, content_type=None):
        self.send_response(status)
        if content_type:
            self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def forward(self, kind, body):
        headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP}
        conn = http.client.HTTPConnection(self.proxy.upstream, timeout=60)
        try:
            conn.request(self.command, self.path, body=body, headers=headers)
            resp = conn.getresponse()
            data = resp.read()
        finally:
            conn.close()
        if self.proxy.reverse_listing and "list-type=2" in self.path:
            data = reverse_contents(data)
        self.send_response(resp.status)
        for k, v in resp.getheaders():
            if k.lower() not in HOP and k.lower() != "content-length":
                self.send_header(k, v)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if kind == "reset_after":
            self.reset()
        elif kind == "reset_response":
            # The status line and half the headers, then the connection drops.
            self.wfile.write(f"HTTP/1.1 {resp.status} OK\r\nContent-Le".encode())
            self.wfile.flush()
            self.reset()
        elif kind == "truncated" and len(data) > 1:
            self.wfile.write(data[: len(data) // 2])
            self.wfile.flush()
            self.close_connection = True
        elif self.command != "HEAD":
            self.wfile.write(data)

    def reset(self):
        # SO_LINGER 0: closing sends RST, as a dropped connection does.
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.close_connection = True

    do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = handle_any


CONTENTS = re.compile(rb"<Contents>.*?</Contents>", re.S)


def reverse_contents(xml: bytes) -> bytes:
    """A ListObjectsV2 answer with its objects in reverse order."""
    items = CONTENTS.findall(xml)
    it = iter(reversed(items))
    return CONTENTS.sub(lambda _: next(it), xml)


class Server(socketserver.ThreadingMixIn, HTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        # A client that timed out on a delayed response has hung up: expected here.
        if not isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            super().handle_error(request, client_address)


class FaultProxy:
    """An HTTP proxy on 127.0.0.1 that forwards to `upstream` and faults a share of requests."""

    def __init__(self, upstream, share, delay, max_faults=100_000, reset_writes=0.0, outage_after=None,
                 list_delay=0.0, fault_list_page=None, reverse_listing=False, slowdown_first=0):
        self.slowdown_first = slowdown_first
        self.object_gets = 0
        self.upstream = upstream.split("://", 1)[1]
        self.list_delay = list_delay
        self.fault_list_page = fault_list_page
        self.reverse_listing = reverse_listing
        self.lists = 0
        self.log = []
        self.share = share
        self.delay = delay
        self.max_faults = max_faults
        self.reset_writes = reset_writes
        self.outage_after = outage_after
        self.seen = set()
        self.lock = threading.Lock()
        self.counts = {"requests": 0, "status_500": 0, "slow": 0, "truncated": 0,
                       "reset_before": 0, "reset_after": 0, "reset_response": 0, "outage": 0,
                       "list_pages": 0, "list_500": 0, "slowdown": 0}
        handler = type("BoundHandler", (Handler,), {"proxy": self})
        self.server = Server(("127.0.0.1", 0), handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def decide(self, method, path, rng):
        key = f"{method} {path} {rng}"
        with self.lock:
            self.counts["requests"] += 1
            if method == "GET" and "list-type=" not in path and self.slowdown_first:
                self.object_gets += 1
                if self.object_gets <= self.slowdown_first:
                    self.counts["slowdown"] += 1
                    return "outage"
            if self.outage_after is not None and self.counts["requests"] > self.outage_after:
                self.counts["outage"] += 1
                return "outage"
            if method in ("PUT", "POST") and self.reset_writes > 0:
                return self._reset_draw(key)
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

    def list_page(self, path):
        """What happens to a LIST request: the N-th faulted, later pages slowed."""
        with self.lock:
            self.lists += 1
            self.counts["list_pages"] += 1
            if self.lists == self.fault_list_page:
                self.counts["list_500"] += 1
                return "status_500"
            later = "continuation-token=" in path or "start-after=" in path
            return "slow_page" if later and self.list_delay > 0 else None

    def _reset_draw(self, key):
        # Every attempt is a draw: a retried write may be reset again, as on a flaky link.
        h = int.from_bytes(hashlib.sha256(f"{key} {self.counts['requests']}".encode()).digest()[:8], "big")
        if (h % 10_000) < self.reset_writes * 10_000:
            kind = RESETS[(h // 10_000) % 3]
            self.counts[kind] += 1
            return kind
        return None

    def stop(self):
        self.server.shutdown()
        self.server.server_close()
