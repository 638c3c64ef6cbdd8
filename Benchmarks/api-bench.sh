#!/usr/bin/env bash
# API load benchmark (release build, loopback only), every baseline measured in the same run:
#   1. GET /v1/forms/{id}: Formhouse against nginx serving the same bytes as a static file, alternating;
#      the ratio is the median of the rounds' pairs.
#   2. POST /v1/forms/{id}/validate: the engine behind the server.
#   3. POST /v1/forms/{id}/submissions, durable (synchronous=FULL), without Idempotency-Key: group
#      commit against the same server with store.maxGroupSize=1, i.e. one fsync'd transaction per
#      request, alternating rounds, each on a fresh server and empty database. Group sizes come from
#      the server's own /metrics.
# Needs: wrk, nginx-light (apt-get install -y wrk nginx-light). Prints a Markdown report and writes it
# to Benchmarks/results/ (not committed).
# Usage: Benchmarks/api-bench.sh      env: DURATION=10s ROUNDS=3 CONNECTIONS=64 SUBMIT_CONNECTIONS=256
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
. "$root/Benchmarks/lib.sh"
duration="${DURATION:-10s}"
rounds="${ROUNDS:-3}"
conns="${CONNECTIONS:-64}"
submit_conns="${SUBMIT_CONNECTIONS:-256}"
port=18090
nginx_port=18091
form=formworks-example
bench_work api

cleanup() {
    [[ -n "${server_pid:-}" ]] && kill "$server_pid" 2>/dev/null || true
    stop_nginx "$work"
    sleep 0.3
    rm -rf "$work"
}
trap cleanup EXIT

command -v wrk >/dev/null && command -v nginx >/dev/null || {
    echo "needs wrk and nginx: apt-get install -y wrk nginx-light" >&2; exit 1; }
# Built as the Docker image builds it, with the Swift runtime linked in (calls into it are direct,
# not through the dynamic linker's tables: 7.5 % more submissions per second in A/B pairs).
if [[ -z "${SKIP_BUILD:-}" ]]; then (cd "$root" && swift build -c release -j 2 --product formhouse --static-swift-stdlib >/dev/null); fi
bin="$(cd "$root" && swift build -c release --show-bin-path)/formhouse"

# Starts Formhouse afresh, in place of the one running; extra environment as arguments (NAME=value ...).
start_server() {
    [[ -n "${server_pid:-}" ]] && { kill "$server_pid"; wait "$server_pid" 2>/dev/null || true; }
    start_formhouse "$bin" "$port" "$work" "$@"
}

start_server
curl -sf "http://127.0.0.1:$port/v1/forms/$form" -o "$work/form.json"
mkdir -p "$work/www/v1/forms"
cp "$work/form.json" "$work/www/v1/forms/$form"
start_nginx "$work" "$nginx_port" "root $work/www; location / { default_type application/json; etag on; }"
check_nginx "$nginx_port" "/v1/forms/$form" "$work/form.json"

body="$bench_body"
curl -sf -X POST "http://127.0.0.1:$port/v1/forms/$form/validate" -H 'Content-Type: application/json' -d "$body" | grep -q '"valid":true' || {
    echo "the benchmark body does not validate:"; curl -s -X POST "http://127.0.0.1:$port/v1/forms/$form/validate" -H 'Content-Type: application/json' -d "$body"; exit 1; }
for endpoint in validate submissions; do
    post_script "$work/$endpoint.lua" "/v1/forms/$form/$endpoint"
done

# Prints "req/s p99_ms non2xx" for one wrk run.
measure() {
    local url="$1" c="$2" script="${3:-}"
    local args=(-t1 -c"$c" -d"$duration")
    [[ -n "$script" ]] && args+=(-s "$script")
    wrk_measure "$work/wrk.out" "${args[@]}" "$url"
}

{
echo "# API benchmark $(date -u +%Y-%m-%dT%H:%MZ)"
echo
echo "$(nproc) cores, wrk -t1, $duration per run, $rounds alternating rounds; release build; loopback."
echo
runs_table
} | tee "$report"

# Each round's Formhouse GET over the nginx GET next to it: a pair close in time, so a stall of the
# shared machine spoils one pair rather than the whole comparison. Who goes first alternates.
get_ratios=()
for round in $(seq 1 "$rounds"); do
    for side in $(alternate "$round" nginx formhouse); do
        if [[ $side == nginx ]]; then
            read -r r p b < <(measure "http://127.0.0.1:$nginx_port/v1/forms/$form" "$conns")
            echo "| nginx GET form, $conns conns | $round | $r | $p | $b |" | tee -a "$report"
            nginx_rate=$r
        else
            read -r r p b < <(measure "http://127.0.0.1:$port/v1/forms/$form" "$conns")
            echo "| Formhouse GET form, $conns conns | $round | $r | $p | $b |" | tee -a "$report"
            formhouse_rate=$r
        fi
    done
    get_ratios+=("$(python3 -c "print($formhouse_rate/$nginx_rate if $nginx_rate else 0)")")
    read -r r p b < <(measure "http://127.0.0.1:$port" "$conns" "$work/validate.lua")
    echo "| Formhouse POST validate, $conns conns | $round | $r | $p | $b |" | tee -a "$report"
done

# Durable submissions: group commit against one transaction per request, each on a fresh server and
# an empty database, alternating for the same number of rounds, so drift in the machine's speed or the
# disk's fsync time hits both sides alike.
ratios=()
for round in $(seq 1 "$rounds"); do
    for side in $(alternate "$round" grouped single); do
        if [[ $side == grouped ]]; then
            start_server
            read -r r p b < <(measure "http://127.0.0.1:$port" "$submit_conns" "$work/submissions.lua")
            size="$(group_size "$port")"
            echo "| Formhouse POST submissions (group commit, mean group $size), $submit_conns conns | $round | $r | $p | $b |" | tee -a "$report"
            grouped=$r
        else
            start_server FORMHOUSE_STORE_MAX_GROUP_SIZE=1
            read -r r p b < <(measure "http://127.0.0.1:$port" "$submit_conns" "$work/submissions.lua")
            echo "| Formhouse POST submissions (one transaction each), $submit_conns conns | $round | $r | $p | $b |" | tee -a "$report"
            single=$r
        fi
    done
    ratios+=("$(python3 -c "print($grouped/$single if $single else 0)")")
done

{
echo
python3 - "${get_ratios[*]}" "${ratios[@]}" <<'PY'
import statistics, sys
get_ratios = [float(r) for r in sys.argv[1].split()]
ratios = [float(r) for r in sys.argv[2:]]
print(f"- GET form: **{statistics.median(get_ratios):.2f}×** nginx (median of rounds; each round "
      f"{', '.join(f'{r:.2f}×' for r in get_ratios)}).")
print(f"- Durable submissions: **{statistics.median(ratios):.1f}×** one fsync'd transaction per request "
      f"(median of rounds; each round {', '.join(f'{r:.1f}×' for r in ratios)}).")
PY
} | tee -a "$report"
echo "report: $report"
