#!/usr/bin/env python
"""Writes testdata/real/: small files, written by h5py / netCDF4-python (+ hdf5plugin), with the
features issue 11's tester met in real netCDF-C / netcdf4-python / h5py test data: HDF5 plugin
filters (Blosc, LZ4, bitshuffle, szip, nbit), enum / compound / complex / variable-length string
types, a dense attribute stored as a *huge* fractal-heap object, and a netCDF-4 file with
dimensions and attributes but no variables. Expected outcomes are in testdata/real/cases.json,
checked by `scripts/readback.py --cases testdata/real/cases.json` (values against h5py /
netCDF4-python).

Deterministic (fixed data, track_times=False), except the object times netCDF-C writes into the
committed enum / compound types of nc4_types.nc. Run with the project venv:

    .venv/bin/python scripts/fixtures_real.py
"""

import os

import h5py
import hdf5plugin
import netCDF4
import numpy as np

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
OUT = os.path.join(ROOT, "testdata", "real")
KW = dict(track_times=False)


def filters_fixture():
    """One dataset per plugin filter, chunked 2-D with a partial edge chunk (row count 10, chunks
    of 4): the refs point at the filtered chunks, zarr-python decodes them with Zarr v3 codecs."""
    path = os.path.join(OUT, "filters.h5")
    data = (np.arange(10 * 16, dtype="<f4").reshape(10, 16) % 37) * 0.5
    ints = (np.arange(10 * 16, dtype="<i4").reshape(10, 16) % 23) - 5
    with h5py.File(path, "w", libver="v110", track_order=False) as f:
        f.create_dataset("blosc_lz4", data=data, chunks=(4, 16), **KW,
                         **hdf5plugin.Blosc(cname="lz4", clevel=5, shuffle=hdf5plugin.Blosc.SHUFFLE))
        f.create_dataset("blosc_zstd_bitshuffle", data=ints, chunks=(4, 16), **KW,
                         **hdf5plugin.Blosc(cname="zstd", clevel=3,
                                            shuffle=hdf5plugin.Blosc.BITSHUFFLE))
        f.create_dataset("lz4", data=data, chunks=(4, 16), **KW, **hdf5plugin.LZ4())
        f.create_dataset("bitshuffle_lz4", data=ints, chunks=(4, 16), **KW,
                         **hdf5plugin.Bitshuffle(cname="lz4"))
        f.create_dataset("bitshuffle", data=ints, chunks=(4, 16), **KW,
                         **hdf5plugin.Bitshuffle(cname="none"))
        # 1-byte elements: the only bitshuffle the imagecodecs Zarr 3 codec reads back right.
        f.create_dataset("bitshuffle_u1", data=(ints % 200).astype("u1"), chunks=(4, 16), **KW,
                         **hdf5plugin.Bitshuffle(cname="lz4"))
        f.create_dataset("szip", data=ints, chunks=(4, 16), compression="szip",
                         compression_opts=("nn", 8), **KW)
        # nbit on a full-precision type stores every bit: a pass-through.
        dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
        dcpl.set_chunk((4, 16))
        dcpl.set_filter(h5py.h5z.FILTER_NBIT)
        dcpl.set_obj_track_times(False)
        d = h5py.h5d.create(f.id, b"nbit_full", h5py.h5t.STD_I32LE, h5py.h5s.create_simple((10, 16)),
                            dcpl=dcpl)
        d.write(h5py.h5s.ALL, h5py.h5s.ALL, ints)
        # nbit that really packs (a 12-bit integer type) stays refused.
        t = h5py.h5t.STD_I32LE.copy()
        t.set_precision(12)
        sid = h5py.h5s.create_simple((10, 16))
        dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
        dcpl.set_chunk((4, 16))
        dcpl.set_filter(h5py.h5z.FILTER_NBIT)
        dcpl.set_obj_track_times(False)
        d = h5py.h5d.create(f.id, b"nbit_packed", t, sid, dcpl=dcpl)
        d.write(h5py.h5s.ALL, h5py.h5s.ALL, (ints % 100).astype("<i4"))
        f.create_dataset("scaleoffset", data=ints, chunks=(4, 16), scaleoffset=0, **KW)


def types_fixture():
    """HDF5 datatypes beyond plain numbers, as h5py writes them."""
    path = os.path.join(OUT, "types.h5")
    with h5py.File(path, "w", libver="v110", track_order=False) as f:
        f.create_dataset("enum", data=np.array([[0, 1, 2], [2, 1, 0]], dtype="i1"),
                         dtype=h5py.enum_dtype({"clear": 0, "cloudy": 1, "rain": 2}, basetype="i1"),
                         **KW)
        f.create_dataset("c8", data=(np.arange(6) + 1j * np.arange(6)[::-1]).astype("<c8"),
                         chunks=(4,), compression="gzip", **KW)
        f.create_dataset("c16_be", data=(np.arange(5) * 0.5 - 2j).astype(">c16"), **KW)
        rec = np.zeros(4, dtype=[("id", "<i4"), ("temp", "<f8"), ("flag", "u1")])
        rec["id"] = [1, 2, 3, 4]
        rec["temp"] = [280.5, 281.25, -1.0, 290.0]
        rec["flag"] = [0, 1, 1, 0]
        f.create_dataset("records", data=rec, chunks=(2,), **KW)
        f.create_dataset("names", data=np.array(["alpha", "", "h\u00e9llo w\u00f6rld", "z"],
                                               dtype=object),
                         dtype=h5py.string_dtype(), **KW)
        f.create_dataset("names2d", data=np.array([["a", "bb"], ["ccc", "dddd"], ["e", "ff"]],
                                                 dtype=object),
                         dtype=h5py.string_dtype(), chunks=(2, 2), **KW)
        f.create_dataset("names_ascii", data=np.array([b"x", b"yy"], dtype=object),
                         dtype=h5py.string_dtype("ascii"), **KW)


def netcdf_types_fixture():
    """netCDF-4 user types (enum, compound) and `string` variables and attributes."""
    path = os.path.join(OUT, "nc4_types.nc")
    nc = netCDF4.Dataset(path, "w", format="NETCDF4")
    nc.createDimension("x", 4)
    nc.setncattr_string("title", "netCDF-4 user types")
    nc.setncattr_string("sources", ["a", "bc"])
    cloud = nc.createEnumType(np.uint8, "cloud_t", {"clear": 0, "stratus": 1, "missing": 255})
    v = nc.createVariable("cloud", cloud, ("x",), fill_value=255)
    v[:] = np.array([0, 1, 255, 1], dtype="u1")
    wind_t = nc.createCompoundType(np.dtype([("speed", "<f4"), ("dir", "<i2")], align=False),
                                   "wind_t")
    w = nc.createVariable("wind", wind_t, ("x",))
    w[:] = np.array([(1.5, 90), (2.0, 180), (0.0, 0), (3.25, 270)], dtype=wind_t.dtype)
    s = nc.createVariable("station", str, ("x",))
    s[:] = np.array(["Uccle", "De Bilt", "", "Lindenberg"], dtype=object)
    s.setncattr_string("long_name", "station name")
    nc.close()


def huge_attr_fixture():
    """Dense attribute storage (creation order tracked, many attributes) where one value is larger
    than the fractal heap's largest managed object: HDF5 stores it as a *huge* object, addressed
    through its own v2 B-tree (as in EUMETSAT ASCAT products' 8 KiB `_NCProperties`)."""
    path = os.path.join(OUT, "huge_attr.h5")
    with h5py.File(path, "w", libver="latest", track_order=True) as f:
        for i in range(12):
            f.attrs[f"attr_{i:02d}"] = np.int32(i)
        # Fixed-length, as netCDF-C writes text attributes (a Python str would be a vlen string,
        # whose value lives in the global heap, not in the fractal heap).
        f.attrs["history"] = np.bytes_(b"x" * 8192)
        f.attrs["after"] = "small"
        f.create_dataset("v", data=np.arange(6, dtype="<f4"), **KW)
        d = f.create_dataset("w", data=np.arange(3, dtype="<i2"), track_order=True, **KW)
        for i in range(10):
            d.attrs[f"a{i}"] = np.float64(i)
        d.attrs["big_list"] = np.arange(1000, dtype="<f8")


def dims_only_fixture():
    """netCDF-C's ref_tst_dims.nc kind: dimensions and attributes, no variables."""
    path = os.path.join(OUT, "dims_only.nc")
    nc = netCDF4.Dataset(path, "w", format="NETCDF4")
    nc.createDimension("lat", 3)
    nc.createDimension("time", None)
    nc.title = "dimensions only"
    nc.close()


def main():
    os.makedirs(OUT, exist_ok=True)
    filters_fixture()
    types_fixture()
    netcdf_types_fixture()
    huge_attr_fixture()
    dims_only_fixture()
    for n in sorted(os.listdir(OUT)):
        print(n, os.path.getsize(os.path.join(OUT, n)))


if __name__ == "__main__":
    main()
