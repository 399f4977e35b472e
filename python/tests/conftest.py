"""Shared fixtures: the shipped collections and their expected outcomes (cases.json), the CLI."""

from __future__ import annotations

import glob
import json
import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
COLLECTIONS = ROOT / "testdata" / "collections"
CASES = json.loads((COLLECTIONS / "cases.json").read_text())["cases"]

# The CLI flags cases.json uses, as the Python API's keyword arguments.
_FLAGS = {"--patch": ("patch", None), "--var": ("var", str), "--chunk-bytes": ("chunk_bytes", int),
          "--stack-dim": ("stack_dim", str), "--concat-dim": ("concat_dim", str)}


def case_kwargs(case: dict) -> dict:
    args, kw = list(case.get("args") or []), {}
    while args:
        name, conv = _FLAGS[args.pop(0)]
        kw[name] = True if conv is None else conv(args.pop(0))
    return kw


def case_inputs(case: dict) -> list[str]:
    return [str(COLLECTIONS / p) for p in case["inputs"]]


def case_files(case: dict) -> list[str]:
    return [f for p in case_inputs(case) for f in sorted(glob.glob(p))]


@pytest.fixture(scope="session")
def cli() -> str:
    """The vzplan binary (VZPLAN_CLI, else target/debug/vzplan, built if missing)."""
    path = os.environ.get("VZPLAN_CLI") or str(ROOT / "target" / "debug" / "vzplan")
    if not os.path.exists(path):
        subprocess.run(["cargo", "build", "--quiet", "-p", "vzplan-cli"], cwd=ROOT, check=True)
    return path
