// Command doceval-api serves the HTTP API of openapi/openapi.yaml on DOCEVAL_HTTP_ADDR,
// relays the outbox to JetStream, and serves /healthz, /readyz and /metrics.
package main

import (
	"github.com/doceval/doceval/pkg/apiserver"
	"github.com/doceval/doceval/pkg/service"
)

func main() {
	service.Main("api", apiserver.Run)
}
