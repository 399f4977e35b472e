#!/usr/bin/env python
"""Writes testdata/hdf5/bounds/huge_grid.h5: a *valid* 1.4 KB HDF5 file with one dataset of shape
(2**40,) in chunks of 1 and nothing written (issue 8: the planner allocated one edge length per
chunk, 8 TiB, and aborted). vzplan must plan it as one run of 2**40 edges of 1, instantly.

Deterministic (track_times=False). Run with the project venv:

    .venv/bin/python scripts/fixtures_bounds.py
"""

import os

import h5py
import numpy as np

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
OUT = os.path.join(ROOT, "testdata", "hdf5", "bounds")


def main():
    os.makedirs(OUT, exist_ok=True)
    path = os.path.join(OUT, "huge_grid.h5")
    with h5py.File(path, "w") as f:
        f.create_dataset("x", shape=(2**40,), chunks=(1,), dtype="<f4",
                         fillvalue=np.float32(-1.0), track_times=False)
    with h5py.File(path, "r") as f:
        d = f["x"]
        assert d.shape == (2**40,) and d.chunks == (1,) and d.id.get_num_chunks() == 0
    print(path, os.path.getsize(path), "bytes")


if __name__ == "__main__":
    main()
