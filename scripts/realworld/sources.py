"""Small source files for scripts/realworld/make.sh, written by tifffile, netCDF4-python and h5py.

The real-world writers (gdal_translate, nccopy, h5repack) then rewrite these into the variants the
sweep checks. Sizes are odd on purpose so that strips, tiles and chunks end short or padded.
"""

import sys
from pathlib import Path

import h5py
import netCDF4
import numpy as np
import tifffile

out = Path(sys.argv[1])
out.mkdir(parents=True, exist_ok=True)
rng = np.random.default_rng(11)
H, W = 75, 100

# Smooth fields compress like real rasters (and keep JPEG's error small and deterministic).
yy, xx = np.mgrid[0:H, 0:W]
smooth = (np.sin(yy / 9.0) + np.cos(xx / 13.0) + 2.0) / 4.0

tifffile.imwrite(out / "src_u16.tif", (smooth * 60000).astype(np.uint16))
bands = np.stack([(smooth * 250).astype(np.uint8), (smooth[::-1] * 250).astype(np.uint8),
                  (smooth[:, ::-1] * 250).astype(np.uint8)], axis=-1)
tifffile.imwrite(out / "src_rgb.tif", bands, photometric="rgb")
tifffile.imwrite(out / "src_gray.tif", bands[..., 0])
tifffile.imwrite(out / "src_u16x3.tif", (np.moveaxis(bands, -1, 0).astype(np.uint16) * 200),
                 photometric="minisblack", planarconfig="separate")
f32 = (smooth * 300 - 50).astype(np.float32)
f32[3, 4] = np.nan
tifffile.imwrite(out / "src_f32.tif", f32)
tifffile.imwrite(out / "src_c64.tif", (smooth + 1j * smooth[::-1]).astype(np.complex64))

# Larger sources for COGs (GDAL's COG driver wants blocks of at least 128).
by, bx = np.mgrid[0:300, 0:260]
big = (np.sin(by / 23.0) + np.cos(bx / 31.0) + 2.0) / 4.0
tifffile.imwrite(out / "src_u16_big.tif", (big * 60000).astype(np.uint16))
tifffile.imwrite(out / "src_f32_big.tif", (big * 300 - 50).astype(np.float32))
tifffile.imwrite(out / "src_rgb_big.tif", np.stack([(big * 250).astype(np.uint8)] * 3, axis=-1)
                 + np.array([0, 2, 4], dtype=np.uint8), photometric="rgb")

# netCDF-4 source: a record variable, a fixed 3-D variable, coordinates, a packed variable.
with netCDF4.Dataset(out / "src.nc", "w", format="NETCDF4") as ds:
    ds.createDimension("time", None)
    ds.createDimension("lat", 13)
    ds.createDimension("lon", 17)
    t = ds.createVariable("time", "f8", ("time",))
    t.units = "days since 2000-01-01"
    t[:] = np.arange(10)
    ds.createVariable("lat", "f4", ("lat",))[:] = np.linspace(-60, 60, 13)
    ds.createVariable("lon", "f4", ("lon",))[:] = np.linspace(0, 320, 17)
    v = ds.createVariable("tas", "f4", ("time", "lat", "lon"), fill_value=np.float32(1e20))
    v.units = "K"
    v[:] = (280 + 10 * rng.standard_normal((10, 13, 17))).astype(np.float32)
    p = ds.createVariable("pr", "i2", ("time", "lat", "lon"))
    p[:] = rng.integers(-3000, 3000, (10, 13, 17), dtype=np.int16)
    ds.createVariable("orog", "f8", ("lat", "lon"))[:] = rng.standard_normal((13, 17))

# HDF5 source for h5repack: ints for NBIT/SOFF, floats, a 3-D chunked dataset.
with h5py.File(out / "src.h5", "w") as f:
    f.create_dataset("i32", data=rng.integers(0, 1000, (37, 23), dtype=np.int32), chunks=(10, 23))
    f.create_dataset("f64", data=rng.standard_normal((37, 23)), chunks=(16, 16))
    f.create_dataset("u8_3d", data=rng.integers(0, 255, (5, 19, 11), dtype=np.uint8),
                     chunks=(2, 19, 11))
    f.create_dataset("contig", data=np.arange(120, dtype=np.float32).reshape(10, 12))
