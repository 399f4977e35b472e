#!/usr/bin/env bash
# Writes the real-world sweep's files with the real writers: GDAL (gdal_translate), netCDF-C
# (nccopy) and HDF5 (h5repack), from small sources written by tifffile / netCDF4-python / h5py
# (sources.py). Output: scripts/realworld/out/ (ignored by git). Fetches nothing but Debian's
# packages, which it installs with apt-get when the tools are missing.
# Usage: make.sh [PYTHON]   (PYTHON: the venv python with numpy/tifffile/netCDF4/h5py)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
py=${1:-$root/.venv/bin/python}
out=$here/out

bash "$root/scripts/setup-tools.sh"

rm -rf "$out"
mkdir -p "$out/src" "$out/tiff" "$out/nc" "$out/h5"
"$py" "$here/sources.py" "$out/src"
s=$out/src
t=$out/tiff

gt() { # gdal_translate quietly: gt SRC DST options...
  local src=$1 dst=$2; shift 2
  gdal_translate -q "$@" "$src" "$t/$dst"
}

# GeoTIFF-ish variants of a 75 x 100 uint16 band (GDAL adds no georeferencing to a plain TIFF).
gt "$s/src_u16.tif" u16_default.tif
gt "$s/src_u16.tif" u16_strips_deflate.tif -co COMPRESS=DEFLATE -co BLOCKYSIZE=16
gt "$s/src_u16.tif" u16_strips_lzw_pred2.tif -co COMPRESS=LZW -co PREDICTOR=2 -co BLOCKYSIZE=16
gt "$s/src_u16.tif" u16_strips_zstd.tif -co COMPRESS=ZSTD -co BLOCKYSIZE=16
gt "$s/src_u16.tif" u16_tiled_zstd.tif -co TILED=YES -co BLOCKXSIZE=32 -co BLOCKYSIZE=32 -co COMPRESS=ZSTD
gt "$s/src_u16.tif" u16_tiled_lzw.tif -co TILED=YES -co BLOCKXSIZE=32 -co BLOCKYSIZE=32 -co COMPRESS=LZW
gt "$s/src_u16.tif" u16_tiled_deflate_pred2.tif -co TILED=YES -co BLOCKXSIZE=32 -co BLOCKYSIZE=16 -co COMPRESS=DEFLATE -co PREDICTOR=2
gt "$s/src_u16.tif" u16_tiled_packbits.tif -co TILED=YES -co BLOCKXSIZE=32 -co BLOCKYSIZE=32 -co COMPRESS=PACKBITS
gt "$s/src_u16.tif" u16_bigtiff_tiled_deflate.tif -co BIGTIFF=YES -co TILED=YES -co BLOCKXSIZE=32 -co BLOCKYSIZE=32 -co COMPRESS=DEFLATE
gt "$s/src_u16_big.tif" u16_cog_deflate.tif -of COG -co BLOCKSIZE=128 -co COMPRESS=DEFLATE -co OVERVIEWS=NONE
gt "$s/src_u16_big.tif" u16_cog_lzw_overviews.tif -of COG -co BLOCKSIZE=128 -co COMPRESS=LZW -co OVERVIEW_RESAMPLING=NEAREST
gt "$s/src_u16.tif" u16_bigendian.tif -co ENDIANNESS=BIG -co BLOCKYSIZE=16
# Three bands: pixel and band interleave, strips and tiles.
gt "$s/src_u16x3.tif" u16x3_pixel_deflate.tif -co INTERLEAVE=PIXEL -co COMPRESS=DEFLATE -co BLOCKYSIZE=16
gt "$s/src_u16x3.tif" u16x3_band_deflate.tif -co INTERLEAVE=BAND -co COMPRESS=DEFLATE -co BLOCKYSIZE=16
gt "$s/src_u16x3.tif" u16x3_band_lzw.tif -co INTERLEAVE=BAND -co COMPRESS=LZW -co BLOCKYSIZE=16
gt "$s/src_u16x3.tif" u16x3_band_raw.tif -co INTERLEAVE=BAND -co BLOCKYSIZE=16
gt "$s/src_u16x3.tif" u16x3_band_tiled_zstd.tif -co INTERLEAVE=BAND -co TILED=YES -co BLOCKXSIZE=32 -co BLOCKYSIZE=32 -co COMPRESS=ZSTD
gt "$s/src_u16x3.tif" u16x3_pixel_lzw_pred2.tif -co INTERLEAVE=PIXEL -co COMPRESS=LZW -co PREDICTOR=2 -co BLOCKYSIZE=16
# Band interleave, bands 2 and 3 never written (GDAL pads their last strips with empty blocks).
/usr/bin/python3 "$here/gdal_unwritten_bands.py" "$t/u16x3_band_deflate_unwritten.tif" 100 75 16
# Floating point: predictor 3 (and 2, which only GDAL writes for floats).
gt "$s/src_f32.tif" f32_deflate_pred3.tif -co COMPRESS=DEFLATE -co PREDICTOR=3 -co BLOCKYSIZE=16
gt "$s/src_f32.tif" f32_tiled_lzw_pred3.tif -co TILED=YES -co BLOCKXSIZE=32 -co BLOCKYSIZE=32 -co COMPRESS=LZW -co PREDICTOR=3
gt "$s/src_f32.tif" f32_tiled_zstd_pred3.tif -co TILED=YES -co BLOCKXSIZE=32 -co BLOCKYSIZE=32 -co COMPRESS=ZSTD -co PREDICTOR=3
gt "$s/src_f32.tif" f32_deflate_pred2.tif -co COMPRESS=DEFLATE -co PREDICTOR=2 -co BLOCKYSIZE=16
gt "$s/src_f32_big.tif" f32_cog_deflate_pred3.tif -of COG -co BLOCKSIZE=128 -co COMPRESS=DEFLATE -co PREDICTOR=3 -co OVERVIEWS=NONE
# JPEG: GDAL writes shared JPEGTables; grayscale, RGB and YCbCr.
gt "$s/src_gray.tif" u8_jpeg_gray.tif -co COMPRESS=JPEG -co BLOCKYSIZE=16
gt "$s/src_gray.tif" u8_jpeg_gray_tiled.tif -co COMPRESS=JPEG -co TILED=YES -co BLOCKXSIZE=32 -co BLOCKYSIZE=32
gt "$s/src_rgb.tif" rgb_jpeg_rgb_tiled.tif -co COMPRESS=JPEG -co PHOTOMETRIC=RGB -co TILED=YES -co BLOCKXSIZE=32 -co BLOCKYSIZE=32
gt "$s/src_rgb.tif" rgb_jpeg_ycbcr_tiled.tif -co COMPRESS=JPEG -co PHOTOMETRIC=YCBCR -co TILED=YES -co BLOCKXSIZE=32 -co BLOCKYSIZE=32
gt "$s/src_rgb_big.tif" rgb_cog_jpeg.tif -of COG -co BLOCKSIZE=128 -co COMPRESS=JPEG -co OVERVIEWS=NONE
gt "$s/src_rgb.tif" rgb_deflate.tif -co COMPRESS=DEFLATE
# Complex samples: CFloat32 from tifffile's complex64, CFloat64 and CInt16 by GDAL's -ot.
gt "$s/src_c64.tif" c64_raw.tif -co BLOCKYSIZE=16
gt "$s/src_c64.tif" c64_deflate.tif -co COMPRESS=DEFLATE -co BLOCKYSIZE=16
gt "$s/src_c64.tif" c128_tiled.tif -ot CFloat64 -co TILED=YES -co BLOCKXSIZE=32 -co BLOCKYSIZE=32
gt "$s/src_c64.tif" cint16_raw.tif -ot CInt16 -scale 0 1 0 1000 -co BLOCKYSIZE=16

# netCDF: nccopy into every format and a chunked/deflated/shuffled netCDF-4.
n=$out/nc
nccopy -k classic "$s/src.nc" "$n/classic.nc"
nccopy -k '64-bit offset' "$s/src.nc" "$n/offset64.nc"
nccopy -k cdf5 "$s/src.nc" "$n/cdf5.nc"
nccopy -k nc4 "$s/src.nc" "$n/nc4_default.nc"
nccopy -k 4 "$s/src.nc" "$n/nc4classic.nc"
nccopy -k nc4 -d 5 -s -c time/4,lat/5,lon/17 "$s/src.nc" "$n/nc4_d5_shuffle_chunked.nc"
nccopy -k nc4 -d 9 -c time/10,lat/13,lon/17 "$s/src.nc" "$n/nc4_d9_onechunk.nc"
nccopy -k nc4 -c time/3,lat/13,lon/17 "$s/src.nc" "$n/nc4_chunked_raw.nc"
cp "$root/testdata/netcdf3/netcdf-c/"ref_nctest_*.nc "$n/"

# HDF5: h5repack filters and layouts.
h=$out/h5
h5repack -f GZIP=9 "$s/src.h5" "$h/gzip9.h5"
h5repack -f SHUF -f GZIP=1 "$s/src.h5" "$h/shuffle_gzip.h5"
h5repack -f FLET "$s/src.h5" "$h/fletcher32.h5"
h5repack -f SHUF -f FLET "$s/src.h5" "$h/shuffle_fletcher32.h5"
h5repack -f i32:NBIT -f u8_3d:NBIT "$s/src.h5" "$h/nbit.h5"
h5repack -f i32:SOFF=0,IN -f f64:SOFF=3,DS "$s/src.h5" "$h/scaleoffset.h5"
h5repack -l CONTI "$s/src.h5" "$h/contiguous.h5"
h5repack -l i32,f64:CHUNK=8x8 -f GZIP=6 "$s/src.h5" "$h/rechunk_gzip.h5"
h5repack -l COMPA "$s/src.h5" "$h/compact.h5" 2>/dev/null || rm -f "$h/compact.h5"

ls "$t" "$n" "$h" | grep -c '\.' | xargs echo "make.sh: files written:" >&2
