#!/usr/bin/env bash
# Installs Debian's chromium (headless HTML report check, tests/conformance/test_html.py) if it is missing.
set -euo pipefail
if command -v chromium >/dev/null 2>&1; then
  exit 0
fi
if [ "$(id -u)" != 0 ] && ! command -v sudo >/dev/null 2>&1; then
  echo "setup-chromium: chromium is not installed and we are not root; install Debian's 'chromium' package" >&2
  exit 1
fi
SUDO=""
[ "$(id -u)" = 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null
command -v chromium >/dev/null
