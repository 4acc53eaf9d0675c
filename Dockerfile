# toolgate in a container: serves /workspace on all interfaces of the
# container (the compose file publishes it on the host's loopback only).
#
# The runtime image carries what the usual stdio MCP servers start with
# (node and npm for npx servers, python3 and pipx for Python ones: Debian
# packages no uv), bubblewrap for the command sandbox, and tini as init.
# It runs as an unprivileged user; `docker run --user UID:GID` (or
# `user:` in compose) makes files written to the workspace belong to the
# host user. Build with --build-arg WITH_CHROMIUM=true for browser_action.
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# toolgate-sandbox, beside toolgate, is the sandbox's helper: it starts
# each command several times faster than toolgate re-executing itself.
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/ ./cmd/toolgate ./cmd/toolgate-sandbox

FROM debian:bookworm-slim
ARG WITH_CHROMIUM=false
RUN apt-get update \
    && apt-get install -y --no-install-recommends \
       bash bubblewrap ca-certificates curl git nodejs npm pipx python3 ripgrep tini universal-ctags \
    && if [ "$WITH_CHROMIUM" = "true" ]; then apt-get install -y --no-install-recommends chromium; fi \
    && rm -rf /var/lib/apt/lists/*
# Any uid may run the image: HOME and the state directory are writable by
# all (sticky), and the compose file mounts them as tmpfs and a volume.
RUN useradd --uid 10001 --user-group --home-dir /home/toolgate --create-home toolgate \
    && mkdir -p /var/lib/toolgate /etc/toolgate /workspace \
    && chmod 1777 /home/toolgate /var/lib/toolgate
COPY --from=build /out/toolgate /out/toolgate-sandbox /usr/local/bin/
COPY deploy/toolgate.json /etc/toolgate/toolgate.json
ENV HOME=/home/toolgate XDG_STATE_HOME=/var/lib/toolgate
USER 10001:10001
WORKDIR /workspace
EXPOSE 7420
# SIGTERM lets running calls finish (up to shutdown_grace) before the
# process exits; tini passes it on and reaps the processes calls leave.
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=10s --timeout=3s --start-period=5s --retries=3 \
    CMD ["curl", "-fsS", "-o", "/dev/null", "http://127.0.0.1:7420/healthz"]
ENTRYPOINT ["/usr/bin/tini", "--", "toolgate", "serve", "--addr", "0.0.0.0:7420", "--workspace", "/workspace", "--config", "/etc/toolgate/toolgate.json"]
