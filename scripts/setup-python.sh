#!/usr/bin/env bash
# Creates (or reuses) a venv with pinned packages. Idempotent: a stamp per requirements file records
# the hash it was installed from; a file that changed since gives a fresh venv.
#   scripts/setup-python.sh [test]    .venv: scripts/requirements.txt (all the tests need; includes demo)
#   scripts/setup-python.sh demo      .venv: scripts/requirements-demo.txt (opening a result: numpy,
#                                     zarr, fsspec, xarray, dask), the rest added by a later `test`
#   scripts/setup-python.sh realworld .venv-realworld: scripts/requirements-realworld.txt (the sweep)
#   scripts/setup-python.sh venv      .venv with no packages yet (its interpreter only)
# zarr >= 3.2 needs Python >= 3.12; pyenv on these machines provides it.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
what=${1:-test}
case "$what" in
  test) venv=$root/.venv; reqs=(requirements-demo.txt requirements.txt) ;;
  demo) venv=$root/.venv; reqs=(requirements-demo.txt) ;;
  venv) venv=$root/.venv; reqs=() ;;
  realworld) venv=$root/.venv-realworld; reqs=(requirements-realworld.txt) ;;
  *) echo "usage: $0 [test|demo|realworld|venv]" >&2; exit 2 ;;
esac

# One setup at a time per venv (test.sh runs some setups in the background).
exec 9>"$venv.lock"
flock 9

stamp() { echo "$venv/.stamp-$1.sha"; }
want() { sha256sum "$root/scripts/$1" | cut -d' ' -f1; }

find_python() {
  local cand
  for cand in "${VZPLAN_PYTHON:-}" python3.13 python3.12 \
      "$(ls -d /root/.pyenv/versions/3.12*/bin/python 2>/dev/null | tail -1)" \
      "$(ls -d "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.1[2-9]*/bin/python 2>/dev/null | tail -1)"; do
    [ -n "$cand" ] || continue
    if command -v "$cand" >/dev/null 2>&1 && "$cand" -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2>/dev/null; then
      command -v "$cand"; return 0
    fi
  done
  echo "setup-python: need Python >= 3.12 (set VZPLAN_PYTHON, or install one with pyenv)" >&2
  return 1
}

# A requirements file installed from other contents than today's: start over.
for s in "$venv"/.stamp-*.sha; do
  [ -e "$s" ] || continue
  f=${s#"$venv/.stamp-"}; f=${f%.sha}
  if [ ! -e "$root/scripts/$f" ] || [ "$(cat "$s")" != "$(want "$f")" ]; then
    echo "setup-python: scripts/$f changed; recreating $venv" >&2
    rm -rf "$venv"; break
  fi
done

if [ ! -x "$venv/bin/python" ]; then
  py=$(find_python)
  echo "setup-python: creating $venv with $py" >&2
  rm -rf "$venv"
  "$py" -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip
fi

# The last file names the earlier ones (-r): one pip run installs them all; each gets its stamp.
stale=0
for f in "${reqs[@]}"; do
  [ "$(cat "$(stamp "$f")" 2>/dev/null)" = "$(want "$f")" ] || stale=1
done
[ "$stale" = 1 ] || exit 0
# VZPLAN_SETUP_VERBOSE=1 (scripts/demo.sh): pip's line per package instead of minutes of silence.
pipq=(--quiet)
[ -n "${VZPLAN_SETUP_VERBOSE:-}" ] && pipq=(--progress-bar off)
"$venv/bin/python" -m pip install "${pipq[@]}" --disable-pip-version-check -r "$root/scripts/${reqs[-1]}"
for f in "${reqs[@]}"; do
  want "$f" > "$(stamp "$f")"
done
