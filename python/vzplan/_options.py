"""Keyword options → the native options dict; fsspec-style ``storage_options`` → vzplan's I/O options."""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterator, Mapping
from typing import Any

# fsspec's credential names → the environment variables vzplan's object-store client reads.
_CREDENTIAL_ENV = {
    "key": "AWS_ACCESS_KEY_ID",
    "secret": "AWS_SECRET_ACCESS_KEY",
    "token": "AWS_SESSION_TOKEN",
}
_env_lock = threading.Lock()


@contextlib.contextmanager
def _credentials(values: Mapping[str, str]) -> Iterator[None]:
    """Credentials exported for the duration of one call (the library reads them from the
    environment, as the CLI does), then restored."""
    if not values:
        yield
        return
    with _env_lock:
        saved = {k: os.environ.get(k) for k in values}
        os.environ.update(values)
        try:
            yield
        finally:
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v


def split_storage_options(
    opts: Mapping[str, Any],
) -> tuple[dict[str, Any], contextlib.AbstractContextManager[None]]:
    """The options for the native call (None values dropped) and the credentials' context."""
    options = {k: v for k, v in opts.items() if v is not None and k != "storage_options"}
    so = dict(opts.get("storage_options") or {})
    client_kwargs = dict(so.get("client_kwargs") or {})
    endpoint = so.get("endpoint_url") or client_kwargs.get("endpoint_url")
    region = so.get("region") or client_kwargs.get("region_name")
    if endpoint is not None:
        options.setdefault("s3_endpoint", endpoint)
    if region is not None:
        options.setdefault("region", region)
    if so.get("anon"):
        options.setdefault("anon", True)
    env = {_CREDENTIAL_ENV[k]: str(so[k]) for k in _CREDENTIAL_ENV if so.get(k)}
    return options, _credentials(env)


def io_options(protocol: str, storage_options: Mapping[str, Any] | None) -> dict[str, Any]:
    """fsspec's options for reading the chunks (local files need none). The reference filesystem
    is asynchronous, so the remote one must be too; ``region`` is s3fs's client region."""
    if protocol == "file":
        return {}
    out = dict(storage_options or {})
    region = out.pop("region", None)
    if region is not None and protocol == "s3":
        out["client_kwargs"] = {"region_name": region, **(out.get("client_kwargs") or {})}
    out["asynchronous"] = True
    return out
