"""Writes the TIFF / BigTIFF / COG fixtures in testdata/tiff/ and, beside each, an oracle table
(<name>.json) taken from tifffile's own view of the file.

Deterministic: fixed data (arange-based), fixed tifffile options, no timestamps (tifffile writes
no DateTime unless asked). Run with the pinned venv:

    .venv/bin/python scripts/fixtures_tiff.py

The oracle lists, per IFD (main chain in order, then each IFD's SubIFDs): shape, dtype, tiling,
rows per strip, compression, predictor, planar configuration, the full dataoffsets /
databytecounts, NewSubfileType / is_reduced, the GeoTIFF tags as raw tag values, and a few pixel
values (decoded by tifffile) for the Rust tests to compare against.
"""

from __future__ import annotations

import json
import os
import shutil
import sys

import numpy as np
import tifffile

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "testdata", "tiff")


def ramp(shape, dtype, scale=1):
    """Deterministic, non-constant data (so predictors and compressors have something to do)."""
    n = int(np.prod(shape))
    a = (np.arange(n, dtype=np.float64) * scale) % 251
    a = a + (np.arange(n) // shape[-1]) % 7
    dt = np.dtype(dtype)
    if dt.kind == "f":
        return (a * 0.5 - 20.25).astype(dtype).reshape(shape)
    if dt.kind == "i":
        return (a - 100).astype(dtype).reshape(shape)
    return a.astype(dtype).reshape(shape)


def jsonable(v):
    if isinstance(v, (bytes, bytearray)):
        return v.decode("latin-1")
    if isinstance(v, np.ndarray):
        return [jsonable(x) for x in v.tolist()]
    if isinstance(v, (tuple, list)):
        return [jsonable(x) for x in v]
    if isinstance(v, np.bool_):
        return bool(v)
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (np.floating, float)):
        f = float(v)
        if f != f:
            return "NaN"
        if f in (float("inf"), float("-inf")):
            return "Infinity" if f > 0 else "-Infinity"
        return f
    if isinstance(v, str):
        return v.rstrip("\x00")
    return v


GEO_TAGS = {
    33550: "ModelPixelScale",
    33922: "ModelTiepoint",
    34264: "ModelTransformation",
    34735: "GeoKeyDirectory",
    34736: "GeoDoubleParams",
    34737: "GeoAsciiParams",
    42113: "GDAL_NODATA",
}


def page_info(page: tifffile.TiffPage, where: str, fallback=None) -> dict:
    try:
        data = page.asarray()
        source = "tifffile"
    except Exception:  # tifffile cannot decode a padded compressed last strip
        data, source = fallback, "written array"
    info = {
        "where": where,
        "shape": list(page.shape),
        "imagelength": page.imagelength,
        "imagewidth": page.imagewidth,
        "samplesperpixel": page.samplesperpixel,
        "bitspersample": page.bitspersample,
        "sampleformat": int(page.sampleformat),
        "dtype": None if page.dtype is None else page.dtype.str,
        "is_tiled": page.is_tiled,
        "tilelength": page.tilelength,
        "tilewidth": page.tilewidth,
        "rowsperstrip": page.rowsperstrip,
        "chunks": list(page.chunks),
        "compression": int(page.compression),
        "predictor": int(page.predictor),
        "planarconfig": int(page.planarconfig),
        "photometric": int(page.photometric),
        "subfiletype": int(page.subfiletype),
        "is_reduced": bool(page.is_reduced),
        "is_mask": bool(page.subfiletype & 4),
        "dataoffsets": [int(x) for x in page.dataoffsets],
        "databytecounts": [int(x) for x in page.databytecounts],
        "subifds": [int(x) for x in (page.subifds or ())],
        "geotiff": {name: jsonable(page.tags[code].value) for code, name in GEO_TAGS.items()
                    if code in page.tags},
    }
    if data is not None:
        # A few decoded pixels: corners, the centre and some interior points.
        idx = []
        shp = data.shape
        picks = [tuple(0 for _ in shp), tuple(s - 1 for s in shp), tuple(s // 2 for s in shp),
                 tuple(s // 3 for s in shp), tuple((2 * s) // 3 for s in shp),
                 tuple(min(s - 1, 17) for s in shp), tuple(max(0, s - 5) for s in shp)]
        for p in picks:
            if p not in idx:
                idx.append(p)
        info["pixels_source"] = source
        info["pixels"] = [{"index": list(p), "value": jsonable(data[p])} for p in idx]
    return info


def oracle(path: str, fallback=None) -> dict:
    out = {"file": os.path.basename(path), "tifffile": tifffile.__version__}
    with tifffile.TiffFile(path) as tif:
        out["byteorder"] = tif.byteorder
        out["is_bigtiff"] = tif.is_bigtiff
        pages = []
        for i, page in enumerate(tif.pages):
            pages.append(page_info(page, f"main/{i}", fallback if i == 0 else None))
            for j, off in enumerate(page.subifds or ()):
                tif.filehandle.seek(off)
                sub = tifffile.TiffPage(tif, index=(i, j))
                pages.append(page_info(sub, f"main/{i}/sub/{j}"))
        out["pages"] = pages
        out["series0_shape"] = list(tif.series[0].shape)
    return out


def write(name: str, data, **kw):
    path = os.path.join(ROOT, name)
    tifffile.imwrite(path, data, metadata=None, **kw)
    return path


def geokeys_utm33():
    # GeoKeyDirectory: version 1.1.0, 4 keys.
    # GTModelType=1 (projected), GTRasterType=1 (PixelIsArea), ProjectedCSType=32633, ProjLinearUnits=9001
    return [1, 1, 0, 4, 1024, 0, 1, 1, 1025, 0, 1, 1, 3072, 0, 1, 32633, 3076, 0, 1, 9001]


def main() -> int:
    if os.path.isdir(ROOT):
        shutil.rmtree(ROOT)
    os.makedirs(ROOT)
    made = []
    fallbacks = {}

    # Tiles with padded edges (70 x 90 is not a multiple of 32): uncompressed and deflate.
    made.append(write("tiled_u16.tif", ramp((70, 90), "u2"), tile=(32, 32)))
    made.append(write("tiled_deflate_f32.tif", ramp((70, 90), "f4"), tile=(32, 32),
                      compression="zlib", compressionargs={"level": 6}))
    # Strips, 100 rows at 30 rows/strip: the last strip is short (10 rows).
    made.append(write("strips_u8.tif", ramp((100, 24), "u1"), rowsperstrip=30))
    made.append(write("strips_deflate_i16.tif", ramp((100, 24), "i2"), rowsperstrip=30,
                      compression="zlib"))
    # Exactly divisible strips, float64, one strip default rows (RowsPerStrip absent → ImageLength).
    made.append(write("strips_f64_single.tif", ramp((20, 12), "f8"), rowsperstrip=20))
    # Predictors: horizontal differencing (2) on integers, floating point (3) on floats.
    made.append(write("pred2_u16.tif", ramp((50, 40), "u2", 3), rowsperstrip=16,
                      compression="zlib", predictor=2))
    made.append(write("pred2_tiled_i16.tif", ramp((40, 40), "i2", 5), tile=(16, 16),
                      compression="zlib", predictor=2))
    made.append(write("pred3_f32.tif", ramp((40, 40), "f4"), tile=(16, 16),
                      compression="zlib", predictor=3))
    # Multi-page, all pages alike → also one stacked array.
    made.append(write("multipage_f32.tif", ramp((3, 30, 20), "f4"), rowsperstrip=8,
                      photometric="minisblack"))
    # Multi-page with different pages → separate arrays, no stack.
    path = os.path.join(ROOT, "multipage_mixed.tif")
    with tifffile.TiffWriter(path) as tw:
        tw.write(ramp((30, 20), "u1"), metadata=None, rowsperstrip=10)
        tw.write(ramp((16, 16), "i2"), metadata=None, tile=(16, 16))
    made.append(path)
    # BigTIFF (tiled, deflate) and big-endian classic TIFF (strips) and big-endian BigTIFF (pred 2).
    made.append(write("bigtiff_u16.tif", ramp((40, 50), "u2"), bigtiff=True, tile=(16, 16),
                      compression="zlib"))
    made.append(write("bigendian_i16.tif", ramp((45, 20), "i2"), byteorder=">", rowsperstrip=20))
    made.append(write("bigendian_big_pred2_u16.tif", ramp((33, 40), "u2", 3), byteorder=">",
                      bigtiff=True, tile=(16, 16), compression="zlib", predictor=2))
    made.append(write("bigendian_f64_tiled.tif", ramp((20, 20), "f8"), byteorder=">",
                      tile=(16, 16)))
    # Planar separate, 3 samples (strips); contiguous RGB (tiled, deflate + predictor 2).
    made.append(write("planar_sep_u8.tif", ramp((3, 40, 30), "u1"), planarconfig="separate",
                      photometric="rgb", rowsperstrip=16))
    made.append(write("rgb_contig_u8.tif", ramp((40, 30, 3), "u1"), photometric="rgb",
                      tile=(16, 16), compression="zlib", predictor=2))
    made.append(write("rgb_contig_strips_u8.tif", ramp((25, 10, 3), "u1"), photometric="rgb",
                      rowsperstrip=10))
    # COG-like: full resolution, a mask IFD, then two reduced-resolution IFDs in the main chain.
    path = os.path.join(ROOT, "cog_chain.tif")
    full = ramp((64, 80), "u2")
    with tifffile.TiffWriter(path) as tw:
        tw.write(full, metadata=None, tile=(16, 16), compression="zlib", extratags=[
            (33550, 12, 3, (10.0, 10.0, 0.0), True),
            (33922, 12, 6, (0.0, 0.0, 0.0, 500000.0, 4600000.0, 0.0), True),
            (34735, 3, 20, tuple(geokeys_utm33()), True),
        ])
        tw.write(full > 100, metadata=None, tile=(16, 16), subfiletype=4, compression="zlib")
        tw.write(full[::2, ::2].copy(), metadata=None, tile=(16, 16), subfiletype=1,
                 compression="zlib")
        tw.write(full[::4, ::4].copy(), metadata=None, tile=(16, 16), subfiletype=1,
                 compression="zlib")
    made.append(path)
    # Pyramid as SubIFDs (tifffile's way).
    path = os.path.join(ROOT, "cog_subifds.tif")
    with tifffile.TiffWriter(path) as tw:
        tw.write(full, metadata=None, tile=(16, 16), subifds=2)
        tw.write(full[::2, ::2].copy(), metadata=None, tile=(16, 16), subfiletype=1)
        tw.write(full[::4, ::4].copy(), metadata=None, tile=(16, 16), subfiletype=1)
    made.append(path)
    # GeoTIFF: pixel scale + tiepoint + geokeys (EPSG:32633) + GDAL_NODATA; float32 strips.
    geo = ramp((30, 40), "f4")
    geo[0, 0] = -9999.0
    made.append(write("geotiff_f32.tif", geo, rowsperstrip=10, extratags=[
        (33550, 12, 3, (30.0, 30.0, 0.0), True),
        (33922, 12, 6, (0.0, 0.0, 0.0, 440720.0, 3751320.0, 0.0), True),
        (34735, 3, 20, tuple(geokeys_utm33()), True),
        (42113, 2, 0, "-9999", True),
    ]))
    # Geographic GeoTIFF with ModelTransformation and GeographicTypeGeoKey (EPSG:4326) + GeoAscii.
    made.append(write("geotiff_transform_u8.tif", ramp((18, 36), "u1"), extratags=[
        (34264, 12, 16, (10.0, 0.0, 0.0, -180.0, 0.0, -10.0, 0.0, 90.0,
                         0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0), True),
        (34735, 3, 16, (1, 1, 0, 3, 1024, 0, 1, 2, 2048, 0, 1, 4326, 2049, 34737, 7, 0), True),
        (34737, 2, 0, "WGS 84|", True),
    ]))
    # Other codecs, to test the codec mapping / problem paths.
    made.append(write("lzw_u16.tif", ramp((50, 30), "u2"), rowsperstrip=16, compression="lzw"))
    made.append(write("lzw_pred2_u8.tif", ramp((50, 30), "u1", 7), rowsperstrip=16,
                      compression="lzw", predictor=2))
    made.append(write("zstd_f32.tif", ramp((50, 30), "f4"), rowsperstrip=16, compression="zstd"))
    made.append(write("packbits_u8.tif", ramp((50, 30), "u1"), rowsperstrip=16,
                      compression="packbits"))
    made.append(write("lzma_i16.tif", ramp((50, 30), "i2"), rowsperstrip=16, compression="lzma"))
    made.append(write("jpeg_u8.tif", ramp((32, 32), "u1"), tile=(16, 16), compression="jpeg"))
    # Unsupported dtype: 1-bit bilevel.
    made.append(write("bilevel.tif", ramp((20, 24), "u1") > 100, rowsperstrip=20))
    # Other integer widths.
    made.append(write("int32_tiled.tif", ramp((20, 20), "i4"), tile=(16, 16)))
    made.append(write("uint64_strips.tif", ramp((10, 8), "u8"), rowsperstrip=4))
    # Last strip stored padded: write 120 rows at 30 rows/strip (4 full strips), then shrink
    # ImageLength to 100 with tifffile's tag overwrite → the last strip holds 30 stored rows.
    for name, kw in (("strips_padded_last_u8.tif", {}),
                     ("strips_padded_last_deflate_u8.tif", {"compression": "zlib"})):
        written = ramp((120, 16), "u1")
        path = write(name, written, rowsperstrip=30, **kw)
        fallbacks[path] = written[:100]
        with tifffile.TiffFile(path, mode="r+b") as tif:
            tif.pages[0].tags["ImageLength"].overwrite(100)
        made.append(path)

    for path in made:
        with open(os.path.splitext(path)[0] + ".json", "w") as f:
            json.dump(oracle(path, fallbacks.get(path)), f, indent=1, sort_keys=True)
            f.write("\n")
    total = sum(os.path.getsize(os.path.join(ROOT, p)) for p in os.listdir(ROOT))
    print(f"{len(made)} fixtures, {total} bytes in {ROOT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
