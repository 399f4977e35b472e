"""A band-interleaved, DEFLATE-striped GeoTIFF written through GDAL's own Python API (Debian's
python3-gdal) with only its first band written: GDAL fills the never-written bands' strips with a
compressed full-size empty block, so their last strips are padded while band 1's is short.

    /usr/bin/python3 gdal_unwritten_bands.py OUT.tif WIDTH HEIGHT ROWS_PER_STRIP
"""

import sys

import numpy as np
from osgeo import gdal

gdal.UseExceptions()
out, w, h, rps = sys.argv[1], *map(int, sys.argv[2:5])
ds = gdal.GetDriverByName("GTiff").Create(
    out, w, h, 3, gdal.GDT_UInt16, ["INTERLEAVE=BAND", "COMPRESS=DEFLATE", f"BLOCKYSIZE={rps}"])
ds.GetRasterBand(1).WriteArray((np.arange(w * h).reshape(h, w) % 600).astype("u2"))
ds = None
