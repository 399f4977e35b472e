#!/usr/bin/env bash
# The real writers' command-line tools the tests run, from Debian's packages when missing: GDAL
# (gdal_translate, and its Python API for one fixture), netCDF-C (nccopy: the batch report's shell
# loop, the sweep) and HDF5 (h5repack). Idempotent; needs root (or sudo) only to install.
set -euo pipefail
need=()
command -v gdal_translate >/dev/null || need+=(gdal-bin)
command -v nccopy >/dev/null || need+=(netcdf-bin)
command -v h5repack >/dev/null || need+=(hdf5-tools)
/usr/bin/python3 -c 'import osgeo.gdal' 2>/dev/null || need+=(python3-gdal python3-numpy)
[ ${#need[@]} -eq 0 ] && exit 0
SUDO=""
if [ "$(id -u)" != 0 ]; then
  command -v sudo >/dev/null || { echo "setup-tools: install ${need[*]} (not root, no sudo)" >&2; exit 1; }
  SUDO=sudo
fi
echo "setup-tools: installing ${need[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
