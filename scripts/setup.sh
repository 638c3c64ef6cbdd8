#!/usr/bin/env bash
# Installs what building and running Formhouse needs on a fresh Debian machine with Swift 6.3.
# `--test` adds what the full test suite needs (browser, Python driver).
set -euo pipefail
packages=(libcurl4-openssl-dev libsqlite3-dev)
if [ "${1:-}" = "--test" ]; then packages+=(chromium chromium-driver openssl); fi
missing=()
for p in "${packages[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
if [ "${1:-}" = "--test" ]; then
  python3 -c 'import selenium, pytest' 2>/dev/null || python3 -m pip install -q selenium pytest
fi
