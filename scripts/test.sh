#!/usr/bin/env bash
# Sets up and runs every test: the Swift suites (engine, HTTP server, store, webhooks, API,
# durability), the HTTP parser fuzzer for a bounded time, the API against its OpenAPI document
# (schemathesis, fixed seed), and the browser tests; first, that the documentation's links resolve.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --test
python3 scripts/check-docs.py
swift build --build-tests
# The suites that stop database servers or bound how long things take run second, on their own:
# beside 130 other suites on two cores, a one-second connection wait measures the machine's load.
timed='PostgresSubmissionTests|ConnectionLeaseTests|ChangeNotificationTests|DeliveryWorkerTests'
swift test --skip-build --skip "$timed"
swift test --skip-build --filter "$timed"
Fuzz/run-http-fuzz.sh "${FUZZ_SECONDS:-60}"
Tests/api-fuzz/run.sh
Tests/browser/run.sh
