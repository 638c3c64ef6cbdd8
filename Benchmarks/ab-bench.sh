#!/usr/bin/env bash
# A/B of two formhouse binaries on one endpoint, interleaved, for judging a change on a machine whose
# speed drifts: each pair runs A then B on fresh servers and empty databases, and the report gives,
# per run, req/s and the server's CPU per request by thread kind (event loops, the group-commit
# writer), then the median of the B/A ratios over the pairs.
# Needs: wrk. Usage: Benchmarks/ab-bench.sh A_BINARY B_BINARY
#   env: PAIRS=6 DURATION=5s ENDPOINT=submissions (or validate, or form) CONNECTIONS=256
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
. "$root/Benchmarks/lib.sh"
[[ $# -eq 2 && -x "$1" && -x "$2" ]] || { echo "usage: $0 A_BINARY B_BINARY (two built formhouse executables)" >&2; exit 2; }
command -v wrk >/dev/null || { echo "needs wrk: apt-get install -y wrk" >&2; exit 1; }
pairs="${PAIRS:-6}"
duration="${DURATION:-5s}"
endpoint="${ENDPOINT:-submissions}"
conns="${CONNECTIONS:-256}"
port=18095
form=formworks-example
work="$(mktemp -d)"

cleanup() {
    [[ -n "${server_pid:-}" ]] && kill "$server_pid" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

case "$endpoint" in
    form) url="http://127.0.0.1:$port/v1/forms/$form"; script=() ;;
    submissions|validate)
        url="http://127.0.0.1:$port"
        post_script "$work/post.lua" "/v1/forms/$form/$endpoint"
        script=(-s "$work/post.lua") ;;
    *) echo "ENDPOINT is submissions, validate or form" >&2; exit 2 ;;
esac

# CPU ticks (user + system) of the server's threads, summed by thread name.
thread_ticks() {
    for task in /proc/"$server_pid"/task/*; do
        echo "$(tr ' ' '_' <"$task/comm") $(awk '{print $14 + $15}' "$task/stat")"
    done | awk '{t[$1] += $2} END {for (k in t) print k, t[k]}'
}

# Prints "req/s loop_us writer_us" for one run of binary $1.
run() {
    start_formhouse "$1" "$port" "$work"
    thread_ticks >"$work/before"
    wrk -t1 -c"$conns" -d"$duration" ${script[@]+"${script[@]}"} "$url" >"$work/wrk.out"
    thread_ticks >"$work/after"
    kill "$server_pid"; wait "$server_pid" 2>/dev/null || true; server_pid=
    local requests rps ticks
    requests="$(awk '/requests in/ {print $1}' "$work/wrk.out")"
    rps="$(wrk_rate "$work/wrk.out")"
    ticks="$(getconf CLK_TCK)"
    join <(sort "$work/before") <(sort "$work/after") | awk -v n="$requests" -v hz="$ticks" -v r="$rps" '
        $1 == "http-loop" {loop += $3 - $2} $1 ~ /overcommit/ {writer += $3 - $2}
        END {printf "%s %.1f %.1f\n", r, loop * 1e6 / hz / n, writer * 1e6 / hz / n}'
}

echo "| pair | binary | req/s | event loops µs/request | writer µs/request |"
echo "|---|---|---|---|---|"
: >"$work/pairs"
for pair in $(seq 1 "$pairs"); do
    read -r a_rps a_loop a_writer < <(run "$1")
    echo "| $pair | A | $a_rps | $a_loop | $a_writer |"
    read -r b_rps b_loop b_writer < <(run "$2")
    echo "| $pair | B | $b_rps | $b_loop | $b_writer |"
    echo "$a_rps $a_loop $a_writer $b_rps $b_loop $b_writer" >>"$work/pairs"
done
python3 - "$work/pairs" <<'PY'
import statistics, sys
rows = [[float(x) for x in line.split()] for line in open(sys.argv[1])]
def median(i, j):
    ratios = [r[j] / r[i] for r in rows if r[i] > 0]
    return f"{statistics.median(ratios):.3f}" if ratios else "n/a"
print(f"\nB/A medians over {len(rows)} pairs: req/s {median(0, 3)}, event-loop CPU per request {median(1, 4)}, "
      f"writer CPU per request {median(2, 5)}")
PY
