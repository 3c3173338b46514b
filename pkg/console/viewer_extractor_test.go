package console_test

import (
	"bytes"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/doceval/doceval/pkg/console"
	"github.com/doceval/doceval/pkg/extract"
	"github.com/doceval/doceval/pkg/extractor"
	"github.com/doceval/doceval/pkg/store"
	"github.com/doceval/doceval/pkg/testkit/metricstest"
	"github.com/doceval/doceval/pkg/testkit/samplepdf"
)

// With DOCEVAL_EXTRACTOR_URL set, the viewer's pages are rendered by the extractor
// service, not in the console's process; a PDF it cannot render is a missing page as
// before, and an extractor out of reach a 503 to try again.
func TestViewerRendersThroughExtractor(t *testing.T) {
	t.Parallel()
	needPoppler(t)
	reg := prometheus.NewRegistry()
	srv := httptest.NewServer(extractor.NewServer(extractor.ServerConfig{
		MaxBodyBytes: 10 << 20, Concurrency: 1, QueueWait: time.Second, MaxTimeout: time.Minute, ToolMaxMemory: 1 << 30,
	}, slog.New(slog.DiscardHandler), reg).Handler())
	defer srv.Close()
	b := setup(t, func(d *console.Deps) { d.Settings.Extractor.URL = srv.URL })
	c := b.client("Broker")
	pdf := samplepdf.Text([][]string{{"Gehaltsabrechnung Januar 2026"}, {"Seite zwei"}})
	v := b.viewerUpload(c.ID, "payslip.pdf", extract.PDF, pdf, textPages("Gehaltsabrechnung Januar 2026", "Seite zwei"))
	broken := b.viewerUpload(c.ID, "broken.pdf", extract.PDF, []byte("%PDF-1.4\nnot really\n"), textPages("?"))
	pw := b.operator("advisor@example.com", store.RoleAdvisor, nil)
	br := b.browser()
	br.signIn("advisor@example.com", pw)

	res, png := br.image("/uploads/" + v.upload.ID.String() + "/pages/2/image")
	if res.StatusCode != http.StatusOK || !bytes.HasPrefix(png, pngMagic) {
		t.Fatalf("page image: %d %q", res.StatusCode, png[:min(len(png), 40)])
	}
	if p := br.get("/uploads/" + broken.upload.ID.String() + "/pages/1/image"); p.status != http.StatusNotFound {
		t.Errorf("a PDF the extractor cannot render: %d", p.status)
	}
	metricstest.WaitFor(t, reg, 1, "doceval_extractor_requests_total", "operation", "render", "outcome", "ok")
	metricstest.WaitFor(t, reg, 1, "doceval_extractor_requests_total", "operation", "render", "outcome", "refused")

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := "http://" + ln.Addr().String()
	ln.Close()
	b = setup(t, func(d *console.Deps) { d.Settings.Extractor.URL = down })
	c = b.client("Broker")
	v = b.viewerUpload(c.ID, "payslip.pdf", extract.PDF, pdf, textPages("Gehaltsabrechnung Januar 2026", "Seite zwei"))
	pw = b.operator("advisor@example.com", store.RoleAdvisor, nil)
	br = b.browser()
	br.signIn("advisor@example.com", pw)
	if res, _ := br.image("/uploads/" + v.upload.ID.String() + "/pages/1/image"); res.StatusCode != http.StatusServiceUnavailable || res.Header.Get("Retry-After") == "" {
		t.Errorf("with the extractor out of reach: %d, Retry-After %q", res.StatusCode, res.Header.Get("Retry-After"))
	}
}
