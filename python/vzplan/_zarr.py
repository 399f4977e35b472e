"""Reading what vzplan writes with zarr-python, without configuring anything by hand."""

from __future__ import annotations

from typing import Any

from . import _vzplan

#: The prefix of the imagecodecs Zarr codecs vzplan writes (TIFF LZW/PackBits/JPEG/predictors,
#: the HDF5 LZ4/szip/bitshuffle plugins).
_IMAGECODECS = "imagecodecs_"


def zarr_settings() -> dict[str, Any]:
    """The zarr-python configuration :func:`configure_zarr` sets, as a dict.

    - ``array.rectilinear_chunks``: ``True`` (vzplan's chunk grids are rectilinear; zarr-python
      reads them only with it set);
    - ``codecs.imagecodecs_<name>``: ``"imagecodecs.zarr.<Name>"`` for every imagecodecs codec
      vzplan writes, so that zarr-python uses imagecodecs' own class for that name even where
      another package (virtual-tiff) registers a class of the same name that reads it otherwise.

    Example::

        >>> vzplan.zarr_settings()["array.rectilinear_chunks"]
        True
    """
    settings: dict[str, Any] = {"array.rectilinear_chunks": True}
    for name in _vzplan.codec_names():
        if name.startswith(_IMAGECODECS):
            cls = name[len(_IMAGECODECS):].capitalize()
            settings[f"codecs.{name}"] = f"imagecodecs.zarr.{cls}"
    return settings


def configure_zarr() -> Any:
    """Makes zarr-python read every array vzplan writes: registers imagecodecs' Zarr codecs (when
    imagecodecs is installed) and sets :func:`zarr_settings`. Nothing else is changed.

    Returns zarr's configuration context: called on its own the settings stay (as
    :func:`open_dataset` needs them for lazy reads); used in a ``with`` block they are undone at
    its end.

    Example::

        >>> import vzplan, xarray as xr
        >>> vzplan.configure_zarr()                      # once, before opening refs yourself
        >>> with vzplan.configure_zarr():                # or only for a block
        ...     ds = xr.open_zarr(store, zarr_format=3, consolidated=False).load()
    """
    import zarr

    try:
        import imagecodecs.zarr

        imagecodecs.zarr.register_codecs(verbose=False)
    except ImportError:
        pass
    return zarr.config.set(zarr_settings())
