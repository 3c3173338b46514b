# doceval-console: the staff web console, a static Go binary next to the page renderer it
# runs (poppler's pdftoppm, with metric-compatible fonts for PDFs that do not embed
# theirs) and util-linux's prlimit that bounds it, as a non-root user.
# Build from the repository root:
# docker build -f deploy/docker/console.Dockerfile --build-arg VERSION=1.0.0 .
FROM golang:1.26-bookworm AS build
ARG VERSION=dev
WORKDIR /src
# The main module requires the client, SDK and CLI modules at their release version (the
# CLI for its tests only): the image builds with all four from this tree, in the
# workspace images.work (the repository's go.work also holds the chart-verification
# module, whose Helm and Kubernetes dependencies no image needs).
ENV GOWORK=/src/deploy/docker/images.work
COPY go.mod go.sum ./
COPY gen/client/go.mod gen/client/go.sum gen/client/
COPY pkg/sdk/go.mod pkg/sdk/go.sum pkg/sdk/
COPY services/doceval/go.mod services/doceval/go.sum services/doceval/
COPY deploy/docker/images.work deploy/docker/images.work.sum deploy/docker/
# In a workspace, go mod download fetches the whole build list, the dependencies' own
# test dependencies included: only the modules the main module requires.
RUN go mod download $(awk '/^require \(/ {r = 1; next} /^\)/ {r = 0} r && $1 !~ /doceval/ {print $1} /^require [^(]/ && $2 !~ /doceval/ {print $2}' go.mod)
COPY . .
RUN CGO_ENABLED=0 go build -trimpath \
    -ldflags "-s -w -X github.com/doceval/doceval/pkg/service.Version=${VERSION}" \
    -o /out/doceval-console ./services/console

FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends poppler-utils fonts-liberation2 util-linux ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --gid 65532 doceval && useradd --uid 65532 --gid 65532 --no-create-home --shell /usr/sbin/nologin doceval \
 && mkdir -p /var/lib/doceval/blobs && chown 65532:65532 /var/lib/doceval/blobs
COPY --from=build /out/doceval-console /usr/local/bin/doceval-console
# Temporary files go to /tmp: mount an emptyDir there with a read-only root.
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/doceval-console"]
