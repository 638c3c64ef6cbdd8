#!/usr/bin/env bash
# Builds the image with `docker build` from the unmodified Dockerfile and checks the container it
# makes with `docker run`, `docker stop` and `docker start`:
#   - the image runs as a non-root user with a private /data volume, and every library the binary
#     links is in it;
#   - Docker's own HEALTHCHECK reports the container healthy, also when FORMHOUSE_PORT moves the port;
#   - through the published port, a sample form is served and a submission gets 201;
#   - `docker stop` ends it with exit code 0 inside the 10 s it waits before SIGKILL;
#   - after `docker start` on the same volume, the submission reads back byte for byte;
#   - the admin token given in the environment never shows in the container's log.
#
# Engine: the one `docker info` reaches; otherwise, as root, it starts Debian's `dockerd` (installing
# docker.io if needed) with its own data root, and stops it at the end.
# Base images: the Dockerfile's own (`swift:6.3-bookworm`, `debian:bookworm-slim`), pulled when the
# registry answers. Where it does not (this project's machines reach Debian's mirror and PyPI only),
# stand-ins are made under the same names and labelled `formhouse.stand-in`:
#   - debian:bookworm-slim: `debootstrap --variant=minbase bookworm`, imported;
#   - swift:6.3-bookworm: that Debian with the packages the official image installs and this machine's
#     Swift 6.3 toolchain (/opt/swift/usr) in /usr, as the official image unpacks its tarball, plus this
#     machine's copy of the GitHub packages the manifest names, since GitHub is out of reach too.
# Needs root (for the engine and debootstrap) and about 12 GB of disk; the static build in the build
# stage takes most of its 10-20 minutes.
# Usage: sudo scripts/docker-check.sh [--keep]   (--keep leaves the image, container and volume)
#   env DOCKERFILE=PATH checks another Dockerfile against this repository (the default: ./Dockerfile)
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
. "$root/Benchmarks/lib.sh"  # bench_body: a submission to the sample form that validates
keep=""; [[ "${1:-}" == "--keep" ]] && keep=1
token="docker-check-admin-token-00000000000000"
image="formhouse:docker-check"
name="formhouse-docker-check-$$"
moved="$name-port"
volume="formhouse-docker-check-$$"
dockerfile="$(realpath "${DOCKERFILE:-$root/Dockerfile}")"
work="$(mktemp -d)"
started_engine=""

log() { echo "docker-check: $*"; }
fail() { echo "docker-check: FAILED: $*" >&2; exit 1; }

cleanup() {
    if [[ -z "$keep" ]]; then
        docker rm -f "$name" >/dev/null 2>&1 || true
        docker rm -f -v "$moved" >/dev/null 2>&1 || true
        docker volume rm "$volume" >/dev/null 2>&1 || true
        docker image rm "$image" >/dev/null 2>&1 || true
    fi
    if [[ -n "$started_engine" ]]; then
        kill "$started_engine" 2>/dev/null || true
        for _ in $(seq 1 50); do kill -0 "$started_engine" 2>/dev/null || break; sleep 0.2; done
        ip link delete docker0 2>/dev/null || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT

# --- the engine ---------------------------------------------------------------------------------
if ! docker info >/dev/null 2>&1; then
    [[ "$(id -u)" -eq 0 ]] || fail "no Docker engine answers, and starting one needs root"
    if ! command -v dockerd >/dev/null; then
        log "installing Debian's docker.io (the engine)"
        apt-get update -q >/dev/null
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q docker.io >/dev/null
    fi
    # Without --iptables=false, dockerd leaves its NAT tables behind when it stops, and with them
    # connection tracking on all of the host's traffic, benchmarks' loopback included; the host's
    # firewall is left as it was. Published ports still work (docker-proxy); builds use the host's
    # network instead of NAT.
    log "starting dockerd (no iptables rules; data root /var/lib/formhouse-docker-check, kept so base images are reused)"
    dockerd --iptables=false --ip-masq=false --data-root /var/lib/formhouse-docker-check >"$work/dockerd.log" 2>&1 &
    started_engine=$!
    for _ in $(seq 1 100); do docker info >/dev/null 2>&1 && break; sleep 0.2; done
    docker info >/dev/null 2>&1 || { tail -20 "$work/dockerd.log" >&2; fail "dockerd did not start"; }
fi
log "engine: Docker $(docker version --format '{{.Server.Version}}'), storage $(docker info --format '{{.Driver}}')"

# --- base images --------------------------------------------------------------------------------
have_image() { docker image inspect "$1" >/dev/null 2>&1; }

debian_standin() {
    have_image formhouse-stand-in/debian:bookworm && return
    command -v debootstrap >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -q debootstrap >/dev/null
    log "debootstrap --variant=minbase bookworm (a minute or two)"
    debootstrap --variant=minbase bookworm "$work/rootfs" http://deb.debian.org/debian >"$work/debootstrap.log" 2>&1 \
        || { tail -20 "$work/debootstrap.log" >&2; fail "debootstrap"; }
    rm -rf "$work/rootfs/var/cache/apt/archives/"*.deb "$work/rootfs/var/lib/apt/lists/"*
    tar -C "$work/rootfs" -c . | docker import \
        --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
        --change 'LABEL formhouse.stand-in="debootstrap --variant=minbase bookworm"' \
        --change 'CMD ["bash"]' - formhouse-stand-in/debian:bookworm >/dev/null
    rm -rf "$work/rootfs"
}

# The official swift:6.3-bookworm installs these Debian packages and unpacks the toolchain into /usr.
swift_standin() {
    debian_standin
    [[ -x /opt/swift/usr/bin/swift ]] || fail "no Swift toolchain at /opt/swift to make swift:6.3-bookworm from"
    mkdir -p "$work/swift-context"
    cp -a /opt/swift/usr "$work/swift-context/usr"
    if [[ -d /opt/swift-packages ]]; then cp -a /opt/swift-packages "$work/swift-context/packages"; else mkdir "$work/swift-context/packages"; fi
    cat >"$work/swift-context/Dockerfile" <<'DOCKERFILE'
FROM formhouse-stand-in/debian:bookworm
RUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      binutils-gold gcc git libc6-dev libcurl4-openssl-dev libedit-dev libicu-dev libncurses-dev \
      libpython3-dev libsqlite3-dev libstdc++-12-dev libxml2-dev pkg-config tzdata uuid-dev zlib1g-dev \
    && rm -rf /var/lib/apt/lists/*
COPY usr/ /usr/
# GitHub is out of this machine's reach: the manifest's packages come from its local copies.
COPY packages/ /opt/swift-packages/
RUN git config --system url./opt/swift-packages/.insteadOf https://github.com/
LABEL formhouse.stand-in="Debian bookworm with the official image's packages and this machine's Swift toolchain"
DOCKERFILE
    log "making swift:6.3-bookworm from this machine's toolchain (a few minutes)"
    docker build --network host -q -t swift:6.3-bookworm "$work/swift-context" >"$work/stand-in.log" 2>&1 \
        || { tail -20 "$work/stand-in.log" >&2; fail "the swift:6.3-bookworm stand-in did not build"; }
    rm -rf "$work/swift-context"
}

for from in $(awk 'toupper($1) == "FROM" {print $2}' "$dockerfile"); do
    if have_image "$from"; then
        standin="$(docker image inspect --format '{{index .Config.Labels "formhouse.stand-in"}}' "$from")"
        log "base image $from: ${standin:+stand-in ($standin), }already here"
        continue
    fi
    if timeout 120 docker pull -q "$from" >/dev/null 2>&1; then log "base image $from: pulled"; continue; fi
    case "$from" in
        debian:bookworm-slim) debian_standin; docker tag formhouse-stand-in/debian:bookworm "$from" ;;
        swift:6.3-bookworm) swift_standin ;;
        *) fail "cannot pull $from, and there is no stand-in for it" ;;
    esac
    log "base image $from: the registry is out of reach, made a stand-in"
done

# --- docker build -------------------------------------------------------------------------------
# --network host: its RUN steps reach Debian's mirror whether or not the engine NATs its bridge.
log "docker build --network host (the static release build takes most of the time)"
start=$(date +%s)
docker build --network host -f "$dockerfile" -t "$image" "$root" >"$work/build.log" 2>&1 || { tail -40 "$work/build.log" >&2; fail "docker build"; }
log "docker build passed in $(( $(date +%s) - start )) s; image $(docker image inspect --format '{{.Size}}' "$image" | awk '{printf "%.0f MB", $1 / 1e6}')"

# --- what the image holds -----------------------------------------------------------------------
in_image() { docker run --rm --entrypoint "$1" "$image" "${@:2}"; }
user="$(in_image id -un)"; uid="$(in_image id -u)"
[[ "$uid" != 0 ]] || fail "the image runs as root"
missing="$(in_image sh -c 'ldd /usr/local/bin/formhouse | grep "not found" || true')"
[[ -z "$missing" ]] || fail "libraries missing from the image: $missing"
log "runs as $user (uid $uid); every library the binary links is in the image"

# --- run, health, serve -------------------------------------------------------------------------
docker volume create "$volume" >/dev/null
docker run -d --name "$name" -p 127.0.0.1::8080 -v "$volume:/data" -e FORMHOUSE_ADMIN_TOKENS="$token" "$image" >/dev/null
mode="$(docker exec "$name" stat -c '%U %a' /data)"
[[ "$mode" == "$user 700" ]] || fail "/data is '$mode', not owned by $user with mode 700"
log "/data: $mode"

# The host port Docker published 8080 on, which `docker start` may change.
published() {
    port="$(docker port "$name" 8080/tcp | head -1 | sed 's/.*://')"
    base="http://127.0.0.1:$port"
}

# wait_healthy [CONTAINER]: until Docker's HEALTHCHECK reports it healthy (default: the main one).
wait_healthy() {
    local container="${1:-$name}"
    # The HEALTHCHECK's interval is 30 s: Docker runs its first check 30 s after the start.
    for _ in $(seq 1 90); do
        status="$(docker inspect --format '{{.State.Health.Status}}' "$container")"
        [[ "$status" == healthy ]] && return
        [[ "$(docker inspect --format '{{.State.Running}}' "$container")" == true ]] || { docker logs "$container" >&2; fail "the container stopped"; }
        sleep 1
    done
    docker inspect --format '{{json .State.Health}}' "$container" >&2
    fail "Docker's HEALTHCHECK did not report $container healthy within 90 s (last: $status)"
}
# Started now, so its first check runs beside the main container's: a port set by environment is
# the one the HEALTHCHECK probes.
docker run -d --name "$moved" -e FORMHOUSE_PORT=9090 -e FORMHOUSE_ADMIN_TOKENS="$token" "$image" >/dev/null
wait_healthy
published
log "Docker reports it healthy; published on port $port"
wait_healthy "$moved"
docker exec "$moved" curl -fsS http://127.0.0.1:9090/healthz >/dev/null || fail "FORMHOUSE_PORT=9090 is not the port the server listens on"
docker rm -f -v "$moved" >/dev/null
log "with FORMHOUSE_PORT=9090 it listens there and Docker reports it healthy too"

curl -fsS "$base/v1/forms/formworks-example" -o "$work/form.json" || fail "the sample form is not served through the published port (does the server listen beyond loopback? FORMHOUSE_HOST)"
grep -q '"formworks-example"' "$work/form.json" || fail "the sample form's body: $(head -c 200 "$work/form.json")"
printf '%s' "$bench_body" >"$work/body.json"
status="$(curl -sS -o "$work/created.json" -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
    --data-binary @"$work/body.json" "$base/v1/forms/formworks-example/submissions")"
[[ "$status" == 201 ]] || fail "submission answered $status: $(cat "$work/created.json")"
id="$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["id"])' "$work/created.json")"
log "sample form served; submission $id got 201"

# --- docker stop, docker start ------------------------------------------------------------------
start_ns=$(date +%s%N)
docker stop "$name" >/dev/null
stop_ms=$(( ($(date +%s%N) - start_ns) / 1000000 ))
code="$(docker inspect --format '{{.State.ExitCode}}' "$name")"
[[ "$code" == 0 ]] || { docker logs "$name" >&2; fail "exit code $code after docker stop"; }
(( stop_ms < 10000 )) || fail "docker stop took $stop_ms ms: the server did not end before Docker's SIGKILL"
log "docker stop: exit 0 in $stop_ms ms"

docker start "$name" >/dev/null
wait_healthy
published
curl -fsS -H "Authorization: Bearer $token" "$base/v1/admin/submissions/$id/raw" -o "$work/raw.json" \
    || fail "the stored submission cannot be read back after docker start"
cmp -s "$work/raw.json" "$work/body.json" || fail "the raw body read back differs from what was sent"
log "after docker start on the same volume: healthy again, and the submission's raw body reads back byte for byte"

if docker logs "$name" 2>&1 | grep -qF "$token"; then fail "the admin token shows in the container's log"; fi
log "the admin token is not in the container's log"
log "PASSED"
