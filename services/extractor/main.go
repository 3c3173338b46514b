// Command doceval-extractor parses documents for ingest and the console (pkg/extractor):
// text extraction and page rendering with poppler, tesseract and antiword on
// DOCEVAL_HTTP_ADDR, /healthz, /readyz and /metrics on DOCEVAL_OPS_ADDR. It holds no
// credential and connects to nothing, so a parser compromised by a hostile file finds
// nothing to take.
package main

import (
	"github.com/doceval/doceval/pkg/extractor"
	"github.com/doceval/doceval/pkg/service"
)

func main() {
	service.Main("extractor", extractor.Run)
}
