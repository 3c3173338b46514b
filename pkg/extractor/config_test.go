package extractor_test

import (
	"testing"

	"github.com/doceval/doceval/pkg/config"
	"github.com/doceval/doceval/pkg/console"
	"github.com/doceval/doceval/pkg/ingest"
)

// Ingest and the console read DOCEVAL_EXTRACTOR_URL from the environment, as the chart
// and compose set it.
func TestCallersReadExtractorURL(t *testing.T) {
	t.Setenv("DOCEVAL_EXTRACTOR_URL", "http://doceval-extractor:8080")
	i, err := config.Load[ingest.Config]()
	if err != nil {
		t.Fatal(err)
	}
	c, err := config.Load[console.Settings]()
	if err != nil {
		t.Fatal(err)
	}
	if i.Extractor.URL != "http://doceval-extractor:8080" || c.Extractor.URL != "http://doceval-extractor:8080" {
		t.Errorf("ingest %q, console %q", i.Extractor.URL, c.Extractor.URL)
	}
}
