"""vzplan: virtual Zarr datasets (kerchunk refs, rectilinear chunk grids) from piles of netCDF,
HDF5 and TIFF files, planned by the same library as the ``vzplan`` command (which installs with
this package).

    ds = vzplan.open_dataset("data/*.nc")               # an xarray.Dataset, read lazily
    report = vzplan.build("data/*.nc", output="refs.json", keep_layouts=True)
    report = vzplan.append("data/2025_*.nc", output="refs.json")   # only the new files scanned
    report = vzplan.plan("data/*.nc"); report.findings  # in a notebook, the report shows itself
    layout = vzplan.scan("data/a.nc")
    vzplan.configure_zarr()                             # before opening refs.json yourself

The API reference: docs/python.md.
"""

from importlib.metadata import PackageNotFoundError, version

from ._api import (
    FindingWarning,
    VzplanError,
    append,
    build,
    open_dataset,
    plan,
    scan,
    scan_batch,
)
from ._report import Report
from ._virtualizarr import VirtualiZarrParser
from ._zarr import configure_zarr, zarr_settings

try:
    __version__ = version("vzplan")
except PackageNotFoundError:  # run from a source tree without installing
    __version__ = "unknown"

__all__ = [
    "FindingWarning",
    "Report",
    "VirtualiZarrParser",
    "VzplanError",
    "__version__",
    "append",
    "build",
    "configure_zarr",
    "open_dataset",
    "plan",
    "scan",
    "scan_batch",
    "zarr_settings",
]
