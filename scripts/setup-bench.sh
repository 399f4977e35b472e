#!/usr/bin/env bash
# A separate venv for benchmarks: the pinned packages plus kerchunk and VirtualiZarr (not needed by tests).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
venv="$root/.venv-bench"
bash "$root/scripts/setup-python.sh"
[ -x /usr/bin/time ] || { apt-get update -qq && apt-get install -y -qq time; }   # GNU time, for peak memory
if [ ! -x "$venv/bin/python" ]; then
  "$root/.venv/bin/python" -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$root/scripts/requirements.txt" \
    kerchunk==0.2.10 virtualizarr==2.8.0 xarray==2026.9.0 obstore==0.12.1
fi
