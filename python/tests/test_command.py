"""The `vzplan` command installed with the package (a console entry point over the extension)
runs the same program as the Rust binary: same output, same exit codes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import COLLECTIONS

VENV_BIN = Path(sys.executable).parent


def command() -> list[str]:
    exe = VENV_BIN / "vzplan"
    if not exe.exists():
        pytest.skip("the package's vzplan command is not installed in this environment")
    return [str(exe)]


def run(args: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run(args, capture_output=True, text=True)


def test_version_is_the_packages():
    from importlib.metadata import version

    for cmd in (command(), [sys.executable, "-m", "vzplan"]):
        done = run([*cmd, "--version"])
        assert done.returncode == 0
        assert done.stdout.strip() == f"vzplan {version('vzplan')}"


def test_the_command_writes_what_the_binary_writes(cli, tmp_path):
    inputs = sorted(str(p) for p in (COLLECTIONS / "yearly").glob("*.nc"))
    ours, theirs = tmp_path / "py.json", tmp_path / "cli.json"
    a = run([*command(), "build", *inputs, "-o", str(ours)])
    b = run([cli, "build", *inputs, "-o", str(theirs)])
    assert a.returncode == b.returncode == 0, a.stderr
    assert ours.read_bytes() == theirs.read_bytes()
    assert a.stdout.replace(str(ours), "OUT") == b.stdout.replace(str(theirs), "OUT")


@pytest.mark.parametrize(
    "args,code",
    [
        (["plan", str(COLLECTIONS / "padded" / "tas_part_1.nc"), str(COLLECTIONS / "padded" / "tas_part_2.nc"), "--json"], 3),
        (["plan", str(COLLECTIONS / "yearly" / "tas_day_2000.nc"), "--json"], 0),
        (["plan", "--no-such-flag"], 2),
        (["plan", str(COLLECTIONS / "bad" / "does_not_exist.nc")], 1),
    ],
)
def test_exit_codes_and_json_are_the_binarys(cli, args, code):
    a = run([*command(), *args])
    b = run([cli, *args])
    assert a.returncode == b.returncode == code, (a.stderr, b.stderr)
    if "--json" in args and code != 2:
        assert json.loads(a.stdout) == json.loads(b.stdout)
