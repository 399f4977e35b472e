#!/usr/bin/env python3
"""Writes the netCDF classic fixtures (CDF-1, CDF-2, CDF-5) and their oracle tables.

Run from the repository root with the pinned venv:

    .venv/bin/python scripts/fixtures_netcdf3.py

Every file is written by netCDF4-python (netCDF-C underneath). The oracle JSON beside each file
(`<name>.json`) is the library's own view of the file, read back with netCDF4-python:
dimensions (name, size, unlimited), global attributes, and per variable its numpy dtype, shape,
dimension names, attributes, the fill value (the `_FillValue` attribute, else
`netCDF4.default_fillvals`) as big-endian bytes, and all of its data as big-endian bytes
(`data_hex`). netCDF4-python does not expose the `begin` offsets, so the Rust tests read the byte
ranges the reader references, concatenate them and compare with `data_hex`.

The one patched file, `streaming.nc` / `streaming5.nc`, is a normal file whose numrecs field is
overwritten with STREAMING (all ones), a header state the format specification defines; its oracle
is the unpatched file's view.

Output is deterministic (netCDF-3 headers carry no timestamps).
"""

import json
import math
import os
import struct
import sys

import netCDF4
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "testdata", "netcdf3")

FORMATS = {
    "NETCDF3_CLASSIC": 1,
    "NETCDF3_64BIT_OFFSET": 2,
    "NETCDF3_64BIT_DATA": 5,
}


def json_value(v):
    """An attribute value in vzplan's JSON convention (bare scalars, lists, text, non-finite as strings)."""
    if isinstance(v, (bytes, np.bytes_)):
        return bytes(v).decode("utf-8", "replace")
    if isinstance(v, str):
        return v
    a = np.asarray(v)
    if a.ndim == 0:
        return json_scalar(a[()])
    if a.shape == (1,):
        return json_scalar(a[0])
    return [json_scalar(x) for x in a]


def json_scalar(x):
    if isinstance(x, (np.floating, float)):
        f = float(x)
        if math.isnan(f):
            return "NaN"
        if math.isinf(f):
            return "Infinity" if f > 0 else "-Infinity"
        return f
    if isinstance(x, (np.integer, int)):
        return int(x)
    if isinstance(x, (bytes, np.bytes_)):
        return bytes(x).decode("utf-8", "replace")
    return str(x)


def be_bytes(values, dtype):
    """Raw big-endian bytes of `values` in numpy `dtype` (single-byte types as is)."""
    dt = np.dtype(dtype)
    return np.ascontiguousarray(np.asarray(values, dtype=dt).astype(dt.newbyteorder(">"))).tobytes()


def oracle(path):
    ds = netCDF4.Dataset(path)
    ds.set_auto_maskandscale(False)
    ds.set_always_mask(False)
    out = {
        "file": os.path.basename(path),
        "format": ds.data_model,
        "version": FORMATS[ds.data_model],
        "file_size": os.path.getsize(path),
        "dims": [
            {"name": d.name, "size": len(d), "unlimited": d.isunlimited()}
            for d in ds.dimensions.values()
        ],
        "attrs": {k: json_value(ds.getncattr(k)) for k in ds.ncattrs()},
        "variables": [],
    }
    for v in ds.variables.values():
        dt = v.dtype
        attrs = {k: json_value(v.getncattr(k)) for k in v.ncattrs()}
        if "_FillValue" in v.ncattrs():
            fv = v.getncattr("_FillValue")
            fill = be_bytes(np.asarray(fv).reshape(-1)[:1] if not isinstance(fv, (bytes, str)) else
                            [fv if isinstance(fv, bytes) else fv.encode()], dt)
        else:
            fill = be_bytes([netCDF4.default_fillvals[dt.str[1:]]], dt)
        data = v[...]
        out["variables"].append({
            "name": v.name,
            "dtype": dt.newbyteorder(">").str if dt.itemsize > 1 else dt.str,
            "shape": list(v.shape),
            "dimensions": list(v.dimensions),
            "attrs": attrs,
            "fill_hex": fill.hex(),
            "data_hex": be_bytes(data, dt).hex(),
        })
    ds.close()
    return out


def write_oracle(path, table=None):
    table = table or oracle(path)
    with open(os.path.splitext(path)[0] + ".json", "w") as f:
        json.dump(table, f, indent=1, sort_keys=False)
        f.write("\n")


def create(name, fmt):
    path = os.path.join(OUT, name)
    if os.path.exists(path):
        os.remove(path)
    return path, netCDF4.Dataset(path, "w", format=fmt)


def chars(strings, n):
    return netCDF4.stringtochar(np.array(strings, dtype=f"S{n}"))


def classic_fixed():
    """CDF-1, fixed variables only: every classic type, padding, char, scalar, coordinates, fills."""
    path, ds = create("classic_fixed.nc", "NETCDF3_CLASSIC")
    ds.createDimension("x", 3)
    ds.createDimension("y", 4)
    ds.createDimension("strlen", 5)
    ds.setncattr("title", "classic fixed fixture")
    ds.setncattr("att_byte", np.array([-128, 0, 127], dtype="i1"))
    ds.setncattr("att_short", np.int16(-32768))
    ds.setncattr("att_int", np.array([1, -2, 2147483647], dtype="i4"))
    ds.setncattr("att_float", np.array([0.1, np.nan, np.inf, -np.inf], dtype="f4"))
    ds.setncattr("att_double", np.float64(2.5e-300))
    x = ds.createVariable("x", "f4", ("x",))
    x.units = "m"
    x[:] = [10.0, 20.0, 30.0]
    y = ds.createVariable("y", "i4", ("y",))
    y[:] = [-1, 0, 1, 2]
    b = ds.createVariable("b", "i1", ("x",))  # 3 bytes, vsize padded to 4
    b[:] = [-5, 0, 5]
    s = ds.createVariable("s", "i2", ("x",))  # 6 bytes, vsize padded to 8
    s[:] = [-300, 0, 300]
    s.valid_range = np.array([-1000, 1000], dtype="i2")
    i = ds.createVariable("i", "i4", ("x", "y"))
    i[:] = np.arange(12, dtype="i4").reshape(3, 4) * 1000 - 5000
    f = ds.createVariable("f", "f4", ("x", "y"), fill_value=np.float32(-999.0))
    f.long_name = "with _FillValue"
    f[0, :] = [1.5, 2.5, np.nan, -0.0]
    f[1, :2] = [np.inf, -np.inf]  # f[1, 2:] and f[2, :] stay at the fill value
    d = ds.createVariable("d", "f8", ("y", "x"))  # default fill, left partly unwritten
    d[:2, :] = np.arange(6, dtype="f8").reshape(2, 3) / 7.0
    c = ds.createVariable("c", "S1", ("x", "strlen"))
    c[:] = chars(["ab", "hello", "z"], 5)
    sc = ds.createVariable("scalar", "f8", ())
    sc.comment = "0-d variable"
    sc.assignValue(3.25)
    ds.close()
    write_oracle(path)


def offset64_records():
    """CDF-2 with several record variables (interleaved records, byte/short/char padding)."""
    path, ds = create("offset64_records.nc", "NETCDF3_64BIT_OFFSET")
    ds.createDimension("time", None)
    ds.createDimension("x", 3)
    ds.createDimension("nchar", 3)
    ds.setncattr("Conventions", "CF-1.8")
    lat = ds.createVariable("lat", "f4", ("x",))
    lat[:] = [-45.0, 0.0, 45.0]
    t = ds.createVariable("time", "f8", ("time",))
    t.units = "days since 2000-01-01"
    rb = ds.createVariable("rb", "i1", ("time",))  # 1 byte per record, vsize 4
    rs = ds.createVariable("rs", "i2", ("time", "x"))  # 6 bytes per record, vsize 8
    rf = ds.createVariable("rf", "f4", ("time", "x"), fill_value=np.float32(1e20))
    rc = ds.createVariable("rc", "S1", ("time", "nchar"))  # 3 bytes per record, vsize 4
    n = 4
    t[:] = np.arange(n, dtype="f8") + 0.5
    rb[:] = np.array([-1, 2, -3, 4], dtype="i1")
    rs[:] = np.arange(n * 3, dtype="i2").reshape(n, 3) - 6
    rf[:3] = np.arange(9, dtype="f4").reshape(3, 3) * 0.25  # last record stays fill
    rc[:] = chars(["abc", "de", "", "xyz"], 3)
    ds.close()
    write_oracle(path)


def classic_single_record():
    """CDF-1 with exactly one record variable (short, 6 bytes per record: records are not padded)."""
    path, ds = create("classic_single_record.nc", "NETCDF3_CLASSIC")
    ds.createDimension("time", None)
    ds.createDimension("x", 3)
    x = ds.createVariable("x", "i4", ("x",))
    x[:] = [7, 8, 9]
    s = ds.createVariable("s", "i2", ("time", "x"))
    s.units = "1"
    s[:] = np.arange(7 * 3, dtype="i2").reshape(7, 3) * 11 - 100
    ds.close()
    write_oracle(path)


def data64_types():
    """CDF-5: every numeric type (incl. the CDF-5 ones) as fixed variables and attributes, and one
    single-byte record variable (1 byte per record, contiguous)."""
    path, ds = create("data64_types.nc", "NETCDF3_64BIT_DATA")
    ds.createDimension("time", None)
    ds.createDimension("n", 3)
    ds.createDimension("strlen", 2)
    typed = {
        "v_i1": ("i1", [-128, 0, 127]),
        "v_u1": ("u1", [0, 128, 255]),
        "v_i2": ("i2", [-32768, 1, 32767]),
        "v_u2": ("u2", [0, 1, 65535]),
        "v_i4": ("i4", [-2147483648, 1, 2147483647]),
        "v_u4": ("u4", [0, 1, 4294967295]),
        "v_i8": ("i8", [-9223372036854775808, 1, 9223372036854775807]),
        "v_u8": ("u8", [0, 1, 18446744073709551615]),
        "v_f4": ("f4", [-1.25, 0.0, 3.4e38]),
        "v_f8": ("f8", [-1e300, 5e-324, 1.0]),
    }
    for name, (dt, vals) in typed.items():
        ds.setncattr("g_" + dt, np.array(vals, dtype=dt))
        v = ds.createVariable(name, dt, ("n",))
        v.setncattr("a_" + dt, np.array(vals[:1], dtype=dt))
        v[:] = np.array(vals, dtype=dt)
    ds.setncattr("g_text", "CDF-5 ✓ utf-8")
    # Variables left entirely unwritten read as the default fill of their type.
    for dt in ["u1", "u2", "u4", "i8", "u8"]:
        ds.createVariable("fill_" + dt, dt, ("n",))
    fv = ds.createVariable("fv_u8", "u8", ("n",), fill_value=np.uint64(12345678901234567890))
    fv[:1] = [5]
    c = ds.createVariable("c", "S1", ("n", "strlen"))
    c[:] = chars(["a", "bc", "d"], 2)
    ub = ds.createVariable("ub", "u1", ("time",))
    ub[:] = np.array([1, 2, 3, 250, 251], dtype="u1")
    ds.close()
    write_oracle(path)


def series():
    """Three CDF-1 files of one variable with 5, 7 and 3 records; `time` continues across files."""
    start = 0
    for k, n in enumerate([5, 7, 3]):
        path, ds = create(f"series_{k}.nc", "NETCDF3_CLASSIC")
        ds.createDimension("time", None)
        ds.createDimension("lat", 2)
        ds.createDimension("lon", 3)
        ds.setncattr("source", "vzplan series fixture")
        lat = ds.createVariable("lat", "f4", ("lat",))
        lat.units = "degrees_north"
        lat[:] = [-10.0, 10.0]
        lon = ds.createVariable("lon", "f4", ("lon",))
        lon.units = "degrees_east"
        lon[:] = [0.0, 120.0, 240.0]
        t = ds.createVariable("time", "f8", ("time",))
        t.units = "hours since 2000-01-01 00:00:00"
        t.calendar = "standard"
        tas = ds.createVariable("tas", "f4", ("time", "lat", "lon"), fill_value=np.float32(1e20))
        tas.units = "K"
        t[:] = np.arange(start, start + n, dtype="f8") * 6.0
        tas[:] = 270.0 + np.arange(start * 6, (start + n) * 6, dtype="f4").reshape(n, 2, 3) * 0.5
        start += n
        ds.close()
        write_oracle(path)


def empty_records():
    """CDF-1 with a record dimension but no records written (numrecs 0)."""
    path, ds = create("empty_records.nc", "NETCDF3_CLASSIC")
    ds.createDimension("time", None)
    ds.createDimension("x", 2)
    ds.createVariable("time", "f8", ("time",))
    ds.createVariable("v", "i2", ("time", "x"))
    x = ds.createVariable("x", "f4", ("x",))
    x[:] = [1.0, 2.0]
    ds.close()
    write_oracle(path)


def streaming(name, fmt, width):
    """A normal record file whose numrecs is then set to STREAMING (all ones)."""
    path, ds = create(name, fmt)
    ds.createDimension("time", None)
    ds.createDimension("x", 2)
    t = ds.createVariable("time", "i4", ("time",))
    v = ds.createVariable("v", "i2", ("time", "x"))
    n = 6
    t[:] = np.arange(n, dtype="i4") * 10
    v[:] = np.arange(n * 2, dtype="i2").reshape(n, 2)
    ds.close()
    table = oracle(path)
    with open(path, "r+b") as f:
        f.seek(4)
        fmtc = ">I" if width == 4 else ">Q"
        assert struct.unpack(fmtc, f.read(width))[0] == n, "numrecs is not where the spec puts it"
        f.seek(4)
        f.write(b"\xff" * width)
    table["streaming"] = True
    write_oracle(path, table)


def main():
    os.makedirs(OUT, exist_ok=True)
    classic_fixed()
    offset64_records()
    classic_single_record()
    data64_types()
    series()
    empty_records()
    streaming("streaming.nc", "NETCDF3_64BIT_OFFSET", 4)
    streaming("streaming5.nc", "NETCDF3_64BIT_DATA", 8)
    total = sum(os.path.getsize(os.path.join(OUT, f)) for f in os.listdir(OUT))
    print(f"wrote {len(os.listdir(OUT))} files to {OUT} ({total} bytes)", file=sys.stderr)


if __name__ == "__main__":
    main()
