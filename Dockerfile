# cilia in a container (docs/install.md#docker):
#   docker build -t cilia .
#   docker run -d --name cilia -p 127.0.0.1:8420:8420 -v cilia-data:/var/lib/cilia cilia
# Two stages on Debian 12: the build stage installs scripts/setup.sh's build group (which also
# fetches llama.cpp's pinned source into third_party/, for kind = "local"; docs/embedding.md) and builds
# build/cilia with the default preset; the runtime stage has only the libraries the binary
# links (setup.sh's runtime group, which tests/e2e/package.test.mjs checks against the .deb's
# computed Depends) and runs as the unprivileged user cilia.

FROM debian:12 AS build
WORKDIR /src
COPY scripts/setup.sh scripts/setup.sh
RUN bash scripts/setup.sh --build && rm -rf /var/lib/apt/lists/*
COPY . .
# Only the binary: no unit tests or benchmarks (their packages are not installed here).
RUN cmake --preset default -DCILIA_BUILD_TESTS=OFF -DCILIA_BUILD_BENCH=OFF \
 && cmake --build --preset default --target cilia \
 && strip build/cilia

FROM debian:12
COPY scripts/setup.sh /tmp/setup.sh
RUN bash /tmp/setup.sh --runtime && rm -rf /var/lib/apt/lists/* /tmp/setup.sh \
 && useradd --system --user-group --home-dir /var/lib/cilia --no-create-home --shell /usr/sbin/nologin cilia \
 && install -d -o cilia -g cilia -m 0700 /var/lib/cilia
COPY --from=build /src/build/cilia /usr/bin/cilia
COPY packaging/cilia.toml /etc/cilia/cilia.toml
# Every port a container publishes is on its own network namespace: listen on all of its
# addresses, and choose who may reach it with `docker run -p` (127.0.0.1:8420:8420 keeps it
# on the host's loopback). cilia logs a warning for a non-loopback address; that is expected here.
ENV CILIA_SERVER_LISTEN=0.0.0.0:8420
USER cilia
WORKDIR /var/lib/cilia
# Keys, databases, images and admin.key: keep them in a volume, not in the container.
VOLUME /var/lib/cilia
EXPOSE 8420
# bash's /dev/tcp instead of curl: the image needs no HTTP client for this.
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 \
  CMD ["bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/8420 && printf 'GET /health HTTP/1.0\\r\\nHost: localhost\\r\\n\\r\\n' >&3 && head -n 1 <&3 | grep -q ' 200 '"]
ENTRYPOINT ["/usr/bin/cilia"]
CMD ["serve", "--config", "/etc/cilia/cilia.toml", "--data", "/var/lib/cilia"]
