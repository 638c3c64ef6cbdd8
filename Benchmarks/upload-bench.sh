#!/usr/bin/env bash
# Upload benchmark (release build, loopback only), the baseline measured in the same run:
#   1. Throughput: CLIENTS clients each POST a SIZE_MIB MiB file to /v1/forms/{id}/uploads (the body
#      streamed to files/ in the data directory, hashed, its signature checked, the record committed),
#      against nginx receiving the same bodies into a file on the same disk
#      (client_body_in_file_only), in alternating rounds. Ratio = Formhouse's MiB/s over nginx's.
#      Formhouse runs twice: durable (synchronous=FULL, the default: each file is fsync'd before its
#      201), and with synchronous=NORMAL, which skips the syncs as nginx's body file does.
#   2. Memory: 20 clients upload 100 MiB each at once; the server's peak resident memory (VmHWM)
#      above its resident memory at idle.
# Needs: nginx-light, curl. Prints a Markdown report and writes it to Benchmarks/results/ (not committed).
# Usage: Benchmarks/upload-bench.sh     env: ROUNDS=3 CLIENTS=8 SIZE_MIB=64 SKIP_BUILD=1
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
. "$root/Benchmarks/lib.sh"
rounds="${ROUNDS:-3}"
clients="${CLIENTS:-8}"
size_mib="${SIZE_MIB:-64}"
port=18290
nginx_port=18291
normal_port=18292
bench_work upload
command -v nginx >/dev/null || { echo "needs nginx: apt-get install -y nginx-light" >&2; exit 1; }

cleanup() {
    [[ -n "${server_pid:-}" ]] && kill "$server_pid" 2>/dev/null || true
    [[ -n "${normal_pid:-}" ]] && kill "$normal_pid" 2>/dev/null || true
    stop_nginx "$work"
    sleep 0.3
    rm -rf "$work"
}
trap cleanup EXIT

if [[ -z "${SKIP_BUILD:-}" ]]; then (cd "$root" && swift build -c release -j 2 --product formhouse --static-swift-stdlib >/dev/null); fi
bin="$(cd "$root" && swift build -c release --show-bin-path)/formhouse"

# The file: a PDF header, then random bytes (incompressible, and no signature to confuse).
file="$work/upload.pdf"
{ printf '%%PDF-1.7\n'; head -c $((size_mib * 1024 * 1024 - 9)) /dev/urandom; } >"$file"
big="$work/big.pdf"
{ printf '%%PDF-1.7\n'; head -c $((100 * 1024 * 1024 - 9)) /dev/urandom; } >"$big"
form='{"title": "Bench", "components": [{"file": {"id": "doc", "title": "Doc", "accept": ["application/pdf"], "maxSize": 209715200}}]}'

mkdir -p "$work/nginx-body"
start_nginx "$work" "$nginx_port" "
        client_max_body_size 200m;
        client_body_buffer_size 128k;
        client_body_in_file_only clean;
        client_body_temp_path $work/nginx-body;
        # The body is read into a file before the request goes on (nginx's upload pattern); a bare
        # return would discard it unread.
        location /upload {
            proxy_pass_request_body off;
            proxy_set_header Content-Length \"\";
            proxy_set_header X-File \$request_body_file;
            proxy_pass http://127.0.0.1:$nginx_port/done;
        }
        location /done { return 201; }"

# upload_all PORT PATH COUNT FILE: COUNT curl clients POST FILE at once; prints the seconds taken.
upload_all() {
    local url="http://127.0.0.1:$1$2" count="$3" payload="$4" start end pids=()
    start=$(date +%s.%N)
    for _ in $(seq 1 "$count"); do
        curl -s -o /dev/null -w '%{http_code}\n' -H 'Content-Type: application/pdf' --data-binary @"$payload" "$url" \
            >>"$work/codes" &
        pids+=($!)
    done
    wait "${pids[@]}"
    end=$(date +%s.%N)
    python3 -c "print(round($end - $start, 3))"
}

limits=(FORMHOUSE_UPLOADS_MIN_FREE_BYTES=0 FORMHOUSE_UPLOADS_BYTES_PER_SECOND_PER_CLIENT=1099511627776
        FORMHOUSE_UPLOADS_MAX_IN_PROGRESS_PER_CLIENT=1000)
mkdir -p "$work/normal"
start_formhouse "$bin" "$normal_port" "$work/normal" FORMHOUSE_SYNCHRONOUS=NORMAL "${limits[@]}"
normal_pid=$server_pid
start_formhouse "$bin" "$port" "$work" "${limits[@]}"
for p in "$port" "$normal_port"; do
    curl -sf -X PUT "http://127.0.0.1:$p/v1/admin/forms/bench" -H 'Authorization: Bearer benchmark-admin-token-000000' \
        -H 'Content-Type: application/json' -d "$form" >/dev/null
done

rows=""
ratios=()
normal_ratios=()
for round in $(seq 1 "$rounds"); do
    : >"$work/codes"
    t_nginx=$(upload_all "$nginx_port" /upload "$clients" "$file")
    t_formhouse=$(upload_all "$port" /v1/forms/bench/uploads?field=doc "$clients" "$file")
    t_normal=$(upload_all "$normal_port" /v1/forms/bench/uploads?field=doc "$clients" "$file")
    if grep -qv '^201$' "$work/codes"; then echo "an upload failed: $(sort "$work/codes" | uniq -c)" >&2; exit 1; fi
    mib=$((clients * size_mib))
    r_nginx=$(python3 -c "print(round($mib / $t_nginx, 1))")
    r_formhouse=$(python3 -c "print(round($mib / $t_formhouse, 1))")
    r_normal=$(python3 -c "print(round($mib / $t_normal, 1))")
    ratio=$(python3 -c "print(round($r_formhouse / $r_nginx, 2))")
    normal_ratio=$(python3 -c "print(round($r_normal / $r_nginx, 2))")
    ratios+=("$ratio")
    normal_ratios+=("$normal_ratio")
    rows+="| $round | $r_nginx | $r_formhouse | $ratio | $r_normal | $normal_ratio |"$'\n'
    # The uploads are unbound: delete them so the disk does not fill over the rounds.
    rm -f "$work/data/files/upl_"* "$work/normal/data/files/upl_"*
done
median_of() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
median=$(median_of "${ratios[@]}")
normal_median=$(median_of "${normal_ratios[@]}")

idle_kib=$(awk '/^VmRSS:/ {print $2}' "/proc/$server_pid/status")
# Peak memory counted from now, not from the start-up.
echo 5 >"/proc/$server_pid/clear_refs"
: >"$work/codes"
t_big=$(upload_all "$port" /v1/forms/bench/uploads?field=doc 20 "$big")
if grep -qv '^201$' "$work/codes"; then echo "a 100 MiB upload failed: $(sort "$work/codes" | uniq -c)" >&2; exit 1; fi
peak_kib=$(awk '/^VmHWM:/ {print $2}' "/proc/$server_pid/status")
above=$(( (peak_kib - idle_kib) / 1024 ))

{
    echo "# Upload benchmark, $(date -u +%Y-%m-%dT%H:%MZ)"
    echo
    echo "$(nproc) cores; $clients clients × $size_mib MiB per round, $rounds rounds; release build."
    echo
    echo "| round | nginx to a file, MiB/s | Formhouse (FULL), MiB/s | ratio | Formhouse (NORMAL), MiB/s | ratio |"
    echo "|---|---|---|---|---|---|"
    printf '%s' "$rows"
    echo
    echo "Median ratio: **$median** durable (every file fsync'd before its 201), **$normal_median** with"
    echo "synchronous=NORMAL (no sync, as nginx's body file) (aim ≥ 0.8)."
    echo
    echo "20 clients × 100 MiB at once ($t_big s): peak resident memory $((peak_kib / 1024)) MiB, idle $((idle_kib / 1024)) MiB:"
    echo "**$above MiB above idle** (aim < 64)."
} | tee "$report"
