#!/usr/bin/env bash
# Load benchmark: our HTTPServer (release build) against nginx serving the same 1 KiB JSON, measured
# in the same run, alternating. GET /json answers the 1 KiB body; POST /echo sends 1 KiB and gets it back
# (nginx answers the POST with the same static file via error_page, so it still reads the 1 KiB body).
# Also measures the resident memory per idle keep-alive connection for both servers.
#
# Needs: wrk, nginx-light, python3 (apt-get install -y wrk nginx-light). Loopback only.
# Usage: Benchmarks/http-bench.sh        env: DURATION=10s ROUNDS=2 CONNECTIONS="64 256" LOOPS=0 IDLE=1000
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
. "$root/Benchmarks/lib.sh"
duration="${DURATION:-10s}"
rounds="${ROUNDS:-2}"
connections="${CONNECTIONS:-64 256}"
loops="${LOOPS:-0}"
idle="${IDLE:-1000}"
ours_port=18080
nginx_port=18081
bench_work http

cleanup() {
    [[ -n "${ours_pid:-}" ]] && kill "$ours_pid" 2>/dev/null || true
    stop_nginx "$work"
    sleep 0.2
    [[ -z "${KEEP_WORK:-}" ]] && rm -rf "$work" || echo "kept $work" >&2
}
trap cleanup EXIT

if [[ -z "${SKIP_BUILD:-}" ]]; then
    (cd "$root" && swift build -c release -j 2 --product http-bench-server >/dev/null)
fi
bin="$(cd "$root" && swift build -c release --show-bin-path)/http-bench-server"

"$bin" "$ours_port" "$loops" >"$work/ours.log" 2>&1 &
ours_pid=$!
for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$ours_port/json" -o "$work/payload.json" && break; sleep 0.1; done
[[ "$(wc -c <"$work/payload.json")" == 1024 ]] || { echo "our server did not answer"; exit 1; }

start_nginx "$work" "$nginx_port" 'location = /json { default_type application/json; alias '"$work"'/payload.json; }
        location = /echo { default_type application/json; alias '"$work"'/payload.json; error_page 405 =200 $uri; }'
check_nginx "$nginx_port" /json "$work/payload.json"
nginx_pid="$(cat "$work/nginx.pid")"
nginx_worker="$(pgrep -P "$nginx_pid" | head -1)"

cat >"$work/post.lua" <<LUA
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
local f = io.open("$work/payload.json", "rb")
wrk.body = f:read("*a")
f:close()
LUA

# CPU time a process has used, in clock ticks (user + system, all threads).
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

# Prints "req/s p99_ms cpu_us_per_request" for one wrk run against the server process $2.
measure() {
    local url="$1" pid="$2" conns="$3" script="${4:-}"
    local args=(-t1 -c"$conns" -d"$duration" --latency)
    [[ -n "$script" ]] && args+=(-s "$script")
    local before after
    before="$(cpu_ticks "$pid")"
    wrk "${args[@]}" "$url" >"$work/wrk.out" 2>&1
    after="$(cpu_ticks "$pid")"
    local total errors cpu
    total="$(awk '/requests in/ {print $1}' "$work/wrk.out")"
    errors="$(awk '/Non-2xx|Socket errors/ {print}' "$work/wrk.out" | tr '\n' ' ')"
    [[ -n "$errors" ]] && echo "    wrk: $errors" >&2
    cpu="$(python3 -c "import os,sys; print(round((int(sys.argv[2]) - int(sys.argv[1])) / os.sysconf('SC_CLK_TCK') * 1e6 / int(sys.argv[3]), 1))" "$before" "$after" "$total")"
    echo "$(wrk_rate "$work/wrk.out") $(wrk_p99_ms "$work/wrk.out") $cpu"
}

# Resident memory per idle keep-alive connection, measured first on fresh processes:
# open IDLE connections, one request each, then hold them; RSS growth divided by IDLE.
idle_memory() {
    local port="$1" pid="$2"
    python3 - "$port" "$pid" "$idle" <<'PY'
import socket, sys, time
port, pid, count = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
def rss():
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
before = rss()
held = []
for _ in range(count):
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(b"GET /json HTTP/1.1\r\nHost: bench\r\n\r\n")
    got = b""
    while b"\r\n\r\n" not in got or len(got.split(b"\r\n\r\n", 1)[1]) < 1024:
        got += s.recv(65536)
    held.append(s)
time.sleep(1)
after = rss()
print(f"{(after - before) * 1024 / count / 1024:.1f}")
PY
}
ours_idle="$(idle_memory "$ours_port" "$ours_pid")"
nginx_idle="$(idle_memory "$nginx_port" "$nginx_worker")"
{
echo "Memory per idle keep-alive connection ($idle connections, RSS growth): ours $ours_idle KiB, nginx $nginx_idle KiB."
} >"$work/idle.txt"
{
echo "## HTTP benchmark $(date -u +%Y-%m-%dT%H:%MZ)"
echo
echo "wrk -t1, $duration per run, $rounds alternating rounds (best round shown), $(nproc) cores, load average before the run: $(cut -d' ' -f1 /proc/loadavg); ours: event loops=$loops (0 = one per core); nginx: 1 worker, access_log off. CPU/req is the server's CPU time (all threads) divided by requests served: a measure of cost that other load on the machine does not skew as much as req/s."
echo
echo "| request | conns | ours req/s | ours p99 ms | ours µs CPU/req | nginx req/s | nginx p99 ms | nginx µs CPU/req | ratio (req/s) |"
echo "|---|---|---|---|---|---|---|---|---|"
} | tee "$report"

for conns in $connections; do
    for kind in GET POST; do
        best_ours=0; best_ours_p99=0; best_nginx=0; best_nginx_p99=0
        for round in $(seq 1 "$rounds"); do
            if [[ $kind == GET ]]; then
                read -r o op oc < <(measure "http://127.0.0.1:$ours_port/json" "$ours_pid" "$conns")
                read -r n np nc < <(measure "http://127.0.0.1:$nginx_port/json" "$nginx_worker" "$conns")
            else
                read -r o op oc < <(measure "http://127.0.0.1:$ours_port/echo" "$ours_pid" "$conns" "$work/post.lua")
                read -r n np nc < <(measure "http://127.0.0.1:$nginx_port/echo" "$nginx_worker" "$conns" "$work/post.lua")
            fi
            echo "  round $round $kind c=$conns: ours $o req/s p99 $op ms ${oc} us CPU/req | nginx $n req/s p99 $np ms ${nc} us CPU/req" >&2
            if python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) > float(sys.argv[2]) else 1)" "$o" "$best_ours"; then best_ours=$o; best_ours_p99=$op; best_ours_cpu=$oc; fi
            if python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) > float(sys.argv[2]) else 1)" "$n" "$best_nginx"; then best_nginx=$n; best_nginx_p99=$np; best_nginx_cpu=$nc; fi
        done
        ratio="$(python3 -c "import sys; print(f'{float(sys.argv[1])/float(sys.argv[2]):.2f}')" "$best_ours" "$best_nginx")"
        echo "| $kind | $conns | $best_ours | $best_ours_p99 | $best_ours_cpu | $best_nginx | $best_nginx_p99 | $best_nginx_cpu | ${ratio}x |" | tee -a "$report"
    done
done

{ echo; cat "$work/idle.txt"; } | tee -a "$report"
echo "report: $report" >&2
