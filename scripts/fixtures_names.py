#!/usr/bin/env python
"""Writes files whose names carry terminal control characters into testdata/names/, for the test
that nothing a file names reaches a terminal raw (crates/vzplan-cli/tests/cli_trust.rs).

- control_names.h5 (h5py): a group, a dataset and a dimension scale whose names hold ESC
  sequences (OSC retitle, CSI clear screen), BEL, CR, a newline, DEL and a C1 CSI (U+009B).
- control_names.nc (netCDF4-python): netCDF-C refuses C0 and DEL in names but takes C1, so a
  dimension and a variable named with U+009B and U+0085 (NEL).

names.json lists every name written, exactly, as the oracle. Run with the project venv:

    .venv/bin/python scripts/fixtures_names.py
"""

import json
import os

import h5py
import netCDF4
import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "testdata", "names")

H5_GROUP = "g\x1b[2J"
H5_DATA = "t\x1b]0;pwned\x07as"
H5_SCALE = "ti\rme"
H5_OTHER = "a\nb\x7fc\u009b31m"
NC_DIM = "ti\u009bme"
NC_VAR = "t\u009b2Jas\u0085"


def write_h5(path):
    with h5py.File(path, "w", track_order=True) as f:
        g = f.create_group(H5_GROUP, track_order=True)
        scale = g.create_dataset(H5_SCALE, data=np.arange(4.0), track_times=False)
        scale.make_scale(H5_SCALE)
        d = g.create_dataset(H5_DATA, data=np.arange(8, dtype="f4").reshape(4, 2),
                             chunks=(2, 2), track_times=False)
        d.dims[0].attach_scale(scale)
        d.attrs["units"] = "K\x1b[31m"
        f.create_dataset(H5_OTHER, data=np.arange(3, dtype="i2"), track_times=False)


def write_nc(path):
    with netCDF4.Dataset(path, "w", format="NETCDF4") as d:
        d.createDimension(NC_DIM, 4)
        t = d.createVariable(NC_DIM, "f8", (NC_DIM,))
        t[:] = np.arange(4.0)
        v = d.createVariable(NC_VAR, "f4", (NC_DIM,), chunksizes=(2,))
        v[:] = np.arange(4.0)


def main():
    os.makedirs(OUT, exist_ok=True)
    write_h5(os.path.join(OUT, "control_names.h5"))
    write_nc(os.path.join(OUT, "control_names.nc"))
    oracle = {
        "control_names.h5": [H5_GROUP, H5_DATA, H5_SCALE, H5_OTHER],
        "control_names.nc": [NC_DIM, NC_VAR],
    }
    with open(os.path.join(OUT, "names.json"), "w") as f:
        json.dump(oracle, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
