# toolgate in a container: serves /workspace on all interfaces of the
# container (the compose file publishes it on the host's loopback only).
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -o /out/toolgate ./cmd/toolgate

FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends bash bubblewrap ca-certificates git universal-ctags \
    && rm -rf /var/lib/apt/lists/*
COPY --from=build /out/toolgate /usr/local/bin/toolgate
WORKDIR /workspace
EXPOSE 7420
ENTRYPOINT ["toolgate", "serve", "--addr", "0.0.0.0:7420", "--workspace", "/workspace", "--config", "/etc/toolgate/toolgate.json"]
