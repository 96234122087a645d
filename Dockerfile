# Umpire daemon image. Both stages install packages through scripts/install-deps, the script
# CI and `make deps` use, so the image builds from the same package list that CI tests.
FROM debian:bookworm-slim AS build
WORKDIR /src
COPY scripts/install-deps scripts/install-deps
RUN scripts/install-deps --build && rm -rf /var/lib/apt/lists/*
COPY . .
RUN make clean && make -j"$(nproc)" all

FROM debian:bookworm-slim
COPY scripts/install-deps /usr/local/lib/umpire/install-deps
RUN /usr/local/lib/umpire/install-deps --runtime && rm -rf /var/lib/apt/lists/* \
 && useradd --system --home-dir /var/lib/umpire --create-home --uid 10001 umpire
COPY --from=build /src/build/umpired /usr/local/bin/umpired
COPY config.example.toml /etc/umpire/config.toml
USER umpire
WORKDIR /var/lib/umpire
VOLUME ["/var/lib/umpire"]
EXPOSE 8080
# Listen on all interfaces inside the container; the data lives in the volume.
ENTRYPOINT ["/usr/local/bin/umpired", "--config", "/etc/umpire/config.toml", \
            "--listen", "0.0.0.0:8080", "--db", "/var/lib/umpire/umpire.db"]
# The daemon is its own health-check client: no curl in the image.
HEALTHCHECK --interval=30s --timeout=5s --start-period=5s --retries=3 \
  CMD ["/usr/local/bin/umpired", "--check-health", "http://127.0.0.1:8080/v1/health"]
