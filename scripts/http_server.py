"""A static HTTP server with byte ranges, on 127.0.0.1, for testing `https://`/`http://` inputs:
GET with `Range: bytes=a-b` (206 Partial Content; 416 past the end), HEAD with Content-Length,
ETag and Last-Modified. The standard library's SimpleHTTPRequestHandler ignores Range.

    python scripts/http_server.py DIR [--port 0] [--info FILE]   # FILE gets {"url": …}
"""

import argparse
import email.utils
import hashlib
import json
import os
import re
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

RANGE = re.compile(r"^bytes=(\d*)-(\d*)$")


class RangeHandler(SimpleHTTPRequestHandler):
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


def start(directory, port=0):
    """Serves `directory` in a background thread; returns (server, base URL)."""
    handler = lambda *a, **k: RangeHandler(*a, directory=str(directory), **k)  # noqa: E731
    server = ThreadingHTTPServer(("127.0.0.1", port), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--info")
    a = ap.parse_args()
    server, url = start(a.dir, a.port)
    if a.info:
        Path(a.info).write_text(json.dumps({"url": url, "pid": os.getpid()}))
    print(url, flush=True)
    threading.Event().wait()


if __name__ == "__main__":
    main()
