#!/usr/bin/env bash
# Browser tests: installs headless Chromium, its driver, selenium and pytest when missing, builds the
# formhouse binary, and runs the pytest suite against a real server. Everything the run writes
# (Chromium's profile and socket, pytest's directories with the server logs, screenshots) goes under
# one temporary directory: removed when the tests pass, kept and printed when they fail. Screenshots go
# to $FORMHOUSE_BROWSER_ARTIFACTS instead when it is set, and stay there.
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
work="$(mktemp -d -t formhouse-browser-XXXXXX)"
status=1
finish() {
  if [[ $status -eq 0 ]]; then rm -rf "$work"; else echo "browser tests failed; screenshots, server logs and Chromium's files: $work"; fi
}
trap finish EXIT
export FORMHOUSE_BROWSER_ARTIFACTS="${FORMHOUSE_BROWSER_ARTIFACTS:-$work/screenshots}"
mkdir -p "$work/tmp"
# Chromium and pytest put their temporary files under $TMPDIR; Chromium leaves its socket directory behind.
# status stays 1 unless pytest itself passes, so a run stopped by a signal keeps its files.
trap 'exit 130' INT
trap 'exit 143' TERM
TMPDIR="$work/tmp" python3 -m pytest -p no:cacheprovider -q --basetemp "$work/pytest" Tests/browser "$@" && status=0 || status=$?
exit $status
