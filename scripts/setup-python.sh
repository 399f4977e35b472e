#!/usr/bin/env bash
# Creates (or reuses) the project venv at .venv with the pinned packages of scripts/requirements.txt.
# zarr >= 3.2 needs Python >= 3.12; pyenv on these machines provides it.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
venv="$root/.venv"
req="$root/scripts/requirements.txt"
stamp="$venv/.requirements.sha"
want=$(sha256sum "$req" | cut -d' ' -f1)
if [ -x "$venv/bin/python" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ]; then
  exit 0
fi
py=""
for cand in "${VZPLAN_PYTHON:-}" python3.13 python3.12 \
    "$(ls -d /root/.pyenv/versions/3.12*/bin/python 2>/dev/null | tail -1)" \
    "$(ls -d "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.1[2-9]*/bin/python 2>/dev/null | tail -1)"; do
  [ -n "$cand" ] || continue
  if command -v "$cand" >/dev/null 2>&1 && "$cand" -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2>/dev/null; then
    py=$(command -v "$cand"); break
  fi
done
if [ -z "$py" ]; then
  echo "setup-python: need Python >= 3.12 (set VZPLAN_PYTHON, or install one with pyenv)" >&2
  exit 1
fi
echo "setup-python: creating $venv with $py" >&2
rm -rf "$venv"
"$py" -m venv "$venv"
# VZPLAN_SETUP_VERBOSE=1 (scripts/demo.sh): pip's line per package instead of minutes of silence.
pipq=(--quiet)
[ -n "${VZPLAN_SETUP_VERBOSE:-}" ] && pipq=(--progress-bar off)
"$venv/bin/python" -m pip install "${pipq[@]}" --disable-pip-version-check --upgrade pip
"$venv/bin/python" -m pip install "${pipq[@]}" --disable-pip-version-check -r "$req"
echo "$want" > "$stamp"
