#!/usr/bin/env python
"""Files whose metadata is spread between their data, for counting requests on object storage
(crates/vzplan-hdf5/tests/round_trips.rs and requests_http.rs).

- `vars.nc` (committed, testdata/hdf5/requests/): netCDF-4, 10 variables, each defined after the
  previous one's data was written, 4 chunks each: every variable's attributes land in a
  continuation block and its chunk B-tree next to its data, so a reader that walks the variables
  one by one makes two round trips per variable.
- With `--big DIR`: the same layout at object-storage scale into DIR (not committed):
  `vars.nc` with 260 KB chunks (10 MB), and `ea.h5`, an extensible array of 4,096 1-KiB chunks
  (4 MB, h5py libver v110, one unlimited dimension), whose data blocks lie between the chunks.

Deterministic data. Run with the project venv:

    .venv/bin/python scripts/fixtures_hdf5_requests.py [--big DIR]
"""

import argparse
import os

import h5py
import netCDF4
import numpy as np

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
OUT = os.path.join(ROOT, "testdata", "hdf5", "requests")


def vars_nc(path, ny, nx):
    rng = np.random.default_rng(0)
    with netCDF4.Dataset(path, "w", format="NETCDF4") as ds:
        ds.createDimension("time", None)
        ds.createDimension("lat", ny)
        ds.createDimension("lon", nx)
        t = ds.createVariable("time", "f8", ("time",))
        t[:] = np.arange(4)
        for n in range(10):
            v = ds.createVariable(f"v{n}", "f4", ("time", "lat", "lon"), chunksizes=(1, ny, nx))
            v.units = "K"
            v[:] = rng.standard_normal((4, ny, nx)).astype("f4")


def ea_h5(path, k):
    data = np.random.default_rng(0).standard_normal((64 * k, 64 * k)).astype("f4")
    with h5py.File(path, "w", libver=("v110", "v110")) as f:
        f.create_dataset("x", data=data, chunks=(k, k), maxshape=(None, 64 * k),
                         track_times=False)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--big", help="write the object-storage-sized files into this directory")
    a = ap.parse_args()
    if a.big:
        os.makedirs(a.big, exist_ok=True)
        files = [(vars_nc, "vars.nc", (180, 360)), (ea_h5, "ea.h5", (16,))]
        out = a.big
    else:
        os.makedirs(OUT, exist_ok=True)
        files = [(vars_nc, "vars.nc", (16, 16))]
        out = OUT
    for make, name, args in files:
        path = os.path.join(out, name)
        make(path, *args)
        print(f"{path}: {os.path.getsize(path)} bytes")


if __name__ == "__main__":
    main()
