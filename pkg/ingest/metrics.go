package ingest

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/doceval/doceval/pkg/extract"
)

// Outcomes of processing one upload, the outcome label of doceval_ingest_duration_seconds.
const (
	outcomeReady  = "ready"  // the upload is ready
	outcomeFailed = "failed" // the upload failed: bad input, lost bytes, or the last attempt
	outcomeRetry  = "retry"  // an infrastructure error: the job is redelivered
)

// Metrics are the ingest worker's Prometheus metrics.
type Metrics struct {
	duration *prometheus.HistogramVec
	pages    *prometheus.CounterVec
}

// NewMetrics registers the ingest metrics on reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "doceval_ingest_duration_seconds",
			Help:    "Time to process one upload (download, extraction, OCR, recording) by outcome: ready, failed or retry.",
			Buckets: []float64{.1, .25, .5, 1, 2.5, 5, 10, 20, 30, 60, 120, 300, 600},
		}, []string{"outcome"}),
		pages: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "doceval_ingest_pages_total",
			Help: "Pages extracted from ready uploads, by source: text (embedded text) or ocr.",
		}, []string{"source"}),
	}
	reg.MustRegister(m.duration, m.pages)
	return m
}

// observe records one processed upload; outcome "" (nothing to do) is not recorded.
func (m *Metrics) observe(outcome string, took time.Duration) {
	if m == nil || outcome == "" {
		return
	}
	m.duration.WithLabelValues(outcome).Observe(took.Seconds())
}

// countPages records the pages of a ready upload.
func (m *Metrics) countPages(pages []extract.Page) {
	if m == nil {
		return
	}
	for _, p := range pages {
		source := "text"
		if p.OCR {
			source = "ocr"
		}
		m.pages.WithLabelValues(source).Inc()
	}
}
