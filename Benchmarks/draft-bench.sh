#!/usr/bin/env bash
# Draft saving benchmark (release build, loopback only), its baseline measured in the same run:
#   PATCH /v1/drafts/{did} changing one input of a 40-input draft (a merge patch: the draft is read,
#   patched, judged with the engine and written back durably, synchronous=FULL) against
#   POST /v1/forms/{id}/validate of the same form and values (the engine alone behind the server),
#   alternating rounds on one server. The connections patch distinct drafts, round-robin over twice
#   as many drafts as connections, so that what is measured is saving, not If-Match contention.
# Needs: wrk (apt-get install -y wrk). Prints a Markdown report and writes it to Benchmarks/results/
# (not committed).
# Usage: Benchmarks/draft-bench.sh      env: DURATION=10s ROUNDS=3 CONNECTIONS=64 SYNCHRONOUS=FULL
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
. "$root/Benchmarks/lib.sh"
duration="${DURATION:-10s}"
rounds="${ROUNDS:-3}"
conns="${CONNECTIONS:-64}"
synchronous="${SYNCHRONOUS:-FULL}"
port=18094
form=registration-40
token=benchmark-admin-token-000000
bench_work draft
formhouse_release

start_formhouse "$bin" "$port" "$work" FORMHOUSE_SYNCHRONOUS="$synchronous" \
    FORMHOUSE_DRAFTS_MAX_REVISIONS=1000000 FORMHOUSE_DRAFTS_MAX_PER_CLIENT_PER_HOUR=1000000
base="http://127.0.0.1:$port"
curl -sf -X PUT "$base/v1/admin/forms/$form" -H "Authorization: Bearer $token" -H 'Content-Type: application/json' \
    --data-binary @"$root/Benchmarks/forms/registration-40.json" >/dev/null
values="$root/Benchmarks/forms/registration-40-values.json"
curl -sf -X POST "$base/v1/forms/$form/validate" -H 'Content-Type: application/json' --data-binary @"$values" | grep -q '"valid":true' || {
    echo "the benchmark values do not validate" >&2; exit 1; }

# The drafts, each holding all 40 inputs' values; their ids and tokens go into the PATCH script.
python3 - "$base" "$form" "$values" "$((conns * 2))" "$work/patch.lua" <<'PY'
import json, sys, urllib.request
base, form, values_file, count, patch_lua = sys.argv[1:]
body = open(values_file, "rb").read()
drafts = []
for _ in range(int(count)):
    request = urllib.request.Request(f"{base}/v1/forms/{form}/drafts", data=body, headers={"Content-Type": "application/json"})
    answer = json.load(urllib.request.urlopen(request))
    assert answer["errors"] == [], answer["errors"]
    drafts.append((answer["id"], answer["token"]))
with open(patch_lua, "w") as out:
    out.write("drafts = {\n" + "".join(f'  {{"{i}", "{t}"}},\n' for i, t in drafts) + "}\n")
    out.write('''
counter = 0
request = function()
  counter = counter + 1
  local draft = drafts[(counter % #drafts) + 1]
  return wrk.format("PATCH", "/v1/drafts/" .. draft[1], {
    ["Authorization"] = "Bearer " .. draft[2],
    ["Content-Type"] = "application/merge-patch+json",
  }, '{"comments": "Looking forward to it! ' .. counter .. '"}')
end
''')
PY
post_script "$work/validate.lua" "/v1/forms/$form/validate" "$values"

# Prints "req/s p99_ms non2xx" for one wrk run of SCRIPT.
measure() {
    wrk_measure "$work/wrk.out" -t1 -c"$conns" -d"$duration" -s "$1" "$base"
}

{
echo "# Draft benchmark $(date -u +%Y-%m-%dT%H:%MZ)"
echo
echo "$(nproc) cores, wrk -t1, $conns connections, $duration per run, $rounds alternating rounds; release build;"
echo "loopback; synchronous=$synchronous. 40-input form, every input answered; a PATCH changes one."
echo
runs_table
} | tee "$report"

ratios=()
for round in $(seq 1 "$rounds"); do
    for side in $(alternate "$round" validate patch); do
        if [[ $side == validate ]]; then
            read -r r p b < <(measure "$work/validate.lua")
            echo "| POST validate (40 inputs) | $round | $r | $p | $b |" | tee -a "$report"
            validate_rate=$r
        else
            read -r r p b < <(measure "$work/patch.lua")
            echo "| PATCH draft, one input of 40 | $round | $r | $p | $b |" | tee -a "$report"
            patch_rate=$r
        fi
    done
    ratios+=("$(ratio "$patch_rate" "$validate_rate")")
done

{
echo
ratio_summary "PATCH / validate" "${ratios[@]}"
} | tee -a "$report"
echo "report: $report"
