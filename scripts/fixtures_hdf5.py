#!/usr/bin/env python
"""Writes the HDF5 / netCDF-4 fixtures of vzplan-hdf5 into testdata/hdf5/, each with an oracle JSON
(`<name>.oracle.json`) taken from h5py's and netCDF4-python's own view of the file.

Deterministic and idempotent: fixed data, fixed attribute values, and HDF5 object times disabled
(`track_times=False`) where the writer allows it. Run with the project venv:

    .venv/bin/python scripts/fixtures_hdf5.py
"""

import json
import math
import os
import sys

import h5py
import hdf5plugin
import netCDF4
import numpy as np

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
OUT = os.path.join(ROOT, "testdata", "hdf5")

# Attributes netCDF-4 / the dimension-scale API keep for themselves (the reader drops them too).
HIDDEN = {"DIMENSION_LIST", "REFERENCE_LIST", "CLASS", "NAME", "_Netcdf4Dimid",
          "_Netcdf4Coordinates", "_nc3_strict", "_NCProperties"}

# Datasets the reader must report as problems for reasons h5py does not expose.
EXPECT_PROBLEM = {}
# Datasets whose partial edge chunks are stored unfiltered (DONT_FILTER_PARTIAL_BOUND_CHUNKS): the
# reader reports those chunks with every filter-mask bit set (h5py's chunk_iter reports mask 0).
UNFILTERED_EDGES = {"partial_unfiltered"}

NON_COORD = "_nc4_non_coord_"

PURE_DIM = "This is a netCDF dimension but not a netCDF variable"


def hidden(name):
    return name in HIDDEN or name.startswith("_Netcdf4")


def jval(v):
    """An attribute value as the reader's JSON convention: bare scalars, lists, text as strings,
    non-finite floats as strings."""
    if isinstance(v, bytes):
        return v.decode("utf-8", "replace").rstrip("\x00")
    if isinstance(v, str):
        return v
    if isinstance(v, np.ndarray):
        if v.dtype.kind == "S" and v.ndim == 0:
            return jval(v[()])
        flat = [jval(x) for x in v.reshape(-1)]
        if len(flat) == 1:
            return flat[0]
        return flat
    if isinstance(v, (np.floating, float)):
        f = float(v)
        if math.isnan(f):
            return "NaN"
        if math.isinf(f):
            return "Infinity" if f > 0 else "-Infinity"
        return f
    if isinstance(v, (np.integer, int)):
        return int(v)
    if isinstance(v, np.bytes_):
        return jval(bytes(v))
    if isinstance(v, np.str_):
        return str(v)
    raise TypeError(f"attribute value {v!r} of type {type(v)}")


def attrs_of(obj):
    out = {}
    for k in obj.attrs.keys():
        if hidden(k):
            continue
        try:
            out[k] = jval(obj.attrs[k])
        except (TypeError, OSError):
            continue
    return out


FILTER_NAMES = {1: "deflate", 2: "shuffle", 3: "fletcher32", 4: "szip", 5: "nbit",
                6: "scaleoffset", 32015: "zstd"}


def packed_numbers(dt):
    """A compound of numbers packed in order, in one byte order: a Zarr v3 `struct`."""
    if dt.names is None:
        return False
    at, orders = 0, set()
    for name in dt.names:
        f, off = dt.fields[name][:2]
        if off != at or f.kind not in "iuf" or f.names is not None:
            return False
        if f.itemsize > 1:
            orders.add(f.byteorder if f.byteorder != "=" else "<")
        at += f.itemsize
    return at == dt.itemsize and len(orders) <= 1


def dset_oracle(ds, nc_dims, key):
    dcpl = ds.id.get_create_plist()
    filters = []
    for i in range(dcpl.get_nfilters()):
        fid, flags, vals, _name = dcpl.get_filter(i)
        filters.append({"id": int(fid), "name": FILTER_NAMES.get(int(fid), f"id{fid}"),
                        "values": [int(x) for x in vals]})
    layout = {h5py.h5d.COMPACT: "compact", h5py.h5d.CONTIGUOUS: "contiguous",
              h5py.h5d.CHUNKED: "chunked"}.get(dcpl.get_layout(), "other")
    fill_status = dcpl.fill_value_defined()  # 0 undefined, 1 default, 2 user-defined
    tid = ds.id.get_type()
    cls = tid.get_class()
    vlen_str = cls == h5py.h5t.STRING and tid.is_variable_str()
    enum = h5py.check_enum_dtype(ds.dtype) if cls == h5py.h5t.ENUM else None
    # Enums are their base integer type (names and values in `enum_dict`), h5py's {r, i}
    # compounds are complex numbers, variable-length strings are written inline.
    supported = cls in (h5py.h5t.INTEGER, h5py.h5t.FLOAT, h5py.h5t.STRING) or (
        enum is not None) or ds.dtype.kind == "c" or packed_numbers(ds.dtype)
    problem = None
    if not supported:
        problem = f"dtype {ds.dtype}"
    elif any(f["id"] not in (1, 2, 3, 32015) for f in filters):
        problem = "filter"
    elif ds.name.lstrip("/") in EXPECT_PROBLEM:
        problem = EXPECT_PROBLEM[ds.name.lstrip("/")]
    o = {
        "shape": list(ds.shape),
        "maxshape": [None if m is None else int(m) for m in (ds.maxshape or ())],
        "dtype": ds.dtype.str,
        "layout": layout,
        "chunks": list(ds.chunks) if ds.chunks else None,
        "filters": filters,
        "fill_defined": int(fill_status),
        "problem": problem,
        "attrs": attrs_of(ds),
        "dims": nc_dims.get(key),
    }
    if enum is not None:
        o["attrs"].setdefault("enum_dict", {k: int(v) for k, v in enum.items()})
    if vlen_str:
        # One inline vlen-utf8 chunk with the strings as h5py reads them.
        o["layout"] = "inline"
        o["strings"] = [x.decode() if isinstance(x, bytes) else x
                        for x in ds[()].reshape(-1).tolist()]
        o["fill_hex"] = None
        o["chunk_iter"] = []
        return o
    if supported:
        fv = np.zeros((), ds.dtype)
        if fill_status != 0:
            fv = np.array(ds.fillvalue, dtype=ds.dtype)
        o["fill_hex"] = fv.tobytes().hex() if fill_status != 0 else None
        if "_FillValue" in ds.attrs:
            o["fill_hex"] = np.array(ds.attrs["_FillValue"], dtype=ds.dtype).reshape(()).tobytes().hex()
    chunks = []
    if layout == "chunked":
        ds.id.chunk_iter(lambda si: chunks.append({
            "offset": [int(x) for x in si.chunk_offset], "addr": int(si.byte_offset),
            "size": int(si.size), "mask": int(si.filter_mask)}))
    elif layout == "contiguous":
        off = ds.id.get_offset()
        if off is not None:
            chunks.append({"offset": [0] * ds.ndim, "addr": int(off),
                           "size": int(ds.id.get_storage_size()), "mask": 0})
    if ds.name.lstrip("/") in UNFILTERED_EDGES:
        for c in chunks:
            if any(o + k > s for o, k, s in zip(c["offset"], ds.chunks, ds.shape)):
                c["mask"] = (1 << len(filters)) - 1
    o["chunk_iter"] = chunks
    if layout == "compact" and supported:
        o["compact_hex"] = ds[()].tobytes().hex()
    # Coordinate values: 1-D dimension scales (h5py's view of the data).
    if supported and ds.ndim == 1 and ds.attrs.get("CLASS") == b"DIMENSION_SCALE":
        name = ds.attrs.get("NAME", b"")
        if not (isinstance(name, bytes) and name.startswith(PURE_DIM.encode())):
            o["values_hex"] = ds[()].tobytes().hex()
    return o


def nc_dim_names(path):
    """Dimension names per variable path as netCDF4-python reports them (None if it can't open)."""
    out = {}
    try:
        nc = netCDF4.Dataset(path)
    except Exception:
        return out

    def walk(g, prefix):
        for name, v in g.variables.items():
            out[prefix + name] = list(v.dimensions)
        for name, sub in g.groups.items():
            walk(sub, prefix + name + "/")
    walk(nc, "")
    nc.close()
    return out


def pure_dims(f):
    out = []

    def visit(name, obj):
        if isinstance(obj, h5py.Dataset):
            n = obj.attrs.get("NAME", b"")
            if isinstance(n, bytes) and n.startswith(PURE_DIM.encode()):
                out.append(name)
    f.visititems(visit)
    return sorted(out)


def write_oracle(path):
    nc_dims = nc_dim_names(path)
    o = {"datasets": {}, "groups": {}}
    with h5py.File(path, "r") as f:
        o["attrs"] = attrs_of(f)
        o["pure_dims"] = pure_dims(f)

        def visit(name, obj):
            if isinstance(obj, h5py.Dataset):
                if name in o["pure_dims"]:
                    return
                # netCDF-4 stores a variable that shares its name with a dimension but is not
                # its coordinate as `_nc4_non_coord_<name>`; netCDF users (and the reader) see
                # `<name>`.
                key = name.replace(NON_COORD, "")
                o["datasets"][key] = dset_oracle(obj, nc_dims, key)
                return
            elif isinstance(obj, h5py.Group):
                o["groups"][name] = attrs_of(obj)
        f.visititems(visit)
    with open(path + ".oracle.json", "w") as fh:
        json.dump(o, fh, indent=1, sort_keys=True)
        fh.write("\n")


def common_content(f):
    """Datasets and attributes shared by the h5py fixtures (one per libver)."""
    kw = dict(track_times=False)
    f.attrs["title"] = "vzplan fixture"
    f.attrs["int_attr"] = np.int32(7)
    f.attrs["float_list"] = np.array([1.5, 2.5, -0.25], dtype="f8")
    f.attrs["nan_attr"] = np.float32("nan")
    f.attrs.create("fixed_str", np.bytes_(b"fixed text"))
    f.attrs.create("vlen_str", "vlen text", dtype=h5py.string_dtype())
    f.attrs.create("vlen_strs", ["a", "bc", "def"], dtype=h5py.string_dtype())
    f.attrs["u8_list"] = np.array([1, 2, 3], dtype="u1")
    f.attrs["be_attr"] = np.array([1.0, 2.0], dtype=">f4")

    f.create_dataset("contig", data=np.arange(12, dtype="<f4").reshape(3, 4), **kw)
    dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
    dcpl.set_layout(h5py.h5d.COMPACT)
    f.create_dataset("compact", data=np.arange(6, dtype="<i2"), dcpl=dcpl, **kw)
    f.create_dataset("gzip_shuffle", data=np.arange(70, dtype="<i4").reshape(7, 10),
                     chunks=(3, 4), compression="gzip", compression_opts=4, shuffle=True, **kw)
    f.create_dataset("fletcher", data=np.arange(20, dtype="<u2"), chunks=(8,),
                     fletcher32=True, **kw)
    f.create_dataset("be_f4", data=np.linspace(0, 1, 10, dtype=">f4"), **kw)
    f.create_dataset("be_i8", data=np.arange(6, dtype=">i8").reshape(2, 3), chunks=(1, 3),
                     **kw)
    d = f.create_dataset("fill_sparse", shape=(8, 8), dtype="<f8", chunks=(4, 4),
                         fillvalue=-9.5, **kw)
    d[0:4, 4:8] = 1.0  # only one of four chunks written
    d = f.create_dataset("unlimited", shape=(3, 5), maxshape=(None, 5), dtype="<i2",
                         chunks=(2, 5), **kw)
    d[...] = np.arange(15).reshape(3, 5)
    d.attrs["units"] = "m"
    f.create_dataset("strings", data=np.array([b"ab", b"cde", b"f"], dtype="S4"), **kw)
    f.create_dataset("scalar", data=np.float64(3.25), **kw)
    f.create_dataset("empty_contig", shape=(4,), dtype="<f4", **kw)  # never written
    # A packed compound of numbers (a Zarr struct), a vlen string (inline), an enum.
    f.create_dataset("compound", data=np.zeros(3, dtype=[("a", "<i4"), ("b", "<f8")]), **kw)
    f.create_dataset("vlen", data=np.array(["x", "yy"], dtype=object),
                     dtype=h5py.string_dtype(), **kw)
    g = f.create_group("g1", track_order=None)
    g.attrs["gattr"] = np.int16(-3)
    g2 = g.create_group("g2")
    g2.attrs["deep"] = "yes"
    g2.create_dataset("v", data=np.arange(4, dtype="u8"), chunks=(2,), compression="gzip",
                      **kw)
    # Many links to one object: multi-level group B-trees (symbol tables) or fractal heaps with
    # indirect blocks (dense links); only the first name (in name order) is a separate path.
    many = f.create_group("many")
    target = many.create_dataset("target", data=np.arange(3, dtype="<i2"), **kw)
    for i in range(400):
        many[f"l{i:03d}"] = target


def h5py_fixture(name, libver):
    path = os.path.join(OUT, name)
    with h5py.File(path, "w", libver=libver, track_order=False) as f:
        common_content(f)
        if libver != "earliest":
            # Two unlimited axes → v2 B-tree index (libver >= v110); fixed → fixed array.
            d = f.create_dataset("two_unlim", shape=(5, 6), maxshape=(None, None), dtype="<f4",
                                 chunks=(2, 4), compression="gzip", track_times=False)
            d[...] = np.arange(30).reshape(5, 6)
            d = f.create_dataset("single_chunk", data=np.arange(10, dtype="<i4"), chunks=(10,),
                                 compression="gzip", track_times=False)
    write_oracle(path)


def latest_fixture():
    path = os.path.join(OUT, "h5_latest.h5")
    with h5py.File(path, "w", libver="latest", track_order=False) as f:
        common_content(f)
        kw = dict(track_times=False)
        # Dense attributes (> 8, creation order tracked) on a dataset and on the root.
        d = f.create_dataset("many_attrs", data=np.arange(3, dtype="<f4"), **kw)
        for i in range(12):
            d.attrs[f"a{i:02d}"] = np.int32(i)
        d.attrs["text"] = "long " * 10
        # Enough dense attributes to need fractal heap indirect blocks.
        d = f.create_dataset("heap_attrs", data=np.arange(2, dtype="<f4"), **kw)
        for i in range(250):
            d.attrs[f"attribute_number_{i:03d}"] = np.arange(i % 7 + 1, dtype="<i4") * i
        g = f.create_group("dense_links", track_order=False)
        for i in range(12):
            g.create_dataset(f"d{i:02d}", data=np.full(2, i, dtype="<i1"), **kw)
        t = f.create_group("ordered", track_order=True)
        for i in range(10):
            t.attrs[f"z{9 - i}"] = np.float64(i)
        for i in range(10):
            t.create_dataset(f"x{9 - i}", data=np.arange(2, dtype="<u4"), **kw)
        f.create_dataset("zstd", data=np.arange(40, dtype="<f8"), chunks=(16,),
                         **hdf5plugin.Zstd(clevel=5), **kw)
        f.create_dataset("scaleoffset", data=np.linspace(0, 1, 10), chunks=(5,),
                         scaleoffset=2, **kw)
        d = f.create_dataset("ea_unlim", shape=(10,), maxshape=(None,), dtype="<i4", chunks=(3,),
                             compression="gzip", **kw)
        d[...] = np.arange(10)
        d = f.create_dataset("implicit", shape=(4, 4), dtype="<i2", chunks=(2, 2), **kw)
        d[...] = np.arange(16).reshape(4, 4)
        # Partial edge chunks stored unfiltered: h5py has no API for H5Pset_chunk_opts, so it is
        # called in h5py's own bundled libhdf5.
        dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
        dcpl.set_chunk((4,))
        dcpl.set_deflate(4)
        set_chunk_opts(dcpl, 2)  # H5D_CHUNK_DONT_FILTER_PARTIAL_CHUNKS
        f.create_dataset("partial_unfiltered", data=np.arange(10, dtype="<i4"), dcpl=dcpl, **kw)
    write_oracle(path)


def set_chunk_opts(dcpl, opts):
    import ctypes
    import glob
    libs = glob.glob(os.path.join(os.path.dirname(h5py.__file__), "..", "h5py.libs",
                                  "libhdf5-*"))
    lib = ctypes.CDLL(libs[0])
    lib.H5Pset_chunk_opts.argtypes = [ctypes.c_int64, ctypes.c_uint]
    if lib.H5Pset_chunk_opts(dcpl.id, opts) < 0:
        raise RuntimeError("H5Pset_chunk_opts failed")


def misc_fixture():
    """A 512-byte user block, committed datatypes, soft / external / second hard links, and
    datatypes the reader must refuse."""
    path = os.path.join(OUT, "h5_misc.h5")
    with h5py.File(path, "w", libver="earliest", userblock_size=512, track_order=False) as f:
        kw = dict(track_times=False)
        f["mytype"] = np.dtype(">f4")
        f.create_dataset("typed", data=np.arange(5, dtype=">f4"), dtype=f["mytype"], **kw)
        f["alias"] = f["typed"]
        f["soft"] = h5py.SoftLink("/typed")
        f["ext"] = h5py.ExternalLink("other.h5", "/x")
        f.create_dataset("half", data=np.array([0.5, -2.0, np.inf], dtype="<f2"), **kw)
        f.create_dataset("enum", data=np.array([0, 1, 0], dtype="i1"),
                         dtype=h5py.enum_dtype({"a": 0, "b": 1}, basetype="i1"), **kw)
        f.create_dataset("arr", data=np.zeros(2, dtype=("<i4", (3,))), **kw)
        f.create_dataset("be_fill", shape=(6,), dtype=">i4", chunks=(3,), fillvalue=-2, **kw)
        d = f.create_dataset("attrs", data=np.arange(2, dtype="<u1"), **kw)
        d.attrs["big"] = np.array([1, -2], dtype=">i8")
        d.attrs["empty_str"] = np.bytes_(b"")
        d.attrs["str_list"] = np.array([b"x", b"yz"], dtype="S2")
        d.attrs["inf"] = np.float64("-inf")
        d.attrs["one"] = np.array([5], dtype="<i2")
        d.attrs.create("committed", np.array([1.5, 2.5], dtype=">f4"), dtype=f["mytype"])
        d.attrs.create("unicode", "h\u00e9llo", dtype=h5py.string_dtype("utf-8"))
    write_oracle(path)


def scales_fixture():
    """h5py dimension scales (no netCDF attributes): a scale named differently from its dataset,
    a scale with a chunked, compressed coordinate, and an axis left without a scale."""
    path = os.path.join(OUT, "h5_scales.h5")
    with h5py.File(path, "w", libver="v110", track_order=False) as f:
        kw = dict(track_times=False)
        x = f.create_dataset("xcoord", data=np.array([10, 20, 30], dtype="<i4"), **kw)
        x.make_scale("x")
        y = f.create_dataset("y", data=np.linspace(-1, 1, 7, dtype=">f8"), chunks=(3,),
                             compression="gzip", shuffle=True, fletcher32=True, **kw)
        y.make_scale()
        v = f.create_dataset("on_xy", data=np.zeros((3, 7, 2), dtype="<f4"), **kw)
        v.dims[0].attach_scale(x)
        v.dims[1].attach_scale(y)
    write_oracle(path)


def netcdf_fixture(name, fmt):
    path = os.path.join(OUT, name)
    nc = netCDF4.Dataset(path, "w", format=fmt)
    nc.title = "vzplan netCDF-4 fixture"
    if fmt == "NETCDF4":
        nc.setncattr_string("history", "created by fixtures_hdf5.py")
    nc.Conventions = "CF-1.8"
    nc.createDimension("time", None)
    nc.createDimension("lat", 3)
    nc.createDimension("lon", 4)
    nc.createDimension("nv", 2)  # a pure dimension (no variable)
    t = nc.createVariable("time", "f8", ("time",))
    t.units = "days since 2000-01-01"
    t.calendar = "standard"
    t.standard_name = "time"
    t[:] = np.array([0.5, 1.5, 2.5, 3.5, 4.5])
    lat = nc.createVariable("lat", "f4", ("lat",))
    lat.units = "degrees_north"
    lat[:] = [-10.0, 0.0, 10.0]
    lon = nc.createVariable("lon", "f4", ("lon",), zlib=True, shuffle=True, complevel=2)
    lon.units = "degrees_east"
    lon[:] = [0.0, 90.0, 180.0, 270.0]
    tb = nc.createVariable("time_bnds", "f8", ("time", "nv"))
    tb[:] = np.arange(10).reshape(5, 2)
    tas = nc.createVariable("tas", "i2", ("time", "lat", "lon"), zlib=True, shuffle=True,
                            complevel=4, chunksizes=(2, 3, 4), fill_value=np.int16(-999))
    tas.long_name = "air temperature"
    tas.standard_name = "air_temperature"
    tas.units = "K"
    tas.scale_factor = np.float32(0.01)
    tas.add_offset = np.float32(273.15)
    tas.cell_methods = "time: mean"
    tas.valid_range = np.array([-5000, 5000], dtype="i2")
    tas[0:3] = np.arange(36).reshape(3, 3, 4)  # time 3..4 chunks partially unwritten
    pr = nc.createVariable("pr", "f4", ("lat", "lon"), contiguous=True)
    pr[:] = np.ones((3, 4))
    nc.createDimension("lev", 3)
    lev = nc.createVariable("lev", "f4", ("lat",))  # same name as a dimension, not its coordinate
    lev[:] = [1.0, 2.0, 3.0]
    if fmt == "NETCDF4":
        g = nc.createGroup("forecast")
        g.source = "model"
        g.createDimension("step", 2)
        s = g.createVariable("step", "i4", ("step",))
        s[:] = [6, 12]
        v = g.createVariable("u", "f4", ("step", "lat"), zlib=True)
        v[:] = np.zeros((2, 3))
        v.units = "m s-1"
        names = nc.createVariable("station", str, ("lat",))  # vlen strings: a problem
        names[:] = np.array(["a", "bb", "ccc"], dtype=object)
        c = nc.createVariable("flag", "S1", ("lat",))
        c[:] = np.array([b"x", b"y", b"z"])
    nc.close()
    write_oracle(path)


def noscales_fixture():
    path = os.path.join(OUT, "h5_noscales.h5")
    with h5py.File(path, "w", libver="earliest", track_order=False) as f:
        kw = dict(track_times=False)
        f.create_dataset("a", data=np.zeros((3, 4), "<f4"), **kw)
        f.create_dataset("b", data=np.zeros((4, 3), "<f4"), **kw)
        f.create_dataset("c", data=np.zeros((3, 3, 5), "<f4"), **kw)
        f.create_dataset("u", shape=(2,), maxshape=(None,), dtype="<i4", chunks=(2,), **kw)
        g = f.create_group("sub")
        g.create_dataset("d", data=np.zeros((3, 7), "<f4"), **kw)
    write_oracle(path)


def main():
    os.makedirs(OUT, exist_ok=True)
    h5py_fixture("h5_earliest.h5", "earliest")
    h5py_fixture("h5_v110.h5", "v110")
    latest_fixture()
    netcdf_fixture("nc4.nc", "NETCDF4")
    netcdf_fixture("nc4_classic.nc", "NETCDF4_CLASSIC")
    noscales_fixture()
    misc_fixture()
    scales_fixture()
    total = sum(os.path.getsize(os.path.join(OUT, n)) for n in os.listdir(OUT)
                if os.path.isfile(os.path.join(OUT, n)))
    print(f"wrote fixtures into {OUT} ({total} bytes)", file=sys.stderr)


if __name__ == "__main__":
    main()
