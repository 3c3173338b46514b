// Package extractor puts the document tools (pkg/extract) behind a boundary: a Parser
// is either this process's own tools (Local) or a separate extractor service reached
// over HTTP (Client, served by Server in services/extractor). On Kubernetes, where pods
// usually cannot create namespaces, the extractor runs in a pod of its own with no
// credentials, no egress and a read-only root, so a parser compromised by a hostile
// file reaches nothing; ingest and the console send it the bytes and get back the text
// or the page image.
//
// This is an internal protocol between doceval's own services, not part of the
// partner contract (openapi/openapi.yaml).
package extractor

import (
	"context"
	"fmt"

	"github.com/doceval/doceval/pkg/extract"
)

// Parser extracts documents and renders their pages. Both implementations answer bad
// input with an *extract.Failure, so callers handle refusals the same way.
type Parser interface {
	// File is extract.File on the file at path.
	File(ctx context.Context, path, declared string, opt extract.Options) (*extract.Result, error)
	// RenderPage is extract.RenderPage on the PDF at pdfPath.
	RenderPage(ctx context.Context, pdfPath string, n, dpi int, limits extract.Limits) ([]byte, error)
	// Ready reports whether the parser can take work now: an unreachable extractor
	// service is an outage, which a caller waits out instead of counting it against the
	// file.
	Ready(ctx context.Context) error
	// Describe names where documents are parsed, for the start-up log.
	Describe() string
}

// Config chooses the Parser of a service that parses documents (ingest, the console).
type Config struct {
	// URL of the extractor service (http://doceval-extractor:8080); empty: this
	// process runs the document tools itself.
	URL string `env:"DOCEVAL_EXTRACTOR_URL"`
}

// CheckConfined makes sure this process may parse documents: with an extractor
// configured it runs no document tool itself (nothing to check); otherwise the tools
// must be confinable as c says (extract.Confinement.Check). It describes how documents
// are parsed; the service must not start on an error.
func CheckConfined(ctx context.Context, cfg Config, c extract.Confinement, tempDir string) (string, error) {
	if cfg.URL != "" {
		return "by the extractor service", nil
	}
	return c.Check(ctx, tempDir)
}

// New returns the remote Client when cfg names an extractor, else Local.
func New(cfg Config) (Parser, error) {
	if cfg.URL == "" {
		return Local{}, nil
	}
	c, err := NewClient(cfg.URL)
	if err != nil {
		return nil, fmt.Errorf("DOCEVAL_EXTRACTOR_URL: %w", err)
	}
	return c, nil
}

// Local runs the document tools in this process (confined by pkg/extract).
type Local struct{}

var _ Parser = Local{}

func (Local) File(ctx context.Context, path, declared string, opt extract.Options) (*extract.Result, error) {
	return extract.File(ctx, path, declared, opt)
}

func (Local) RenderPage(ctx context.Context, pdfPath string, n, dpi int, limits extract.Limits) ([]byte, error) {
	return extract.RenderPage(ctx, pdfPath, n, dpi, limits)
}

// Ready is always nil: a missing tool is reported by the extraction itself.
func (Local) Ready(context.Context) error { return nil }

// Describe says only where: how the tools are confined is what the service's start-up
// check (CheckConfined) found for its own setting.
func (Local) Describe() string { return "in this process" }
