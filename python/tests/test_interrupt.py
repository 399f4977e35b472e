"""Ctrl-C stops a long scan: the GIL is released and the signal is checked while files are scanned."""

from __future__ import annotations

import signal
import subprocess
import sys
import time

from conftest import COLLECTIONS

SCRIPT = f"""
import signal, sys, threading, time, vzplan
signal.signal(signal.SIGINT, signal.default_int_handler)
beats = []
threading.Thread(target=lambda: [beats.append(time.sleep(0.01)) for _ in range(20)], daemon=True).start()
print("ready", flush=True)
try:
    vzplan.plan([{str(COLLECTIONS / "yearly" / "tas_day_2001.nc")!r}] * 30000, jobs=1)
    print("finished")
except KeyboardInterrupt:
    # Another Python thread ran while vzplan scanned: the GIL was released.
    print("interrupted", len(beats))
"""


def test_ctrl_c_interrupts_a_long_scan():
    p = subprocess.Popen([sys.executable, "-c", SCRIPT], stdout=subprocess.PIPE, text=True)
    assert p.stdout.readline().strip() == "ready"
    time.sleep(1.0)
    sent = time.monotonic()
    p.send_signal(signal.SIGINT)
    out, _ = p.communicate(timeout=60)
    assert out.split()[0] == "interrupted", out
    assert int(out.split()[1]) == 20
    # Stopped between files, not after all 30000 were scanned and planned (about 15 s).
    assert time.monotonic() - sent < 5
