"""The ``vzplan`` command, installed with the package: the same program as the Rust binary (same
arguments, output, exit codes, progress bar on a terminal), run through the extension.

    vzplan build data/*.nc -o refs.json
    python -m vzplan plan data/*.nc --json
"""

from __future__ import annotations

import signal
import sys

from . import _vzplan


def main(argv: list[str] | None = None) -> int:
    """Runs ``vzplan`` with ``argv`` (default: the process's arguments) and returns its exit code.

    Ctrl-C ends the run at once, as it ends the binary: outputs are written beside their targets
    and renamed into place only when complete, so nothing partial is left.
    """
    args = sys.argv[1:] if argv is None else list(argv)
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    return _vzplan.cli(["vzplan", *args])


if __name__ == "__main__":
    sys.exit(main())
