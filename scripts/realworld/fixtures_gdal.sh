#!/usr/bin/env bash
# Rewrites the small GDAL-written fixtures of testdata/tiff/gdal/ (see its README) from the
# sources make.sh writes. Run scripts/realworld/make.sh first.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
s=$here/out/src
d=$here/../../testdata/tiff/gdal
gdal_translate -q -srcwin 0 0 30 20 -co COMPRESS=JPEG -co BLOCKYSIZE=8 "$s/src_gray.tif" "$d/jpeg_gray_strips.tif"
gdal_translate -q -srcwin 0 0 30 20 -co COMPRESS=JPEG -co PHOTOMETRIC=YCBCR -co TILED=YES \
  -co BLOCKXSIZE=16 -co BLOCKYSIZE=16 "$s/src_rgb.tif" "$d/jpeg_ycbcr_tiled.tif"
gdal_translate -q -srcwin 0 0 12 10 -co COMPRESS=DEFLATE -co BLOCKYSIZE=4 "$s/src_c64.tif" "$d/cfloat32_deflate.tif"
gdal_translate -q -srcwin 0 0 30 20 -co COMPRESS=ZSTD -co BLOCKYSIZE=8 "$s/src_u16.tif" "$d/zstd_strips_short.tif"
gdal_translate -q -srcwin 0 0 12 10 -ot CInt16 -scale 0 1 0 1000 "$s/src_c64.tif" "$d/cint16.tif"
/usr/bin/python3 "$here/gdal_unwritten_bands.py" "$d/band_unwritten_deflate.tif" 30 20 8
