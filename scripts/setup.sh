#!/usr/bin/env bash
# Installs what building and running Formhouse needs on a fresh Debian machine with Swift 6.3.
# `--test` adds what the full test suite needs (browser, Python driver, PostgreSQL's binaries for the
# PostgreSQL store's tests, which start their own throwaway server, moto_server for the S3 storage's
# tests, and tuspy, a tus client).
set -euo pipefail
packages=(libcurl4-openssl-dev libsqlite3-dev)
if [ "${1:-}" = "--test" ]; then packages+=(chromium chromium-driver openssl postgresql); fi
SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
missing=()
for p in "${packages[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
if [ "${1:-}" = "--test" ] && ! { python3 -c 'import selenium, pytest, moto, flask_cors, tusclient' 2>/dev/null && command -v moto_server >/dev/null; }; then
  # A pyenv or venv python takes pip installs; Debian's own refuses them (PEP 668) or has no pip,
  # and then its packages are the way (Debian has no moto: S3 storage tests need pip).
  python3 -m pip install -q selenium pytest 'moto[server]' tuspy 2>/dev/null \
    || python3 -m pip install -q --break-system-packages selenium pytest 'moto[server]' tuspy 2>/dev/null \
    || { $SUDO apt-get update -q && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends python3-selenium python3-pytest python3-tuspy; }
  python3 -c 'import selenium, pytest, tusclient'
  python3 -c 'import moto, flask_cors' && command -v moto_server >/dev/null \
    || { echo "moto_server is missing: pip install 'moto[server]' (the S3 storage tests start it)" >&2; exit 1; }
fi
