#!/usr/bin/env bash
# Azure test tools: azurite (Microsoft's Azure Storage emulator, from npm) under .tools/azurite, and
# the Python clients the Azure read-back needs (azure-storage-blob to upload, adlfs for fsspec's az
# filesystem) in the project venv. Pinned; idempotent.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/setup-python.sh"
tools="$root/.tools/azurite"
if [ ! -x "$tools/node_modules/.bin/azurite-blob" ]; then
  mkdir -p "$tools"
  npm install --silent --no-audit --no-fund --prefix "$tools" azurite@3.37.0 >/dev/null
fi
if ! "$root/.venv/bin/python" -c 'import adlfs, azure.storage.blob' 2>/dev/null; then
  "$root/.venv/bin/python" -m pip install --quiet --disable-pip-version-check \
    azure-storage-blob==12.31.1 adlfs==2026.8.0
fi
