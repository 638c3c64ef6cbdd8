#!/usr/bin/env bash
# Browser tests: installs headless Chromium, its driver, selenium and pytest when missing, builds the
# formhouse binary, and runs the pytest suite against a real server. Screenshots go to
# $FORMHOUSE_BROWSER_ARTIFACTS (default: a new temporary directory, printed at the start).
set -euo pipefail
cd "$(dirname "$0")/../.."

if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends chromium chromium-driver
fi
if ! python3 -c "import selenium, pytest" 2>/dev/null; then
  # Debian's own python3 refuses plain pip installs (PEP 668); a pyenv or venv python does not.
  python3 -m pip install -q selenium pytest || python3 -m pip install -q --break-system-packages selenium pytest
fi

if [[ -z "${FORMHOUSE_BIN:-}" ]]; then
  swift build -j 2 --product formhouse
  FORMHOUSE_BIN="$(swift build --show-bin-path)/formhouse"
  export FORMHOUSE_BIN
fi
export FORMHOUSE_BROWSER_ARTIFACTS="${FORMHOUSE_BROWSER_ARTIFACTS:-$(mktemp -d -t formhouse-browser-XXXXXX)}"
echo "browser test screenshots: $FORMHOUSE_BROWSER_ARTIFACTS"

exec python3 -m pytest -p no:cacheprovider -q Tests/browser "$@"
