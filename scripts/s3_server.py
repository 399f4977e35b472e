"""A loopback S3 server as a program (for the Rust end-to-end tests, crates/vzplan-cli/tests/s3.rs):
moto's server on 127.0.0.1 (a free port), buckets filled from local directories, and optionally the
fault-injecting proxy of tests/conformance/faults.py in front of it.

    .venv/bin/python scripts/s3_server.py --info /tmp/s3.json \
        --upload collections=testdata/collections [--faults 0.3 --fault-delay 2] [--lifetime 900]

Writes {"endpoint": "http://127.0.0.1:P", "proxy": "http://127.0.0.1:Q" | null} to --info once the
buckets are filled, then serves until killed, until its parent exits, or --lifetime seconds have
passed (it always stops by itself). Only 127.0.0.1 is ever contacted. --reset-writes SHARE and
--outage-after N give the proxy's connection resets on writes and its outage; --slowdown-first,
--list-delay, --fault-list-page and --reverse-listing its throttling and listing faults (see
faults.py). --filler BUCKET=PREFIX:N[:FILE] adds N objects (one byte each, or copies of FILE).
"""

import argparse
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from conformance.faults import FaultProxy  # noqa: E402
from conformance.servers import s3_client, start_moto, upload_dir  # noqa: E402


def fill(endpoint, bucket, prefix, n, body):
    from concurrent.futures import ThreadPoolExecutor

    c = s3_client(endpoint)
    with ThreadPoolExecutor(8) as ex:
        list(ex.map(lambda i: c.put_object(Bucket=bucket, Key=f"{prefix}{i:05d}", Body=body), range(n)))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--info", required=True, help="JSON file to write the endpoints to")
    ap.add_argument("--upload", action="append", default=[], metavar="BUCKET=DIR[:PREFIX]")
    ap.add_argument("--bucket", action="append", default=[], help="create an empty bucket")
    ap.add_argument("--faults", type=float, default=0.0, help="share of requests the proxy faults")
    ap.add_argument("--fault-delay", type=float, default=2.0)
    ap.add_argument("--reset-writes", type=float, default=0.0, help="share of writes whose connection is reset")
    ap.add_argument("--outage-after", type=int, help="every request after the first N gets 503 SlowDown")
    ap.add_argument("--filler", action="append", default=[], metavar="BUCKET=PREFIX:N[:FILE]",
                    help="N objects PREFIX00000…, one byte each or copies of FILE (pages of a listing)")
    ap.add_argument("--slowdown-first", type=int, default=0, help="the first N requests get 503 SlowDown")
    ap.add_argument("--list-delay", type=float, default=0.0, help="seconds each LIST page after the first waits")
    ap.add_argument("--fault-list-page", type=int, help="the N-th LIST request gets a 500")
    ap.add_argument("--reverse-listing", action="store_true", help="each LIST page in reverse key order")
    ap.add_argument("--lifetime", type=float, default=900.0, help="stop after this many seconds")
    a = ap.parse_args()
    server, endpoint = start_moto()
    for spec in a.bucket:
        s3_client(endpoint).create_bucket(Bucket=spec)
    for spec in a.upload:
        bucket, rest = spec.split("=", 1)
        directory, _, prefix = rest.partition(":")
        upload_dir(endpoint, bucket, directory, prefix)
    for spec in a.filler:
        bucket, rest = spec.split("=", 1)
        prefix, n, *body = rest.split(":")
        fill(endpoint, bucket, prefix, int(n), Path(body[0]).read_bytes() if body else b"x")
    proxy = None
    listing = a.list_delay > 0 or a.fault_list_page is not None or a.reverse_listing or a.slowdown_first
    if a.faults > 0 or a.reset_writes > 0 or a.outage_after is not None or listing:
        proxy = FaultProxy(endpoint, a.faults, a.fault_delay, reset_writes=a.reset_writes,
                           outage_after=a.outage_after, list_delay=a.list_delay,
                           fault_list_page=a.fault_list_page, reverse_listing=a.reverse_listing,
                           slowdown_first=a.slowdown_first)
    tmp = a.info + ".tmp"
    with open(tmp, "w") as f:
        json.dump({"endpoint": endpoint, "proxy": proxy.url if proxy else None}, f)
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
