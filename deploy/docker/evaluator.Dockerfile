# doceval-evaluator: a static Go binary on distroless, as a non-root user.
# Build from the repository root: docker build -f deploy/docker/evaluator.Dockerfile --build-arg VERSION=1.0.0 .
FROM golang:1.26-bookworm AS build
ARG VERSION=dev
WORKDIR /src
# The main module alone (it replaces the client and SDK modules with their directories):
# the workspace also holds the chart-verification module, whose Helm and Kubernetes
# dependencies no image needs.
ENV GOWORK=off
COPY go.mod go.sum ./
COPY gen/client/go.mod gen/client/go.sum gen/client/
COPY pkg/sdk/go.mod pkg/sdk/go.sum pkg/sdk/
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath \
    -ldflags "-s -w -X github.com/doceval/doceval/pkg/service.Version=${VERSION}" \
    -o /out/doceval-evaluator ./services/evaluator \
 && mkdir -p /out/blobs

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/doceval-evaluator /usr/local/bin/doceval-evaluator
# The default file blob store, owned by the service user (a volume mounted here inherits it).
COPY --from=build --chown=65532:65532 /out/blobs /var/lib/doceval/blobs
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/doceval-evaluator"]
