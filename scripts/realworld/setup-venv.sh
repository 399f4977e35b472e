#!/usr/bin/env bash
# Creates (or reuses) .venv-realworld from scripts/realworld/requirements.txt, with the same
# Python >= 3.12 that scripts/setup-python.sh picks for .venv.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
venv="$root/.venv-realworld"
req="$root/scripts/realworld/requirements.txt"
stamp="$venv/.requirements.sha"
want=$(sha256sum "$req" | cut -d' ' -f1)
if [ -x "$venv/bin/python" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ]; then
  exit 0
fi
bash "$root/scripts/setup-python.sh"
py=$(readlink -f "$root/.venv/bin/python")
echo "setup-venv: creating $venv with $py" >&2
rm -rf "$venv"
"$py" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$req"
echo "$want" > "$stamp"
