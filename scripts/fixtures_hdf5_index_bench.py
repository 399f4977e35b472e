#!/usr/bin/env python
"""Writes the fixtures of vzplan-hdf5's index-walk micro-benchmark (`cargo bench -p vzplan-hdf5
--bench index`) into testdata/hdf5/bench/: one file per chunk index kind, each a dataset "x" of
4,096 one-element chunks (int8, unfiltered), so that walking the index is nearly all the work of
reading the file's layout.

- `bt1.h5`: libver earliest, fixed 64 × 64 → a version 1 B-tree (K = 32 per node);
- `fa.h5`: libver v110, fixed dims → a fixed array (paged: 1,024 entries a page);
- `ea.h5`: libver v110, one unlimited dim → an extensible array;
- `bt2.h5`: libver v110, two unlimited dims → a version 2 B-tree.

Deterministic (fixed data, track_times=False). Run with the project venv:

    .venv/bin/python scripts/fixtures_hdf5_index_bench.py
"""

import os

import h5py
import numpy as np

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
OUT = os.path.join(ROOT, "testdata", "hdf5", "bench")
CASES = {
    "bt1": (("earliest", "latest"), (64, 64)),
    "fa": (("v110", "v110"), (64, 64)),
    "ea": (("v110", "v110"), (None, 64)),
    "bt2": (("v110", "v110"), (None, None)),
}


def main():
    os.makedirs(OUT, exist_ok=True)
    data = (np.arange(64 * 64) % 127).astype("i1").reshape(64, 64)
    for name, (libver, maxshape) in CASES.items():
        path = os.path.join(OUT, f"{name}.h5")
        with h5py.File(path, "w", libver=libver, track_order=False) as f:
            f.create_dataset("x", data=data, chunks=(1, 1), maxshape=maxshape,
                             track_times=False)
        with h5py.File(path, "r") as f:
            n = sum(1 for _ in range(f["x"].id.get_num_chunks()))
        print(f"{path}: {n} chunks, {os.path.getsize(path)} bytes")


if __name__ == "__main__":
    main()
