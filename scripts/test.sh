#!/usr/bin/env bash
# Sets up and runs every test: the Swift suites (engine, HTTP server, store, webhooks, API,
# durability), the HTTP parser fuzzer for a bounded time, the API against its OpenAPI document
# (schemathesis, fixed seed), and the browser tests; first, that the documentation's links resolve.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --test
python3 scripts/check-docs.py
swift build --build-tests
swift test --skip-build
Fuzz/run-http-fuzz.sh "${FUZZ_SECONDS:-60}"
Tests/api-fuzz/run.sh
Tests/browser/run.sh
