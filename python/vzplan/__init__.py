"""vzplan: virtual Zarr datasets (kerchunk refs, rectilinear chunk grids) from piles of netCDF,
HDF5 and TIFF files, planned by the same library as the ``vzplan`` command.

    ds = vzplan.open_dataset("data/*.nc")               # an xarray.Dataset, read lazily
    report = vzplan.build("data/*.nc", output="refs.json", keep_layouts=True)
    report = vzplan.append("data/2025_*.nc", output="refs.json")   # only the new files scanned
    report = vzplan.plan("data/*.nc"); report.findings
    layout = vzplan.scan("data/a.nc")
"""

from ._api import (
    FindingWarning,
    Report,
    VzplanError,
    append,
    build,
    open_dataset,
    plan,
    scan,
    scan_batch,
)
from ._virtualizarr import VirtualiZarrParser

__all__ = [
    "FindingWarning",
    "Report",
    "VirtualiZarrParser",
    "VzplanError",
    "append",
    "build",
    "open_dataset",
    "plan",
    "scan",
    "scan_batch",
]
