"""A static HTTP server with byte ranges on 127.0.0.1, as a program (for the Rust tests,
crates/vzplan-hdf5/tests/requests_http.rs): GET with `Range: bytes=a-b` (206; 416 past the end),
HEAD with Content-Length, ETag and Last-Modified (tests/conformance/servers.py).

    python scripts/http_server.py DIR [--port 0] [--info FILE]   # FILE gets {"url": …, "pid": …}
"""

import argparse
import json
import os
import sys
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from conformance.servers import start_http  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--info")
    a = ap.parse_args()
    _, url = start_http(a.dir, a.port)
    if a.info:
        Path(a.info).write_text(json.dumps({"url": url, "pid": os.getpid()}))
    print(url, flush=True)
    threading.Event().wait()


if __name__ == "__main__":
    main()
