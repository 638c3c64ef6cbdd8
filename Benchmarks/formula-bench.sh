#!/usr/bin/env bash
# Computed inputs benchmark (release build, loopback only), its baseline measured in the same run:
#   POST /v1/forms/invoice-formulas/validate (ten formulas: per-line totals and labels over a repeat
#   of ten lines, folds over the lines, an if, round and concat; two visibleWhen conditions) against
#   POST /v1/forms/invoice-plain/validate, the same inputs with no formula and no condition, with the
#   same body, alternating rounds on one server. The ratio is what the formulas and conditions cost.
# Needs: wrk (apt-get install -y wrk). Prints a Markdown report and writes it to Benchmarks/results/
# (not committed).
# Usage: Benchmarks/formula-bench.sh      env: DURATION=10s ROUNDS=3 CONNECTIONS=64
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
. "$root/Benchmarks/lib.sh"
duration="${DURATION:-10s}"
rounds="${ROUNDS:-3}"
conns="${CONNECTIONS:-64}"
port=18095
token=benchmark-admin-token-000000
bench_work formula
formhouse_release

start_formhouse "$bin" "$port" "$work"
base="http://127.0.0.1:$port"
values="$root/Benchmarks/forms/invoice-values.json"
for form in invoice-formulas invoice-plain; do
    curl -sf -X PUT "$base/v1/admin/forms/$form" -H "Authorization: Bearer $token" -H 'Content-Type: application/json' \
        --data-binary @"$root/Benchmarks/forms/$form.json" >/dev/null
    curl -sf -X POST "$base/v1/forms/$form/validate" -H 'Content-Type: application/json' --data-binary @"$values" | grep -q '"valid":true' || {
        echo "the benchmark values do not validate against $form" >&2; exit 1; }
    post_script "$work/$form.lua" "/v1/forms/$form/validate" "$values"
done
# The computed values are there, so that what is measured computes them.
curl -sf -X POST "$base/v1/forms/invoice-formulas/validate" -H 'Content-Type: application/json' --data-binary @"$values" \
    | grep -q '"grand":' || { echo "no computed total in the answer" >&2; exit 1; }

measure() {
    wrk_measure "$work/wrk.out" -t1 -c"$conns" -d"$duration" -s "$1" "$base"
}

{
echo "# Computed inputs benchmark $(date -u +%Y-%m-%dT%H:%MZ)"
echo
echo "$(nproc) cores, wrk -t1, $conns connections, $duration per run, $rounds alternating rounds; release build;"
echo "loopback. The same body (ten lines) to a form with ten formulas and two conditions, and to the same form without them."
echo
runs_table
} | tee "$report"

ratios=()
for round in $(seq 1 "$rounds"); do
    for side in $(alternate "$round" plain formulas); do
        read -r r p b < <(measure "$work/invoice-$side.lua")
        echo "| POST validate, $side | $round | $r | $p | $b |" | tee -a "$report"
        if [[ $side == plain ]]; then plain_rate=$r; else formula_rate=$r; fi
    done
    ratios+=("$(ratio "$formula_rate" "$plain_rate")")
done

{
echo
ratio_summary "with formulas / without" "${ratios[@]}"
} | tee -a "$report"
echo "report: $report"
