"""A synthetic layouts file for scale tests of `vzplan build --from-layouts` (issue 13).

    python3 scripts/gen_layouts.py --files 1000 --chunks 1000 -o /tmp/layouts-1m.jsonl
    vzplan build --from-layouts /tmp/layouts-1m.jsonl --stack-dim member -o /tmp/refs.json

Each line is one netCDF-4 file as `vzplan scan` writes it: a `time` coordinate (inline values)
and a `tas(time, lat, lon)` variable in `--chunks` blocks of one time step, zlib-compressed, at
made-up offsets. Files are stacked with `--stack-dim`, so `--files × --chunks` refs are written
(plus one per time coordinate). The files do not exist: planning and emission never open them.
Standard library only, so it runs without the venv.
"""

import argparse
import base64
import json
import struct
import sys


def table(index, offsets, lengths, form):
    """A chunk table's entries as `vzplan scan` writes them (columns), or as older lines did."""
    if form == "entries":
        return [{"index": k, "data": {"ref": {"offset": o, "length": n}}}
                for k, o, n in zip(index, offsets, lengths)]
    # Every chunk of the grid once, in C order: the index is the grid's shape.
    return {"index": {"grid": [len(index)] + [1] * (len(index[0]) - 1)},
            "offset": offsets, "length": lengths}


def layout(i, chunks, ny, nx, form="columns"):
    time = struct.pack(f"<{chunks}d", *range(chunks))
    f4 = {"kind": "float", "size": 4, "endian": "little"}
    offsets, lengths = [], []
    offset = 8192
    for t in range(chunks):
        length = 600 + (t * 37 + i) % 200
        offsets.append(offset)
        lengths.append(length)
        offset += length
    entries = table([[t, 0, 0] for t in range(chunks)], offsets, lengths, form)
    return {
        "url": f"file:///synthetic/tas_{i:06d}.nc",
        "size": offset,
        "mtime": "2026-12-03T00:00:00Z",
        "format": "hdf5",
        "attrs": {},
        "arrays": [
            {"path": "time", "dims": [{"name": "time", "unlimited": True}], "shape": [chunks],
             "dtype": {"kind": "float", "size": 8, "endian": "little"},
             "attrs": {"units": "days since 2000-01-01", "calendar": "noleap"},
             "codecs": [], "chunks": {"block": [chunks], "edges": "padded", "splittable": False,
                                      "entries": table([[0]], [4096], [8 * chunks], form)},
             "values": base64.b64encode(time).decode()},
            {"path": "tas", "dims": [{"name": "time", "unlimited": True}, {"name": "lat"}, {"name": "lon"}],
             "shape": [chunks, ny, nx], "dtype": f4,
             "fill_value": base64.b64encode(struct.pack("<f", 9.96921e36)).decode(),
             "attrs": {"units": "K"},
             "codecs": [{"name": "numcodecs.shuffle", "configuration": {"elementsize": 4}, "stage": "bytes_to_bytes"},
                        {"name": "numcodecs.zlib", "configuration": {"level": 1}, "stage": "bytes_to_bytes"}],
             "chunks": {"block": [1, ny, nx], "edges": "padded", "splittable": False, "entries": entries}},
        ],
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=1000)
    ap.add_argument("--chunks", type=int, default=1000, help="chunks of `tas` per file")
    ap.add_argument("--ny", type=int, default=10)
    ap.add_argument("--nx", type=int, default=20)
    ap.add_argument("--form", choices=["columns", "entries"], default="columns",
                    help="chunk tables as columns (what `vzplan scan` writes) or as entry objects (older lines)")
    ap.add_argument("-o", "--out", required=True)
    a = ap.parse_args()
    with open(a.out, "w") as f:
        for i in range(a.files):
            f.write(json.dumps(layout(i, a.chunks, a.ny, a.nx, a.form), separators=(",", ":")))
            f.write("\n")


if __name__ == "__main__":
    sys.exit(main())
