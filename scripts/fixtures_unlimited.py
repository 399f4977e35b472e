"""A netCDF-4 file whose variables have fewer records than their unlimited dimension.

Written by netCDF4-python (pinned in scripts/requirements.txt). netCDF semantics: every variable
along an unlimited dimension has the dimension's current length (the largest extent along it), and
records a variable never wrote read as its fill value; HDF5 keeps each dataset's own extent.

- `time`: 5 records (the dimension's length);
- `tas`: written for 3 of them, chunks of 1 along time: grown to 5, records 3-4 read as fill;
- `pr`: written for 4, chunks of 2: grown to 5, the last chunk (record 4) reads as fill;
- `straddle_fill`: written for 3, chunks of 2: its second chunk holds record 2 and, where record 3
  would be, what HDF5 wrote on allocating the chunk: the fill value (netCDF-C's default fill mode,
  HDF5 fill time "if set"), so it is grown too;
- `straddle`: the same with `fill_value=False` (NC_NOFILL, HDF5 fill time "never"): the padding is
  not known to be the fill value, so vzplan leaves it out with a problem instead of guessing.

    .venv/bin/python scripts/fixtures_unlimited.py
"""

from pathlib import Path

import netCDF4
import numpy as np

OUT = Path(__file__).resolve().parent.parent / "testdata" / "unlimited"


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / "short_records.nc"
    with netCDF4.Dataset(path, "w", format="NETCDF4") as ds:
        ds.title = "variables with fewer records than the unlimited dimension"
        ds.createDimension("time", None)
        ds.createDimension("lat", 2)
        ds.createDimension("lon", 3)
        t = ds.createVariable("time", "f8", ("time",))
        t.units = "days since 2000-01-01"
        t.calendar = "standard"
        lat = ds.createVariable("lat", "f4", ("lat",))
        lat.units = "degrees_north"
        lat[:] = [10.0, 20.0]
        lon = ds.createVariable("lon", "f4", ("lon",))
        lon.units = "degrees_east"
        lon[:] = [0.0, 1.0, 2.0]
        v = np.arange(5 * 2 * 3, dtype="f4").reshape(5, 2, 3) + 270
        tas = ds.createVariable("tas", "f4", ("time", "lat", "lon"), chunksizes=(1, 2, 3),
                                zlib=True, fill_value=np.float32(1e20))
        tas.units = "K"
        pr = ds.createVariable("pr", "f4", ("time", "lat", "lon"), chunksizes=(2, 2, 3),
                               fill_value=np.float32(-1))
        pr.units = "mm"
        sf = ds.createVariable("straddle_fill", "i2", ("time", "lat", "lon"), chunksizes=(2, 2, 3))
        st = ds.createVariable("straddle", "i2", ("time", "lat", "lon"), chunksizes=(2, 2, 3),
                               fill_value=False)
        tas[0:3] = v[0:3]
        pr[0:4] = v[0:4] / 100
        sf[0:3] = np.arange(3 * 2 * 3, dtype="i2").reshape(3, 2, 3)
        st[0:3] = np.arange(3 * 2 * 3, dtype="i2").reshape(3, 2, 3)
        t[0:5] = np.arange(5, dtype="f8")


if __name__ == "__main__":
    main()
