# Shared by the benchmark scripts: their work folder and report, Formhouse and nginx as the servers
# under test, wrk's figures, and the submission the API benchmarks post. Sourced after `root` (the
# repository) is set.

# bench_work NAME: a fresh folder in `work`, readable by nginx's unprivileged workers, and in `report`
# the path of this run's report, Benchmarks/results/NAME-<UTC time>.md (not committed).
bench_work() {
    work="$(mktemp -d)"
    chmod 755 "$work"
    mkdir -p "$root/Benchmarks/results"
    report="$root/Benchmarks/results/$1-$(date -u +%Y%m%dT%H%M%SZ).md"
}

# formhouse_release: stops the server in `server_pid` and removes `work` on exit, checks for wrk,
# builds the release binary (unless SKIP_BUILD is set) and leaves its path in `bin`.
formhouse_release() {
    trap 'if [[ -n "${server_pid:-}" ]]; then kill "$server_pid" 2>/dev/null || true; fi; sleep 0.3; rm -rf "$work"' EXIT
    command -v wrk >/dev/null || { echo "needs wrk: apt-get install -y wrk" >&2; exit 1; }
    if [[ -z "${SKIP_BUILD:-}" ]]; then (cd "$root" && swift build -c release -j 2 --product formhouse --static-swift-stdlib >/dev/null); fi
    bin="$(cd "$root" && swift build -c release --show-bin-path)/formhouse"
}

# start_formhouse BINARY PORT WORK [NAME=value ...]: `BINARY serve` in the background on PORT with an
# empty WORK/data, the sample forms, Public/ and rate limits too high to reach, plus the environment
# given; its pid lands in `server_pid`. Exits when /healthz does not answer within 10 s.
start_formhouse() {
    local bin="$1" port="$2" work="$3"
    shift 3
    rm -rf "$work/data"
    env FORMHOUSE_ADMIN_TOKENS=benchmark-admin-token-000000 FORMHOUSE_RATE_LIMIT_BURST=100000000 \
        FORMHOUSE_RATE_LIMIT_PER_SECOND=100000000 "$@" "$bin" serve --port "$port" --data-dir "$work/data" \
        --forms-dir "$root/config/forms" --public-dir "$root/Public" --config /nonexistent --log-level error \
        >"$work/server.log" 2>&1 &
    server_pid=$!
    for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && return; sleep 0.1; done
    echo "formhouse did not start" >&2; cat "$work/server.log" >&2; exit 1
}

# start_nginx WORK PORT LOCATIONS [HTTP]: one worker, no access log, unlimited keep-alive, listening on
# 127.0.0.1:PORT with the given `location` lines, and HTTP's lines in the http block (an upstream);
# its pid lands in WORK/nginx.pid.
start_nginx() {
    local work="$1" port="$2" locations="$3" http="${4:-}"
    cat >"$work/nginx.conf" <<NGINX
worker_processes 1;
daemon on;
pid $work/nginx.pid;
error_log $work/nginx-error.log;
events { worker_connections 8192; }
http {
    access_log off;
    keepalive_requests 10000000;
    $http
    server {
        listen 127.0.0.1:$port backlog=1024;
        $locations
    }
}
NGINX
    nginx -c "$work/nginx.conf" -p "$work"
}

# check_nginx PORT PATH FILE: waits for nginx to answer PATH, then exits unless it serves FILE's bytes.
check_nginx() {
    local url="http://127.0.0.1:$1$2" expected="$3"
    for _ in $(seq 1 50); do curl -sf "$url" -o /dev/null && break; sleep 0.1; done
    cmp -s <(curl -s "$url") "$expected" || { echo "nginx does not serve $expected at $2" >&2; exit 1; }
}

# stop_nginx WORK: stops the nginx that start_nginx started in WORK, if any.
stop_nginx() {
    [[ -f "$1/nginx.pid" ]] && kill "$(cat "$1/nginx.pid")" 2>/dev/null || true
}

# wrk_rate FILE: the requests per second of the wrk report in FILE.
wrk_rate() {
    awk '/^Requests\/sec:/ {print $2}' "$1"
}

# wrk_p99_ms FILE: the 99th-percentile latency of the `wrk --latency` report in FILE, in milliseconds
# (wrk writes it as 850.00us, 1.20ms or 1.10s).
wrk_p99_ms() {
    python3 -c "import sys; v=sys.argv[1]; u=v.lstrip('0123456789.'); n=float(v[:len(v)-len(u)]); print(round(n*{'us':0.001,'ms':1,'s':1000}[u],2))" \
        "$(awk '$1 == "99%" {print $2}' "$1")"
}

# wrk_measure OUT WRK-ARGUMENTS...: one `wrk --latency` run with the arguments given, its report kept in
# OUT; prints "req/s p99_ms non2xx".
wrk_measure() {
    local out="$1"
    shift
    wrk --latency "$@" >"$out" 2>&1
    local bad
    bad="$(awk '/Non-2xx/ {print $4}' "$out")"
    echo "$(wrk_rate "$out") $(wrk_p99_ms "$out") ${bad:-0}"
}

# A submission to the sample form `formworks-example` that validates.
bench_body='{"values": {"name": "Ana Souza", "email": "ana@example.org", "about": "Hello", "text-what-is-your-mothers-name": "Maria", "phone": "(11) 91234-5678", "age": "30"}}'

# post_script FILE PATH [BODY_FILE]: a wrk script that POSTs bench_body, or the JSON in BODY_FILE, to PATH.
post_script() {
    if [[ $# -ge 3 ]]; then
        python3 - "$1" "$2" "$3" <<'PY'
import json, sys
out, path, body_file = sys.argv[1:]
body = open(body_file, encoding="utf-8").read().strip()
with open(out, "w", encoding="utf-8") as f:
    f.write(f'wrk.method = "POST"\nwrk.path = "{path}"\nwrk.headers["Content-Type"] = "application/json"\n')
    f.write("wrk.body = " + json.dumps(body) + "\n")
PY
        return
    fi
    cat >"$1" <<LUA
wrk.method = "POST"
wrk.path = "$2"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '$bench_body'
LUA
}

# runs_table: the header of a report's table of runs, one row per run.
runs_table() {
    echo "| run | round | req/s | p99 ms | non-2xx |"
    echo "|---|---|---|---|---|"
}

# alternate ROUND A B: the two sides of round ROUND in the order they run. Who goes first alternates,
# so that drift of the shared machine does not always fall on the same side.
alternate() {
    if (( $1 % 2 )); then echo "$2 $3"; else echo "$3 $2"; fi
}

# ratio A B: A / B, or 0 when B is 0 (a run that failed).
ratio() {
    python3 -c "import sys; a, b = map(float, sys.argv[1:]); print(a / b if b else 0)" "$1" "$2"
}

# ratio_summary LABEL RATIO...: the report's closing line, the median of the rounds' ratios and each of them.
ratio_summary() {
    local label="$1"
    shift
    local median
    median="$(python3 -c "import statistics,sys; print(f'{statistics.median(map(float, sys.argv[1:])):.2f}')" "$@")"
    echo "$label, median of the rounds' pairs: **${median}x** (rounds: $(printf '%.2f ' "$@"))"
}

# group_size PORT: the mean group size of the Formhouse on PORT since it started, from its
# Prometheus histogram.
group_size() {
    curl -s "http://127.0.0.1:$1/metrics" | awk '
        /^formhouse_store_group_size_sum/ {s=$2} /^formhouse_store_group_size_count/ {c=$2}
        END { if (c > 0) printf "%.1f", s / c; else print "n/a" }'
}
