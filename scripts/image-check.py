#!/usr/bin/env python3
"""Checks the Dockerfile on a machine without a Docker engine, by carrying out its instructions.

None of this project's machines runs a Docker engine (the client answers, `docker build` cannot), so
this script does what `docker build` and `docker run` would, as closely as a chroot allows:

- Build stage: the context (minus `.dockerignore`) is copied, only the paths the stage COPYs are kept,
  and its `swift build` RUN runs there with the host's toolchain, which is the one the stage's image
  names (Swift 6.3 on Debian bookworm). A RUN of `apt-get` is checked instead of run: the packages it
  installs must be installed here. `/out` in its commands becomes a temporary folder.
- Runtime stage: `debian:bookworm-slim` is made with `debootstrap --variant=minbase bookworm` (the
  same Debian, without the slim image's removed docs). Its RUN steps run as root in a chroot, COPY,
  WORKDIR, ENV and USER are applied, and the binary's shared libraries must all be found there.
- Run: ENTRYPOINT starts as the USER, with the ENV, in WORKDIR, in a network namespace of its own (so
  it listens on the Dockerfile's own port without taking the host's), and with `/data` as the volume.
  The HEALTHCHECK command must pass; then a sample form is fetched, a submission is stored (201), the
  server is stopped and started again, and the submission is read back with an admin token.

Needs root, debootstrap, unshare and ip (util-linux, iproute2) and the network for Debian's mirror.
Usage: scripts/image-check.py [--keep] [--cache DIR] [--dockerfile PATH]
  --keep       leaves the work folder for inspection
  --cache DIR  builds in DIR/src and keeps its .build, so that later checks build incrementally
  --dockerfile PATH  checks another Dockerfile against this repository (the default: ./Dockerfile)
"""
import fnmatch
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOKEN = "image-check-admin-token-0000000000"


def log(message):
    print(f"image-check: {message}", flush=True)


def fail(message):
    print(f"image-check: FAILED: {message}", file=sys.stderr, flush=True)
    sys.exit(1)


def run(command, **kwargs):
    """Runs a command (a list, or a string for the shell), failing the check when it fails."""
    shell = isinstance(command, str)
    result = subprocess.run(command, shell=shell, **kwargs)
    if result.returncode != 0:
        fail(f"exit {result.returncode}: {command if shell else shlex.join(command)}")
    return result


def parse_dockerfile(path):
    """Stages of a Dockerfile: [{"from", "name", "instructions": [(keyword, argument)]}]."""
    lines, current = [], ""
    for raw in open(path, encoding="utf-8"):
        stripped = raw.strip()
        if not current and (not stripped or stripped.startswith("#")):
            continue
        if stripped.startswith("#"):
            continue  # a comment inside a continued instruction
        if stripped.endswith("\\"):
            current += stripped[:-1] + " "
            continue
        lines.append(current + stripped)
        current = ""
    stages = []
    for line in lines:
        keyword, _, argument = line.partition(" ")
        keyword = keyword.upper()
        if keyword == "FROM":
            words = argument.split()
            name = words[2] if len(words) == 3 and words[1].upper() == "AS" else None
            stages.append({"from": words[0], "name": name, "instructions": []})
        elif not stages:
            fail(f"{keyword} before FROM")
        else:
            stages[-1]["instructions"].append((keyword, argument.strip()))
    return stages


def exec_form(argument):
    """A JSON array (exec form) as a list; a plain string (shell form) as `sh -c` arguments."""
    if argument.startswith("["):
        return json.loads(argument)
    return ["/bin/sh", "-c", argument]


def parse_env(argument):
    """`ENV A=1 B="two words"` or the legacy `ENV A value`."""
    words = shlex.split(argument)
    if words and "=" not in words[0]:
        return {words[0]: " ".join(words[1:])}
    return dict(word.split("=", 1) for word in words)


def ignored_patterns():
    path = os.path.join(ROOT, ".dockerignore")
    if not os.path.exists(path):
        return []
    return [line.strip().rstrip("/") for line in open(path) if line.strip() and not line.startswith("#")]


def copy_context(destination):
    """The build context as Docker sends it: the repository minus `.dockerignore`."""
    patterns = ignored_patterns()

    def ignore(directory, names):
        relative = os.path.relpath(directory, ROOT)
        skipped = []
        for name in names:
            path = name if relative == "." else os.path.join(relative, name)
            if any(fnmatch.fnmatch(path, pattern) for pattern in patterns):
                skipped.append(name)
        return skipped

    shutil.copytree(ROOT, destination, ignore=ignore, symlinks=True)


def copy_into(source, target):
    if os.path.isdir(source):
        shutil.copytree(source, target, dirs_exist_ok=True, symlinks=True)
    else:
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copy2(source, target)


def resolve(workdir, path):
    return path if path.startswith("/") else os.path.normpath(os.path.join(workdir, path))


def check_toolchain(image):
    """The build stage runs on the host only if the host is what its image names: `swift:X.Y-bookworm`."""
    name, _, tag = image.partition(":")
    version, _, distribution = tag.partition("-")
    swift = subprocess.run(["swift", "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    debian = open("/etc/debian_version").read().strip()
    if name != "swift" or distribution != "bookworm" or not swift.startswith(f"Swift version {version}") \
            or not debian.startswith("12"):
        fail(f"the build stage's image is {image}; this host has {swift} on Debian {debian}")
    log(f"build stage: {image}; this host: {swift} on Debian {debian}")


def build_stage(stage, context, work, cache):
    """Carries out the build stage in `src` (only what it COPYs) and returns its output folder.

    With a cache folder, `src` lives there and keeps its `.build` between runs (everything else in it
    is copied afresh), so a second check builds incrementally.
    """
    out = os.path.join(work, "out")
    src = os.path.join(cache, "src") if cache else os.path.join(work, "src")
    os.makedirs(src, exist_ok=True)
    for name in os.listdir(src):
        if name != ".build":
            path = os.path.join(src, name)
            shutil.rmtree(path) if os.path.isdir(path) and not os.path.islink(path) else os.remove(path)
    workdir = "/"
    environment = dict(os.environ)
    for keyword, argument in stage["instructions"]:
        if keyword == "WORKDIR":
            workdir = resolve(workdir, argument)
        elif keyword == "ENV":
            environment.update(parse_env(argument))
        elif keyword == "COPY":
            *sources, target = shlex.split(argument)
            if any(s.startswith("--") for s in sources):
                fail(f"build stage COPY with flags is not handled: {argument}")
            for source in sources:
                destination = os.path.join(src, os.path.relpath(resolve(workdir, target), workdir))
                if target.endswith("/"):
                    destination = os.path.join(destination, os.path.basename(source.rstrip("/")))
                if not os.path.exists(os.path.join(context, source)):
                    fail(f"build stage COPYs {source}, which is not in the context (see .dockerignore)")
                copy_into(os.path.join(context, source), destination)
        elif keyword == "RUN":
            if argument.startswith("apt-get"):
                packages = [w for w in shlex.split(argument.split("install", 1)[1].split("&&")[0])
                            if not w.startswith("-")]
                missing = [p for p in packages if subprocess.run(
                    ["dpkg", "-s", p], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode != 0]
                if missing:
                    fail(f"the build stage installs {missing}, which this host lacks (scripts/setup.sh)")
                log(f"build stage packages present here: {' '.join(packages)}")
                continue
            command = argument.replace("/out/", out + "/")
            log(f"build stage RUN (about 5 to 10 minutes): {command}")
            started = time.time()
            run(command, cwd=src, executable="/bin/sh", env=environment)
            log(f"built in {time.time() - started:.0f} s")
        elif keyword not in ("ARG", "LABEL"):
            fail(f"build stage instruction {keyword} is not handled")
    return out


def chroot_shell(rootfs, command, env=None):
    run(["chroot", rootfs, "/bin/sh", "-c", command], env=env)


def runtime_stage(stage, context, outputs, work):
    """Makes the runtime root file system; returns it with the stage's settings."""
    if stage["from"] != "debian:bookworm-slim":
        fail(f"the runtime stage's base {stage['from']} is not one this check can make")
    rootfs = os.path.join(work, "rootfs")
    log("debootstrap --variant=minbase bookworm (about a minute)")
    run(["debootstrap", "--variant=minbase", "bookworm", rootfs, "http://deb.debian.org/debian"],
        stdout=subprocess.DEVNULL)
    shutil.copy2("/etc/resolv.conf", os.path.join(rootfs, "etc/resolv.conf"))
    settings = {"env": {}, "workdir": "/", "user": "root", "entrypoint": None, "cmd": [], "healthcheck": None}
    apt_env = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
               "DEBIAN_FRONTEND": "noninteractive", "HOME": "/root"}
    for keyword, argument in stage["instructions"]:
        if keyword == "RUN":
            log(f"runtime RUN: {argument[:100]}…")
            chroot_shell(rootfs, argument, env={**apt_env, **settings["env"]})
        elif keyword == "WORKDIR":
            settings["workdir"] = resolve(settings["workdir"], argument)
            os.makedirs(rootfs + settings["workdir"], exist_ok=True)
        elif keyword == "COPY":
            words = shlex.split(argument)
            origin = context
            if words[0].startswith("--from="):
                name = words.pop(0).split("=", 1)[1]
                if name not in outputs:
                    fail(f"COPY --from={name}: no such stage built")
                origin = outputs[name]
            *sources, target = words
            for source in sources:
                if origin is not context:
                    # A path in the build stage's image: only what it wrote under /out exists here.
                    if not source.startswith("/out/"):
                        fail(f"COPY --from reads {source}; this check maps only /out")
                    path = os.path.join(origin, source[len("/out/"):])
                else:
                    path = os.path.join(context, source)
                if not os.path.exists(path):
                    fail(f"COPY source {source} does not exist")
                copy_into(path, rootfs + resolve(settings["workdir"], target))
        elif keyword == "ENV":
            settings["env"].update(parse_env(argument))
        elif keyword == "USER":
            settings["user"] = argument
        elif keyword == "ENTRYPOINT":
            settings["entrypoint"] = exec_form(argument)
        elif keyword == "CMD":
            settings["cmd"] = exec_form(argument)
        elif keyword == "HEALTHCHECK":
            settings["healthcheck"] = argument.split(" CMD ", 1)[1] if " CMD " in argument else None
        elif keyword in ("VOLUME", "EXPOSE", "LABEL", "ARG", "STOPSIGNAL"):
            settings.setdefault(keyword.lower(), []).append(argument)
        else:
            fail(f"runtime stage instruction {keyword} is not handled")
    return rootfs, settings


def user_ids(rootfs, user):
    for line in open(os.path.join(rootfs, "etc/passwd")):
        fields = line.split(":")
        if fields[0] == user or fields[2] == user:
            return int(fields[2]), int(fields[3])
    fail(f"USER {user} is not in the image's /etc/passwd")


def check_image(rootfs, settings):
    binary = settings["entrypoint"][0]
    found = subprocess.run(["chroot", rootfs, "/bin/sh", "-c", f"ldd \"$(command -v {binary})\""],
                           capture_output=True, text=True,
                           env={"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"})
    if found.returncode != 0 or "not found" in found.stdout:
        fail(f"the binary's libraries in the image:\n{found.stdout}{found.stderr}")
    log("every shared library the binary links is in the image: " +
        ", ".join(sorted({line.split()[0] for line in found.stdout.splitlines() if "=>" in line})))
    uid, gid = user_ids(rootfs, settings["user"])
    if uid == 0:
        fail("the image runs as root")
    for volume in (json.loads(v)[0] if v.startswith("[") else v for v in settings.get("volume", [])):
        mode = os.stat(rootfs + volume)
        if mode.st_uid != uid:
            fail(f"the volume {volume} is not owned by {settings['user']}")
        if mode.st_mode & 0o077:
            fail(f"the volume {volume} is open to other users (mode {oct(mode.st_mode & 0o777)})")
    return uid, gid


# Runs in private network, mount and pid namespaces (whatever it leaves running ends with it):
# ENTRYPOINT as the USER, the HEALTHCHECK as the USER, then requests with curl from inside the image to
# an address other than loopback's, as a published port's traffic arrives. Written to a file and run
# by `unshare`.
SCENARIO = r"""
set -eu
rootfs="$1"; uid="$2"; gid="$3"; workdir="$4"; health="$5"; shift 5
pid=""
trap '[ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null; umount "$rootfs/proc" 2>/dev/null || true' EXIT
ip link set lo up
ip addr add 192.0.2.1/32 dev lo
mount -t proc proc "$rootfs/proc"
in_image() { chroot "$rootfs" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$@"; }
as_user() { chroot --userspec="$uid:$gid" "$rootfs" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$@"; }
start() {
    chroot --userspec="$uid:$gid" "$rootfs" /usr/bin/env -i -C "$workdir" HOME="$workdir" \
        PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin FORMHOUSE_ADMIN_TOKENS=@TOKEN@ "$@" \
        >"$rootfs/../server.log" 2>&1 &
    pid=$!
    for _ in $(seq 1 100); do
        if as_user /bin/sh -c "$health" >/dev/null 2>&1; then echo "image-check: HEALTHCHECK passed ($health)"; return; fi
        kill -0 "$pid" 2>/dev/null || { cat "$rootfs/../server.log"; echo "image-check: the server exited"; exit 1; }
        sleep 0.2
    done
    cat "$rootfs/../server.log"; echo "image-check: HEALTHCHECK never passed"; exit 1
}
# As `docker stop`: SIGTERM, and the server must be gone within its 10 s, having exited 0.
stop() {
    kill -TERM "$pid"
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    if kill -0 "$pid" 2>/dev/null; then echo "image-check: the server did not stop within 10 s of SIGTERM"; exit 1; fi
    status=0; wait "$pid" || status=$?
    pid=""
    [ "$status" = 0 ] || { tail -5 "$rootfs/../server.log"; echo "image-check: the server exited $status on SIGTERM"; exit 1; }
}
start "$@"
in_image curl -fsS http://192.0.2.1:@PORT@/v1/forms/formworks-example -o /tmp/form.json || {
    echo "image-check: GET on 192.0.2.1:@PORT@ failed: does the server listen beyond loopback (FORMHOUSE_HOST)?"; exit 1; }
echo "image-check: GET /v1/forms/formworks-example: $(in_image wc -c < "$rootfs/tmp/form.json") bytes (a sample form from config/forms)"
code=$(in_image curl -sS -o /tmp/answer.json -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
    -d '{"values":{"name":"Ana Souza","email":"ana@example.org","about":"Hello","text-what-is-your-mothers-name":"Maria","phone":"(11) 91234-5678","age":"30"}}' \
    http://192.0.2.1:@PORT@/v1/forms/formworks-example/submissions)
[ "$code" = 201 ] || { cat "$rootfs/tmp/answer.json"; echo; echo "image-check: submission answered $code"; exit 1; }
id=$(sed 's/.*"id":"\([^"]*\)".*/\1/' "$rootfs/tmp/answer.json")
echo "image-check: POST submission: 201, $id"
stop
ls -ln "$rootfs/data" | sed 's/^/image-check:   \/data: /'
start "$@"
code=$(in_image curl -sS -o /tmp/read.json -w '%{http_code}' -H "Authorization: Bearer @TOKEN@" "http://192.0.2.1:@PORT@/v1/admin/submissions/$id")
[ "$code" = 200 ] && grep -q "\"$id\"" "$rootfs/tmp/read.json" \
    || { cat "$rootfs/tmp/read.json"; echo; echo "image-check: after a restart, reading the submission answered $code"; exit 1; }
echo "image-check: after a restart, GET /v1/admin/submissions/$id found it"
stop
"""


def run_image(rootfs, settings, uid, gid, work):
    env = settings["env"]
    port = env.get("FORMHOUSE_PORT", "8080")
    command = settings["entrypoint"] + settings["cmd"]
    health = settings["healthcheck"]
    if not health:
        fail("the runtime stage has no HEALTHCHECK")
    environment = [f"{key}={value}" for key, value in env.items()]
    script = os.path.join(work, "scenario.sh")
    with open(script, "w") as handle:
        handle.write(SCENARIO.replace("@TOKEN@", TOKEN).replace("@PORT@", port))
    if port not in [word.split("/")[0] for value in settings.get("expose", []) for word in value.split()]:
        fail(f"the server listens on {port}, which the Dockerfile does not EXPOSE")
    run(["unshare", "--net", "--mount", "--pid", "--fork", "--kill-child", "/bin/bash", script, rootfs, str(uid), str(gid),
         settings["workdir"], health, *environment, *command])


def main():
    if os.geteuid() != 0:
        fail("needs root (chroot, debootstrap, namespaces)")
    for tool in ("debootstrap", "unshare", "ip", "chroot"):
        if not shutil.which(tool):
            fail(f"needs {tool} (apt-get install -y debootstrap iproute2)")
    keep = "--keep" in sys.argv
    cache = sys.argv[sys.argv.index("--cache") + 1] if "--cache" in sys.argv else None
    dockerfile = sys.argv[sys.argv.index("--dockerfile") + 1] if "--dockerfile" in sys.argv else os.path.join(ROOT, "Dockerfile")
    work = tempfile.mkdtemp(prefix="formhouse-image-")
    try:
        stages = parse_dockerfile(dockerfile)
        if len(stages) != 2 or not stages[0]["name"]:
            fail("expected two stages, the first one named")
        context = os.path.join(work, "context")
        copy_context(context)
        build = stages[0]
        check_toolchain(build["from"])
        outputs = {build["name"]: build_stage(build, context, work, cache)}
        rootfs, settings = runtime_stage(stages[1], context, outputs, work)
        uid, gid = check_image(rootfs, settings)
        log(f"runs as {settings['user']} ({uid}:{gid}) in {settings['workdir']}: {shlex.join(settings['entrypoint'] + settings['cmd'])}")
        run_image(rootfs, settings, uid, gid, work)
        log("passed")
    finally:
        if keep:
            log(f"kept {work}")
        else:
            subprocess.run(["umount", os.path.join(work, "rootfs/proc")], stderr=subprocess.DEVNULL)
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
