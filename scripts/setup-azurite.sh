#!/usr/bin/env bash
# Azure test tools: azurite (Microsoft's Azure Storage emulator, from npm) under .tools/azurite, and
# the Python clients the Azure read-back needs (azure-storage-blob to upload, adlfs for fsspec's az
# filesystem) in the project venv. Pinned; idempotent.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/setup-python.sh"
tools="$root/.tools/azurite"
if ! command -v npm >/dev/null; then
  # Every machine of this kind has Node.js; elsewhere take Debian's.
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends nodejs npm >/dev/null
fi
if [ ! -x "$tools/node_modules/.bin/azurite-blob" ]; then
  mkdir -p "$tools"
  npm install --silent --no-audit --no-fund --prefix "$tools" azurite@3.37.0 >/dev/null
fi
if ! "$root/.venv/bin/python" -c 'import adlfs, azure.storage.blob' 2>/dev/null; then
  "$root/.venv/bin/python" -m pip install --quiet --disable-pip-version-check \
    azure-storage-blob==12.31.1 adlfs==2026.8.0
fi
