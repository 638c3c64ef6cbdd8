# Build: the Swift 6.3 toolchain image compiles a release binary.
FROM swift:6.3-bookworm AS build
RUN apt-get update && apt-get install -y --no-install-recommends libcurl4-openssl-dev libsqlite3-dev \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
# The manifest declares the benchmark and test targets too, and SwiftPM checks every target's folder.
COPY Package.swift ./
COPY Sources ./Sources
COPY Benchmarks ./Benchmarks
COPY Tests ./Tests
RUN swift build -c release --product formhouse --static-swift-stdlib \
    && install -D "$(swift build -c release --show-bin-path)/formhouse" /out/formhouse

# Run: a slim image with only the libraries the binary links, the web pages and the sample config.
# /data is 0700: the database files take the umask, and a new named volume takes this folder's mode
# (and /data/files', where uploaded files go: a volume shared by several nodes is mounted there).
FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends libcurl4 libsqlite3-0 ca-certificates curl \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 --home-dir /app --shell /usr/sbin/nologin formhouse \
    && mkdir -p /data/files && chown formhouse /data /data/files && chmod 700 /data /data/files
WORKDIR /app
COPY --from=build /out/formhouse /usr/local/bin/formhouse
COPY Public ./Public
COPY config ./config
USER formhouse
VOLUME ["/data"]
ENV FORMHOUSE_HOST=0.0.0.0 FORMHOUSE_PORT=8080 FORMHOUSE_DATA_DIRECTORY=/data
EXPOSE 8080
# Shell form, so the port is read when the check runs: `docker run -e FORMHOUSE_PORT=…` stays healthy.
HEALTHCHECK --interval=30s --timeout=3s --start-period=10s CMD curl -fsS "http://127.0.0.1:${FORMHOUSE_PORT}/healthz" || exit 1
ENTRYPOINT ["formhouse", "serve"]
