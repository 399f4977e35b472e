"""Read-back and conformance checks of vzplan's outputs, run by pytest (see docs/testing.md).

Every check builds with the real binary (`--vzplan PATH`, or `VZPLAN_CLI`; default
`target/debug/vzplan`) and reads the result back with other readers: zarr-python over fsspec's
ReferenceFileSystem, xarray, icechunk-python, zarrs, tifffile, a browser. The loopback servers
(moto's S3 with a fault proxy, a byte-range HTTP server, azurite) are fixtures in conftest.py.
"""
