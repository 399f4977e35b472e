"""Open a vzplan refs.json the way the README says, with xarray over zarr-python (rectilinear grids
enabled), and print what a scientist sees: the dataset's repr, each variable's dask chunks (the
rectilinear grid), and its first values with the fill value masked as xarray masks it (NaN, not
the `1e20` stored in the file).

    .venv/bin/python scripts/show.py out/daily20.json
"""

import sys

import fsspec
import numpy as np
import xarray as xr
import zarr

zarr.config.set({"array.rectilinear_chunks": True})
try:  # codecs for TIFF LZW / PackBits / predictors, when imagecodecs is installed
    import imagecodecs.zarr

    imagecodecs.zarr.register_codecs()
except (ImportError, AttributeError):
    pass


def first_values(v, n=5):
    """The first `n` values in storage order and how many of all are masked (the fill value)."""
    head = v.isel({d: 0 for d in v.dims[1:]}).isel({v.dims[0]: slice(0, n)}) if v.ndim else v
    values = np.asarray(head.values).reshape(-1)
    masked = int(v.isnull().sum()) if np.issubdtype(v.dtype, np.floating) else 0
    return values, masked


def main(path):
    fs = fsspec.filesystem("reference", fo=path, remote_protocol="file", asynchronous=True)
    store = zarr.storage.FsspecStore(fs, read_only=True)
    ds = xr.open_zarr(store, zarr_format=3, consolidated=False)
    print(ds)
    for name, v in ds.data_vars.items():
        values, masked = first_values(v)
        fill = v.encoding.get("_FillValue")
        print(f"\n{name}: dask chunks (the rectilinear grid) {v.chunks}")
        where = ", ".join(f"{d}=0" for d in v.dims[1:])
        shown = np.array2string(values, precision=4)
        print(f"    first values along {v.dims[0]}{' at ' + where if where else ''}: {shown}")
        if fill is not None:
            fill = v.dtype.type(fill)
        print(f"    {masked} of {v.size} values are the fill value {fill!s}, shown as NaN (masked)")


if __name__ == "__main__":
    main(sys.argv[1])
