#!/usr/bin/env bash
# Sets up, builds and starts Formhouse with its embedded defaults: SQLite under ./data, the sample
# forms in config/forms, http://127.0.0.1:8080. Extra arguments go to `formhouse serve`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
# As the Docker image builds it: the Swift runtime linked in, which is faster.
swift build -c release --product formhouse --static-swift-stdlib
exec "$(swift build -c release --show-bin-path)/formhouse" serve "$@"
