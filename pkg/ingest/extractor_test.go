package ingest_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/doceval/doceval/pkg/document"
	"github.com/doceval/doceval/pkg/domain/submission"
	"github.com/doceval/doceval/pkg/extract"
	"github.com/doceval/doceval/pkg/extractor"
	"github.com/doceval/doceval/pkg/testkit/metricstest"
)

// With DOCEVAL_EXTRACTOR_URL set, ingest parses in the extractor service and records
// the same pages and the same refusals as in process. While the extractor is down the
// uploads wait, their attempts uncounted, and they finish once it is back.
func TestIngestThroughExtractor(t *testing.T) {
	e := newEnv(t)
	reg := prometheus.NewRegistry()
	server := extractor.NewServer(extractor.ServerConfig{
		MaxBodyBytes: 10 << 20, Concurrency: 2, QueueWait: 5 * time.Second, MaxTimeout: time.Minute,
		ToolMaxMemory: 2 << 30,
	}, slog.New(slog.DiscardHandler), reg).Handler()
	// The extractor is down (every answer 503, its readiness too), then ready but busy
	// (its readiness answers, every document waits past its queue: 503), then up.
	const (
		down = iota
		busy
		up
	)
	var state atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s := state.Load(); s == down || s == busy && r.URL.Path != "/readyz" {
			http.Error(w, `{"error":"every parser slot is busy"}`, http.StatusServiceUnavailable)
			return
		}
		server.ServeHTTP(w, r)
	}))
	defer srv.Close()

	body := textPDF("Gehaltsabrechnung Januar 2026", "Name: Max Müller    Netto 3.250,00 EUR")
	pdf := e.upload("payslip", extract.PDF, body)
	word97, err := os.ReadFile("../extract/testdata/payslip.doc")
	if err != nil {
		t.Fatal(err)
	}
	doc := e.upload("legacy", extract.DOC, word97)
	corrupt := e.upload("corrupt", extract.PDF, []byte("%PDF-1.4\nnot really\n"))

	remote := cfg
	remote.MaxAttempts = 2
	remote.Extractor.URL = srv.URL
	e.worker(remote)
	for _, phase := range []int32{down, busy} {
		state.Store(phase)
		time.Sleep(5 * time.Second) // deliveries at about 0, 1 and 3 s meet the outage
		for _, id := range []uuid.UUID{pdf, doc, corrupt} {
			if u := e.waitStatusNow(id); u.Status != submission.UploadProcessing {
				t.Fatalf("%s while the extractor is %d: %s %+v", u.ExternalFileID, phase, u.Status, u.Failure)
			}
			if n := e.count("SELECT ingest_attempts FROM uploads WHERE id = $1", id); n != 0 {
				t.Errorf("%d attempts counted while the extractor is %d", n, phase)
			}
		}
	}

	state.Store(up)
	for id, want := range map[uuid.UUID]string{pdf: "", doc: "", corrupt: extract.CodeCorrupt} {
		u := e.waitStatus(id, 90*time.Second)
		switch {
		case want == "" && u.Status != submission.UploadReady:
			t.Errorf("%s: %s %+v, want ready", u.ExternalFileID, u.Status, u.Failure)
		case want != "" && (u.Status != submission.UploadFailed || u.Failure == nil || u.Failure.Code != want):
			t.Errorf("%s: %s %+v, want failed %s", u.ExternalFileID, u.Status, u.Failure, want)
		}
	}
	// Parsed there, not here.
	metricstest.WaitFor(t, reg, 2, "doceval_extractor_requests_total", "operation", "extract", "outcome", "ok")
	metricstest.WaitFor(t, reg, 1, "doceval_extractor_requests_total", "operation", "extract", "outcome", "refused")

	for id, file := range map[uuid.UUID]struct {
		body        []byte
		contentType string
	}{pdf: {body, extract.PDF}, doc: {word97, extract.DOC}} {
		want, err := extract.File(context.Background(), writeFile(t, file.body), file.contentType, extract.Options{
			MaxPages: cfg.MaxPages, Timeout: cfg.FileTimeout, Languages: cfg.Languages,
		})
		if err != nil {
			t.Fatal(err)
		}
		rows, err := e.st.Pool().Query(context.Background(), "SELECT page, text, chars, ocr FROM upload_pages WHERE upload_id = $1 ORDER BY page", id)
		if err != nil {
			t.Fatal(err)
		}
		var got []document.Page
		for rows.Next() {
			var p document.Page
			if err := rows.Scan(&p.Number, &p.Text, &p.Chars, &p.OCR); err != nil {
				t.Fatal(err)
			}
			got = append(got, p)
		}
		rows.Close()
		if len(got) != len(want.Pages) || len(got) == 0 {
			t.Fatalf("%s: %d pages stored, %d extracted in process", file.contentType, len(got), len(want.Pages))
		}
		for i, p := range got {
			w := want.Pages[i]
			if p.Number != w.Number || p.Text != w.Text || p.Chars != w.Chars || p.OCR != w.OCR {
				t.Errorf("%s page %d: stored %+v, in process %+v", file.contentType, i+1, p, w)
			}
		}
	}
}
