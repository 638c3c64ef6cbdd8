#!/usr/bin/env bash
# Builds the HTTP request parser fuzzer (libFuzzer + AddressSanitizer) and runs it for SECONDS.
# Exits non-zero if the fuzzer finds a crash; the crashing input is left in fuzz-artifacts/.
# Usage: Fuzz/run-http-fuzz.sh [SECONDS]   (default 60)
set -euo pipefail

seconds="${1:-60}"
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$root/.build/fuzz"
binary="$build/http-parser-fuzz"
sources=(HTTPParser RequestDecoder ChunkedDecoder BodyMode HTTPHeaders HTTPMethod PercentDecoding QueryParameters)

mkdir -p "$build" "$root/fuzz-artifacts"
files=()
for name in "${sources[@]}"; do files+=("$root/Sources/HTTPServer/$name.swift"); done
swiftc -sanitize=fuzzer,address -parse-as-library -O -g \
    "${files[@]}" "$root/Fuzz/HTTPParserFuzz/HTTPParserFuzz.swift" -o "$binary"

# Work on a copy so the committed seed corpus only changes by hand.
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp "$root/Fuzz/HTTPParserFuzz/corpus/"* "$work/"

"$binary" "$work" -max_total_time="$seconds" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="$root/fuzz-artifacts/" -print_final_stats=1
