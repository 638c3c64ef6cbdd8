#!/usr/bin/env bash
# PostgreSQL benchmark (release build, loopback only), every baseline measured in the same run:
#   1. POST /v1/forms/{id}/submissions on one node over PostgreSQL, durable (fsync and
#      synchronous_commit on): group commit against the same node with store.maxGroupSize=1, i.e. one
#      committed transaction per request; alternating rounds, each on a fresh database.
#   2. The same load through nginx (deploy/nginx.conf's proxy settings) to one node, then to two nodes
#      on the same database; alternating rounds.
#   3. The embedded SQLite store (synchronous=FULL) beside them, on the same machine and disk.
# A throwaway PostgreSQL cluster is made in a temporary directory (as the postgres user when run as
# root) and removed at the end. Needs: wrk, nginx-light, postgresql. Prints a Markdown report and
# writes it to Benchmarks/results/ (not committed).
# Usage: Benchmarks/postgres-bench.sh     env: DURATION=10s ROUNDS=3 SUBMIT_CONNECTIONS=256 SKIP_BUILD=1
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
. "$root/Benchmarks/lib.sh"
duration="${DURATION:-10s}"
rounds="${ROUNDS:-3}"
conns="${SUBMIT_CONNECTIONS:-256}"
port_a=18190
port_b=18191
nginx_port=18192
pg_port=18193
form=formworks-example
secret_key="$(head -c 32 /dev/zero | base64)"
bench_work postgres
work_b="$work/node-b"
mkdir -p "$work_b"

pg_bin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)"
[[ -x "$pg_bin/initdb" ]] || { echo "needs PostgreSQL's server: apt-get install -y postgresql" >&2; exit 1; }
command -v wrk >/dev/null && command -v nginx >/dev/null || {
    echo "needs wrk and nginx: apt-get install -y wrk nginx-light" >&2; exit 1; }

# PostgreSQL refuses to run as root.
as_postgres() { if [[ $(id -u) == 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi; }
pg_dir="$work/postgres"
mkdir -p "$pg_dir"
[[ $(id -u) == 0 ]] && chown postgres "$pg_dir"

cleanup() {
    [[ -n "${server_pid:-}" ]] && kill "$server_pid" 2>/dev/null || true
    [[ -n "${node_b_pid:-}" ]] && kill "$node_b_pid" 2>/dev/null || true
    stop_nginx "$work"
    as_postgres "$pg_bin/pg_ctl" -D "$pg_dir/data" -m immediate -w stop >/dev/null 2>&1 || true
    sleep 0.3
    rm -rf "$work"
}
trap cleanup EXIT

as_postgres "$pg_bin/initdb" -D "$pg_dir/data" -U postgres --auth=trust -E UTF8 >/dev/null
# Durable as in production: fsync and synchronous_commit stay on.
as_postgres "$pg_bin/pg_ctl" -D "$pg_dir/data" -l "$pg_dir/server.log" -w \
    -o "-p $pg_port -k $pg_dir -c listen_addresses=127.0.0.1 -c max_connections=200 -c shared_buffers=128MB" start >/dev/null

if [[ -z "${SKIP_BUILD:-}" ]]; then (cd "$root" && swift build -c release -j 2 --product formhouse --static-swift-stdlib >/dev/null); fi
bin="$(cd "$root" && swift build -c release --show-bin-path)/formhouse"

database=0
# fresh_database: a new empty database; its URL lands in `database_url`.
fresh_database() {
    database=$((database + 1))
    as_postgres "$pg_bin/createdb" -h "$pg_dir" -p "$pg_port" -U postgres "bench$database"
    database_url="postgres://postgres@127.0.0.1:$pg_port/bench$database?sslmode=disable"
}

stop_nodes() {
    [[ -n "${server_pid:-}" ]] && { kill "$server_pid"; wait "$server_pid" 2>/dev/null || true; server_pid=; }
    [[ -n "${node_b_pid:-}" ]] && { kill "$node_b_pid"; wait "$node_b_pid" 2>/dev/null || true; node_b_pid=; }
    return 0
}

# start_nodes COUNT [NAME=value ...]: COUNT nodes (1 or 2) on a fresh database.
start_nodes() {
    local count="$1"
    shift
    stop_nodes
    fresh_database
    start_formhouse "$bin" "$port_a" "$work" FORMHOUSE_DATABASE_URL="$database_url" FORMHOUSE_SECRET_KEY="$secret_key" "$@"
    if [[ $count == 2 ]]; then
        local first=$server_pid
        start_formhouse "$bin" "$port_b" "$work_b" FORMHOUSE_DATABASE_URL="$database_url" FORMHOUSE_SECRET_KEY="$secret_key" "$@"
        node_b_pid=$server_pid
        server_pid=$first
    fi
}

# proxy COUNT: nginx in front of the first COUNT nodes, with deploy/nginx.conf's upstream settings
# (kept-alive HTTP/1.1 connections to the nodes), one worker, no access log.
proxy() {
    stop_nginx "$work"
    sleep 0.2
    local servers="server 127.0.0.1:$port_a;"
    [[ $1 == 2 ]] && servers+=" server 127.0.0.1:$port_b;"
    start_nginx "$work" "$nginx_port" \
        'proxy_http_version 1.1; proxy_set_header Connection ""; location / { proxy_pass http://formhouse; }' \
        "upstream formhouse { $servers keepalive 64; }"
    for _ in $(seq 1 50); do curl -sf "http://127.0.0.1:$nginx_port/healthz" >/dev/null && return; sleep 0.1; done
    echo "nginx did not start" >&2; exit 1
}

post_script "$work/submissions.lua" "/v1/forms/$form/submissions"

# Prints "req/s p99_ms non2xx" for one wrk run against PORT.
measure() {
    wrk_measure "$work/wrk.out" -t1 -c"$conns" -d"$duration" -s "$work/submissions.lua" "http://127.0.0.1:$1"
}

{
echo "# PostgreSQL benchmark $(date -u +%Y-%m-%dT%H:%MZ)"
echo
echo "$(nproc) cores, PostgreSQL $("$pg_bin/postgres" --version | awk '{print $3}') (fsync, synchronous_commit on), wrk -t1 -c$conns, $duration per run, $rounds alternating rounds; release build; loopback."
echo
runs_table
} | tee "$report"

group_ratios=()
node_ratios=()
sqlite_rates=()
grouped_rates=()
for round in $(seq 1 "$rounds"); do
    for side in $(alternate "$round" grouped single); do
        if [[ $side == grouped ]]; then
            start_nodes 1
            read -r r p b < <(measure "$port_a")
            echo "| PostgreSQL, one node, group commit (mean group $(group_size "$port_a")) | $round | $r | $p | $b |" | tee -a "$report"
            grouped=$r
        else
            start_nodes 1 FORMHOUSE_STORE_MAX_GROUP_SIZE=1
            read -r r p b < <(measure "$port_a")
            echo "| PostgreSQL, one node, one transaction per request | $round | $r | $p | $b |" | tee -a "$report"
            single=$r
        fi
    done
    group_ratios+=("$(python3 -c "print($grouped/$single if $single else 0)")")
    grouped_rates+=("$grouped")

    for count in $(alternate "$round" 1 2); do
        start_nodes "$count"
        proxy "$count"
        read -r r p b < <(measure "$nginx_port")
        echo "| PostgreSQL, $count node(s) behind nginx, group commit | $round | $r | $p | $b |" | tee -a "$report"
        if [[ $count == 1 ]]; then one=$r; else two=$r; fi
    done
    node_ratios+=("$(python3 -c "print($two/$one if $one else 0)")")
    stop_nginx "$work"

    stop_nodes
    start_formhouse "$bin" "$port_a" "$work"
    read -r r p b < <(measure "$port_a")
    echo "| SQLite (synchronous=FULL), group commit | $round | $r | $p | $b |" | tee -a "$report"
    sqlite_rates+=("$r")
done
stop_nodes

{
echo
python3 - "${group_ratios[*]}" "${node_ratios[*]}" "${grouped_rates[*]}" "${sqlite_rates[*]}" <<'PY'
import statistics, sys
group, nodes, pg, sqlite = ([float(v) for v in arg.split()] for arg in sys.argv[1:5])
each = lambda rs, d=1: ", ".join(f"{r:.{d}f}×" for r in rs)
print(f"- Group commit on PostgreSQL: **{statistics.median(group):.1f}×** one committed transaction per request "
      f"(median of rounds; each round {each(group)}).")
print(f"- Two nodes against one, both behind nginx: **{statistics.median(nodes):.2f}×** (each round {each(nodes, 2)}).")
print(f"- PostgreSQL one node against SQLite: **{statistics.median(pg) / statistics.median(sqlite):.2f}×** "
      f"(medians {statistics.median(pg):.0f} and {statistics.median(sqlite):.0f} req/s).")
PY
} | tee -a "$report"
echo "report: $report"
