// Command doceval-console serves the staff web console (pkg/console) on
// DOCEVAL_HTTP_ADDR, relays the outbox, and serves /healthz, /readyz and /metrics on
// the internal DOCEVAL_OPS_ADDR.
package main

import (
	"github.com/doceval/doceval/pkg/console"
	"github.com/doceval/doceval/pkg/service"
)

func main() {
	service.Main("console", console.Run)
}
