"""Progress of long scans from Python: tqdm's bar (its notebook bar in Jupyter) when tqdm is
installed, nothing otherwise."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator


def _in_notebook() -> bool:
    shell = sys.modules.get("IPython")
    ip = getattr(shell, "get_ipython", lambda: None)() if shell else None
    return ip is not None and type(ip).__name__ == "ZMQInteractiveShell"


@contextlib.contextmanager
def progress_bar(show: bool | None) -> Iterator[Callable[[int, int], None] | None]:
    """A ``(done, total)`` callback drawing a bar, or None. ``show``: True always (when tqdm is
    installed), False never, None in a notebook only."""
    if show is False or (show is None and not _in_notebook()):
        yield None
        return
    try:
        from tqdm.auto import tqdm
    except ImportError:
        yield None
        return
    bar = tqdm(total=0, unit="file", desc="vzplan: scanning", leave=False)

    def tick(done: int, total: int) -> None:
        if bar.total != total:
            bar.total = total
        bar.n = done
        bar.refresh()

    try:
        yield tick
    finally:
        bar.close()
