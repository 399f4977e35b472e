"""Mosaic fixtures: GeoTIFF tiles (tifffile, GeoTIFF tags via extratags) and netCDF-4 tiles
(netCDF4-python) placed in 2-D, for the mosaic planner, the read-back check and the HTML report.

Deterministic. The expected outcome of each build is in testdata/mosaic/cases.json, checked by
scripts/readback.py (mosaic branch: the expected array is the tiles placed at their offsets, in
input order, the last file winning, and the fill value elsewhere).

    .venv/bin/python scripts/fixtures_mosaic.py
"""

import shutil
from pathlib import Path

import netCDF4
import numpy as np
import tifffile

ROOT = Path(__file__).resolve().parent.parent / "testdata" / "mosaic"
X0, Y0, PIX = 500000.0, 4600000.0, 30.0


def geotags(row, col, pix=PIX, epsg=32633):
    return [
        (33550, "d", 3, (pix, pix, 0.0), True),
        (33922, "d", 6, (0.0, 0.0, 0.0, X0 + col * pix, Y0 - row * pix, 0.0), True),
        (34735, "H", 16, (1, 1, 0, 3, 1024, 0, 1, 1, 1025, 0, 1, 1, 3072, 0, 1, epsg), True),
    ]


def image(h, w, row, col):
    """Global-position-dependent values: the same pixel in two overlapping tiles differs by tile."""
    y = np.arange(row, row + h)[:, None]
    x = np.arange(col, col + w)[None, :]
    return ((y * 7 + x * 3) % 1000 + 1).astype("u2")


def tile(path, h, w, row, col, *, strips=None, tiles=None, geo=True, salt=0):
    img = image(h, w, row, col) + salt
    kw = dict(photometric="minisblack", compression="zlib")
    if strips is not None:
        kw["rowsperstrip"] = strips
    if tiles is not None:
        kw["tile"] = tiles
    tifffile.imwrite(path, img, extratags=geotags(row, col) if geo else [], **kw)


def grid(d, heights, widths, **kw):
    d.mkdir()
    r = 0
    for i, h in enumerate(heights):
        c = 0
        for j, w in enumerate(widths):
            tile(d / f"t_r{i}_c{j}.tif", h, w, r, c, **kw)
            c += w
        r += h


def main():
    if ROOT.exists():
        for child in ROOT.iterdir():
            if child.is_dir():
                shutil.rmtree(child)
    ROOT.mkdir(parents=True, exist_ok=True)

    # 2x2 uneven but aligned: widths 40 + 24, heights 30 + 20, deflate strips of 10 rows.
    grid(ROOT / "grid2x2", (30, 20), (40, 24), strips=10)
    # 3x3 uneven, tiled 16x16: the last row (20 rows) and column (24 columns) are padded tiles.
    grid(ROOT / "grid3x3", (32, 16, 20), (48, 16, 24), tiles=(16, 16))
    # 3x3 of strips with a short last strip per tile: a rectilinear grid on both axes.
    grid(ROOT / "grid3x3_strips", (30, 20, 15), (40, 24, 30), strips=10)
    # Padded tiles that are not last: 24 columns in 16-wide tiles in the first column.
    grid(ROOT / "padded_interior", (32,), (24, 32), tiles=(16, 16))

    # Brick-staggered: the second row shifted by half a tile. Full-width strips cannot be cut
    # across columns: staggered cuts (and gaps at the ends of the rows).
    d = ROOT / "brick_strips"
    d.mkdir()
    for i, (r, c) in enumerate([(0, 0), (0, 32), (32, 16), (32, 48)]):
        tile(d / f"b{i}.tif", 32, 32, r, c, strips=16)
    # The same bricks in 16x16 tiles: every cut falls on a tile boundary, so it fits.
    d = ROOT / "brick_tiles"
    d.mkdir()
    for i, (r, c) in enumerate([(0, 0), (0, 32), (32, 16), (32, 48)]):
        tile(d / f"b{i}.tif", 32, 32, r, c, tiles=(16, 16))

    # Overlap by whole 16x16 blocks: resolved as GDAL VRT does, the last file wins.
    d = ROOT / "overlap_blocks"
    d.mkdir()
    tile(d / "a.tif", 48, 48, 0, 0, tiles=(16, 16))
    tile(d / "b.tif", 48, 48, 16, 32, tiles=(16, 16), salt=2000)
    # Overlap by 8 pixels (half a block): cannot be resolved by dropping whole blocks.
    d = ROOT / "overlap_partial"
    d.mkdir()
    tile(d / "a.tif", 32, 32, 0, 0, tiles=(16, 16))
    tile(d / "b.tif", 32, 32, 0, 24, tiles=(16, 16), salt=2000)

    # Tiles in another CRS / pixel size / half a pixel off: findings, not placed.
    d = ROOT / "misaligned"
    d.mkdir()
    tile(d / "a.tif", 20, 20, 0, 0, strips=10)
    tile(d / "b.tif", 20, 20, 0, 20, strips=10)
    img = image(20, 20, 0, 40)
    tifffile.imwrite(d / "c_crs.tif", img, photometric="minisblack", rowsperstrip=10,
                     compression="zlib", extratags=geotags(0, 40, epsg=32634))
    tifffile.imwrite(d / "d_shift.tif", img, photometric="minisblack", rowsperstrip=10,
                     compression="zlib", extratags=geotags(0.5, 40))

    # Plain TIFFs (no georeferencing) placed by --mosaic-layout.
    d = ROOT / "layout"
    d.mkdir()
    place = {}
    r = 0
    for i, h in enumerate((30, 20)):
        c = 0
        for j, w in enumerate((40, 24)):
            name = f"p{i}{j}.tif"
            tile(d / name, h, w, r, c, strips=10, geo=False)
            place[name] = (r, c)
            c += w
        r += h
    with open(d / "layout.txt", "w") as f:
        f.write("# path row col (paths relative to this file)\n")
        for name, (r, c) in place.items():
            f.write(f"{name} {r} {c}\n")

    # netCDF-4 tiles side by side (2 columns x 1 row) with regular x/y coordinate variables.
    d = ROOT / "netcdf2x1"
    d.mkdir()
    for j in range(2):
        ny, nx = 20, 30
        with netCDF4.Dataset(d / f"elev_{j}.nc", "w", format="NETCDF4") as ds:
            ds.createDimension("y", ny)
            ds.createDimension("x", nx)
            y = ds.createVariable("y", "f8", ("y",))
            y.units = "m"
            y.standard_name = "projection_y_coordinate"
            x = ds.createVariable("x", "f8", ("x",))
            x.units = "m"
            x.standard_name = "projection_x_coordinate"
            y[:] = Y0 - (np.arange(ny) + 0.5) * 100.0
            x[:] = X0 + (np.arange(nx) + j * nx + 0.5) * 100.0
            v = ds.createVariable("elev", "f4", ("y", "x"), zlib=True, complevel=4,
                                  chunksizes=(10, 15), fill_value=np.float32(-9999))
            v.units = "m"
            v[:] = image(ny, nx, 0, j * nx).astype("f4") / 4


if __name__ == "__main__":
    main()
