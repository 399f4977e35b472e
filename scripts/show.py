"""Open a vzplan refs.json with zarr-python (rectilinear grids enabled) and print what is in it.

    .venv/bin/python scripts/show.py out/daily20.json
"""

import sys

import fsspec
import zarr

zarr.config.set({"array.rectilinear_chunks": True})
try:  # codecs for TIFF LZW / PackBits / predictors, when imagecodecs is installed
    import imagecodecs.zarr

    imagecodecs.zarr.register_codecs()
except (ImportError, AttributeError):
    pass


def main(path):
    fs = fsspec.filesystem("reference", fo=path, remote_protocol="file", asynchronous=True)
    group = zarr.open_group(store=zarr.storage.FsspecStore(fs, read_only=True), mode="r", zarr_format=3)
    for name, arr in sorted(group.arrays()):
        grid = arr.metadata.chunk_grid.to_dict() if hasattr(arr.metadata.chunk_grid, "to_dict") else arr.metadata.chunk_grid
        print(f"{name}: {arr.dtype} {arr.shape} dims={arr.metadata.dimension_names}")
        print(f"    chunk_grid: {grid}")
        v = arr[...]
        flat = v.reshape(-1)
        print(f"    first values: {flat[:5].tolist()}  last: {flat[-3:].tolist()}")


if __name__ == "__main__":
    main(sys.argv[1])
