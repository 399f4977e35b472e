"""Multi-file netCDF-4 collections for the end-to-end tests and the read-back conformance check.

Written by netCDF4-python (and h5py for the unsupported-filter case), versions pinned in
scripts/requirements.txt. Deterministic: running it again rewrites identical data.
The expected outcome of each case (exit code, findings, arrays built) is in
testdata/collections/cases.json, which scripts/readback.py checks.

    .venv/bin/python scripts/fixtures_collections.py
"""

import calendar
import os
import shutil
from pathlib import Path

import h5py
import netCDF4
import numpy as np
import tifffile

ROOT = Path(__file__).resolve().parent.parent / "testdata" / "collections"


def field(n, ny, nx, seed):
    """Smooth, quantised values (they compress well and keep fixtures small)."""
    rng = np.random.default_rng(seed)
    t = np.arange(n)[:, None, None]
    y = np.arange(ny)[None, :, None]
    x = np.arange(nx)[None, None, :]
    v = 280 + 10 * np.sin(2 * np.pi * t / 365.25) + y - 0.5 * x + rng.integers(0, 3, (n, ny, nx))
    return np.round(v, 1).astype("f4")


def write_daily(path, t0, n, ny, nx, chunk_t, *, zlib=True, unlimited=True, lat_chunk=None,
                seed=0, with_max=False, units="days since 2000-01-01", fletcher32=False):
    with netCDF4.Dataset(path, "w", format="NETCDF4") as ds:
        ds.title = "vzplan test collection"
        ds.Conventions = "CF-1.8"
        ds.createDimension("time", None if unlimited else n)
        ds.createDimension("lat", ny)
        ds.createDimension("lon", nx)
        time = ds.createVariable("time", "f8", ("time",))
        time.units = units
        time.calendar = "standard"
        time.standard_name = "time"
        time.axis = "T"
        lat = ds.createVariable("lat", "f4", ("lat",))
        lat.units = "degrees_north"
        lat.standard_name = "latitude"
        lon = ds.createVariable("lon", "f4", ("lon",))
        lon.units = "degrees_east"
        lon.standard_name = "longitude"
        chunks = (chunk_t, lat_chunk or ny, nx)
        tas = ds.createVariable("tas", "f4", ("time", "lat", "lon"), zlib=zlib, shuffle=zlib,
                                complevel=4, chunksizes=chunks, fill_value=np.float32(1e20),
                                fletcher32=fletcher32)
        tas.units = "K"
        tas.standard_name = "air_temperature"
        tas.long_name = "Near-Surface Air Temperature"
        time[:] = np.arange(t0, t0 + n, dtype="f8")
        lat[:] = np.linspace(-45, 45, ny, dtype="f4")
        lon[:] = np.arange(nx, dtype="f4") * 30
        data = field(n, ny, nx, seed)
        # A few missing values written as the fill value.
        data[:: max(n // 5, 1), 0, 0] = np.float32(1e20)
        tas[:] = data
        if with_max:
            tmax = ds.createVariable("tasmax", ">f4", ("time", "lat", "lon"), zlib=zlib,
                                     chunksizes=chunks, endian="big")
            tmax.units = "K"
            tmax[:] = data + 3
            pr = ds.createVariable("pr", "i2", ("time", "lat", "lon"), zlib=zlib, shuffle=zlib,
                                   chunksizes=chunks, fill_value=np.int16(-32767))
            pr.scale_factor = 0.01
            pr.add_offset = 0.0
            pr.units = "mm day-1"
            pr[:] = np.clip(np.abs(data - 280) * 10, 0, 3000).astype("i2")


def year_lengths(y0, y1):
    return [(y, 366 if calendar.isleap(y) else 365) for y in range(y0, y1)]


def days_since_2000(y, m=1):
    import datetime
    return (datetime.date(y, m, 1) - datetime.date(2000, 1, 1)).days


def main():
    if ROOT.exists():
        for child in ROOT.iterdir():
            if child.is_dir():
                shutil.rmtree(child)
    ROOT.mkdir(parents=True, exist_ok=True)

    # Yearly files of 365/366 days, one chunk per year: [366, [365, 3]] along time.
    d = ROOT / "yearly"
    d.mkdir()
    for i, (y, n) in enumerate(year_lengths(2000, 2004)):
        write_daily(d / f"tas_day_{y}.nc", days_since_2000(y), n, 3, 4, n, seed=y, with_max=True)

    # Twenty years of daily files on a tiny grid.
    d = ROOT / "daily20"
    d.mkdir()
    for y, n in year_lengths(2000, 2020):
        write_daily(d / f"tas_day_{y}.nc", days_since_2000(y), n, 2, 3, n, seed=y)

    # Monthly files, one chunk per month, time a fixed (not unlimited) dimension.
    d = ROOT / "monthly"
    d.mkdir()
    for m in range(1, 13):
        n = calendar.monthrange(2004, m)[1]
        write_daily(d / f"tas_day_2004{m:02d}.nc", days_since_2000(2004, m), n, 3, 4, n,
                    unlimited=False, seed=m)

    # Yearly files each counting days from its own 1 January: rebased to the first file's units.
    d = ROOT / "rebased"
    d.mkdir()
    for y, n in year_lengths(2003, 2006):
        write_daily(d / f"tas_{y}.nc", 0, n, 2, 2, n, seed=y, units=f"days since {y}-01-01")

    # 100 days per file in chunks of 30: the padded last chunk (10 of 30) sits in the middle.
    d = ROOT / "padded"
    d.mkdir()
    for i in range(3):
        write_daily(d / f"tas_part_{i + 1}.nc", 100 * i, 100, 3, 4, 30, seed=i)

    # The same with Fletcher-32 checksums (shuffle + deflate + fletcher32), for --patch.
    d = ROOT / "padded_fletcher"
    d.mkdir()
    for i in range(2):
        write_daily(d / f"tas_part_{i + 1}.nc", 50 * i, 50, 2, 3, 20, seed=i, fletcher32=True)

    # The same, uncompressed: the padded chunks are rescued as byte prefixes.
    d = ROOT / "padded_raw"
    d.mkdir()
    for i in range(3):
        write_daily(d / f"tas_part_{i + 1}.nc", 100 * i, 100, 3, 4, 30, zlib=False, seed=i)

    # Files whose chunking across lat differs: tas cannot be combined; names the file.
    d = ROOT / "mismatch"
    d.mkdir()
    write_daily(d / "tas_a.nc", 0, 10, 4, 4, 10, seed=1)
    write_daily(d / "tas_b.nc", 10, 10, 4, 4, 10, lat_chunk=2, seed=2)

    # Bad inputs beside a good file: each is named; the good file is still built.
    d = ROOT / "bad"
    d.mkdir()
    write_daily(d / "tas_2000.nc", 0, 366, 3, 4, 366, seed=7)
    (d / "not_netcdf.nc").write_text("this is not a netCDF file\n")
    write_daily(d / "tmp_full.nc", 366, 365, 3, 4, 365, seed=8)
    full = (d / "tmp_full.nc").read_bytes()
    (d / "truncated.nc").write_bytes(full[: len(full) // 3])
    os.remove(d / "tmp_full.nc")
    # An HDF5 file (netCDF-4 layout via h5py dimension scales) whose tas uses scaleoffset.
    with h5py.File(d / "tas_2001_scaleoffset.nc", "w", libver="earliest") as f:
        n = 365
        t = f.create_dataset("time", data=np.arange(366, 366 + n, dtype="f8"), maxshape=(None,),
                             chunks=(512,))
        t.attrs["units"] = "days since 2000-01-01"
        t.attrs["calendar"] = "standard"
        t.attrs["standard_name"] = "time"
        t.attrs["axis"] = "T"
        t.make_scale("time")
        la = f.create_dataset("lat", data=np.linspace(-45, 45, 3, dtype="f4"))
        la.make_scale("lat")
        lo = f.create_dataset("lon", data=np.arange(4, dtype="f4") * 30)
        lo.make_scale("lon")
        v = f.create_dataset("tas", data=field(n, 3, 4, 9), chunks=(n, 3, 4), maxshape=(None, 3, 4),
                             scaleoffset=1)
        for i, s in enumerate((t, la, lo)):
            v.dims[i].attach_scale(s)

    # netCDF classic (CDF-5) files whose only record variable has contiguous records: merged into
    # chunks of --chunk-bytes; 5, 7 and 3 records per file.
    d = ROOT / "nc3_records"
    d.mkdir()
    for i, n in enumerate((5, 7, 3)):
        with netCDF4.Dataset(d / f"obs_{i}.nc", "w", format="NETCDF3_64BIT_DATA") as ds:
            ds.createDimension("record", None)
            ds.createDimension("y", 2)
            ds.createDimension("x", 3)
            y = ds.createVariable("y", "f8", ("y",))
            y[:] = [10.0, 20.0]
            x = ds.createVariable("x", "i4", ("x",))
            x[:] = [1, 2, 3]
            v = ds.createVariable("obs", "f4", ("record", "y", "x"), fill_value=np.float32(-999))
            v.units = "m"
            v[:] = field(n, 2, 3, 100 + i)

    # GeoTIFF scenes of one size, stripped with a short last strip (100 rows, 30 per strip),
    # deflate: stacked along a new 'time' axis with --stack-dim.
    d = ROOT / "tiff_stack"
    d.mkdir()
    for i in range(4):
        img = (np.arange(100 * 24, dtype="u2").reshape(100, 24) * (i + 1)) % 4096
        geo = [
            (33550, "d", 3, (30.0, 30.0, 0.0), True),
            (33922, "d", 6, (0.0, 0.0, 0.0, 500000.0, 4600000.0, 0.0), True),
            (34735, "H", 16, (1, 1, 0, 3, 1024, 0, 1, 1, 1025, 0, 1, 1, 3072, 0, 1, 32633), True),
        ]
        tifffile.imwrite(d / f"scene_{i}.tif", img, rowsperstrip=30, compression="zlib",
                         photometric="minisblack", extratags=geo)


if __name__ == "__main__":
    main()
