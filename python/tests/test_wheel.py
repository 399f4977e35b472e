"""The wheel as a Python user gets it: installed into a fresh virtual environment whose PATH has no
Rust toolchain, next to virtual-tiff (as in every VirtualiZarr environment), it gives the
`vzplan` command and `vzplan.open_dataset`, which read the shipped netCDF and TIFF data with
nothing configured.

The wheel is VZPLAN_WHEEL when set (the test command builds it once), else built here.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from conftest import ROOT

# What the user installs with the wheel for this test, pinned as the project's readers are.
EXTRAS = ["netCDF4", "tifffile", "imagecodecs", "virtual-tiff"]


def pins() -> list[str]:
    text = (ROOT / "scripts" / "requirements.txt").read_text()
    found = dict(re.findall(r"^([A-Za-z0-9_.-]+)==(\S+)", text, re.M))
    extra = {"virtual-tiff": "0.5.0"}
    return [f"{n}=={found.get(n) or extra[n]}" for n in EXTRAS]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    given = os.environ.get("VZPLAN_WHEEL")
    if given:
        return Path(given)
    out = tmp_path_factory.mktemp("wheels")
    maturin = Path(sys.executable).parent / "maturin"
    subprocess.run([str(maturin), "build", "--quiet", "-o", str(out)], cwd=ROOT, check=True)
    return next(out.glob("vzplan-*.whl"))


@pytest.fixture(scope="module")
def venv(tmp_path_factory, wheel) -> Path:
    """A fresh venv with the wheel and what a user adds to it, and a PATH without Rust."""
    env_dir = tmp_path_factory.mktemp("clean") / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(env_dir)], check=True)
    pip = [str(env_dir / "bin" / "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    subprocess.run([*pip, str(wheel), *pins()], check=True)
    return env_dir


def clean_env(venv: Path) -> dict[str, str]:
    """The user's environment: the venv's bin, the system's, nothing of cargo's or rustup's."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CARGO", "RUST", "VIRTUAL_ENV"))}
    env["PATH"] = f"{venv / 'bin'}:/usr/local/bin:/usr/bin:/bin"
    return env


def run(venv: Path, args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(args, capture_output=True, text=True, env=clean_env(venv), cwd=cwd)


def test_the_wheel_is_abi3_and_names_the_platform_it_supports(wheel):
    # One wheel for every CPython >= 3.10; the glibc it needs is in its tag.
    assert re.match(r"vzplan-[^-]+-cp310-abi3-manylinux_2_\d+_x86_64\.whl$", wheel.name), wheel.name


def test_the_command_and_open_dataset_need_nothing_but_the_wheel(venv, tmp_path):
    py = str(venv / "bin" / "python")
    no_rust = run(venv, [py, "-c", "import shutil; print(shutil.which('cargo'), shutil.which('rustc'))"], tmp_path)
    assert no_rust.stdout.split() == ["None", "None"]
    from importlib.metadata import version

    done = run(venv, ["vzplan", "--version"], tmp_path)
    assert done.returncode == 0 and done.stdout.strip() == f"vzplan {version('vzplan')}", done.stderr
    daily = sorted(str(p) for p in (ROOT / "testdata/collections/daily20").glob("*.nc"))
    built = run(venv, ["vzplan", "build", *daily, "-o", "refs.json"], tmp_path)
    assert built.returncode == 0 and (tmp_path / "refs.zarr.json").exists(), built.stderr
    padded = str(ROOT / "testdata/collections/padded/*.nc")
    assert run(venv, ["vzplan", "plan", padded, "--json"], tmp_path).returncode == 3
    script = textwrap.dedent(
        f"""
        import glob, numpy as np, tifffile, xarray as xr, zarr
        import virtual_tiff  # registers codecs of its own under the imagecodecs_* names
        import vzplan
        files = sorted(glob.glob({str(ROOT / 'testdata/collections/daily20/*.nc')!r}))
        ds = vzplan.open_dataset(files)
        # xarray's own combination of the files (open_mfdataset without dask, which the user may lack).
        want = xr.combine_by_coords([xr.open_dataset(f, engine="netcdf4") for f in files])
        xr.testing.assert_equal(ds.load(), want.load())
        print("netcdf ok")
        for name in ["jpeg_u8.tif", "pred3_f32.tif", "cog_chain.tif"]:
            path = {str(ROOT / 'testdata/tiff')!r} + "/" + name
            got = vzplan.open_dataset(path)
            with tifffile.TiffFile(path) as t:
                want = t.series[0].levels[0].asarray()
            arr = got[list(got.data_vars)[0]].values
            assert np.array_equal(arr.reshape(want.shape), want), name
            print(name, "ok")
        """
    )
    opened = run(venv, [py, "-c", script], tmp_path)
    assert opened.returncode == 0, opened.stderr[-3000:]
    assert opened.stdout.split("\n")[:4] == ["netcdf ok", "jpeg_u8.tif ok", "pred3_f32.tif ok", "cog_chain.tif ok"]
