#!/usr/bin/env bash
# The API against its own OpenAPI document, with schemathesis (property-based requests generated from
# /openapi.json, including sequences that reuse what earlier answers returned): every answer must be
# documented for its operation (status, headers, content type, body schema), no request may cause a
# 5xx, and admin routes must refuse requests without the token. The server is the real binary on an
# ephemeral port with a temporary data directory; the seed and example count are fixed, so a run is
# repeatable and bounded (about a minute).
#
# Two of schemathesis' checks are left out, as they judge validation the schema cannot express: a
# schema-valid body the server refuses (a definition's semantics, an unresolvable webhook host, an
# opaque cursor it did not hand out) and a schema-invalid request it takes (an empty If-Match is
# answered 412, which schemathesis does not count as a refusal).
# env: API_FUZZ_EXAMPLES=20 API_FUZZ_SEED=2 FORMHOUSE_BIN=path
set -euo pipefail
cd "$(dirname "$0")/../.."
version=4.32.5

if ! python3 -c "import schemathesis, sys; sys.exit(schemathesis.__version__ != '$version')" 2>/dev/null; then
  python3 -m pip install -q "schemathesis==$version" || python3 -m pip install -q --break-system-packages "schemathesis==$version"
fi
if [[ -z "${FORMHOUSE_BIN:-}" ]]; then
  swift build -j 2 --product formhouse
  FORMHOUSE_BIN="$(swift build --show-bin-path)/formhouse"
fi

work="$(mktemp -d -t formhouse-api-fuzz-XXXXXX)"
token="api-fuzz-admin-token-$(od -An -N8 -tx8 /dev/urandom | tr -d ' ')"
cleanup() {
  [[ -n "${server:-}" ]] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

echo '{}' > "$work/config.json"
env -u FORMHOUSE_BIN FORMHOUSE_ADMIN_TOKENS="$token" "$FORMHOUSE_BIN" serve --config "$work/config.json" --host 127.0.0.1 --port 0 \
  --port-file "$work/port" --data-dir "$work/data" --forms-dir config/forms --public-dir Public \
  --rate-limit-burst 1000000 --rate-limit-per-second 1000000 --log-level error >"$work/server.log" 2>&1 &
server=$!
for _ in $(seq 1 200); do [[ -s "$work/port" ]] && break; sleep 0.05; done
[[ -s "$work/port" ]] || { cat "$work/server.log"; echo "api-fuzz: formhouse did not start"; exit 1; }
base="http://127.0.0.1:$(cat "$work/port")"

status=0
# hooks.py teaches it to send the raw bytes of a tus PATCH (application/offset+octet-stream).
hooks="$PWD/Tests/api-fuzz"
(cd "$work" && PYTHONPATH="$hooks" SCHEMATHESIS_HOOKS=hooks timeout 600 python3 -m schemathesis.cli run "$base/openapi.json" \
  --checks all --exclude-checks positive_data_acceptance,negative_data_rejection \
  -H "Authorization: Bearer $token" --max-examples "${API_FUZZ_EXAMPLES:-20}" --seed "${API_FUZZ_SEED:-2}" \
  --no-color) || status=$?
kill -0 "$server" 2>/dev/null || { cat "$work/server.log"; echo "api-fuzz: the server died"; exit 1; }
exit "$status"
