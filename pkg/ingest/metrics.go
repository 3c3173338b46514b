package ingest

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/doceval/doceval/pkg/document"
	"github.com/doceval/doceval/pkg/store"
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
	orphans  prometheus.Counter
}

// NewMetrics registers the ingest metrics on reg; with st, also the purges waiting
// (doceval_purges_pending, doceval_purges_pending_oldest_seconds, read at scrape time),
// which the chart's PrometheusRule alerts on.
func NewMetrics(reg prometheus.Registerer, st *store.Store) *Metrics {
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
		orphans: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "doceval_orphan_objects_removed_total",
			Help: "Stored objects no row referenced that the sweep removed (lost blob deletes, renders after a purge, uploads that never committed).",
		}),
	}
	reg.MustRegister(m.duration, m.pages, m.orphans)
	if st != nil {
		reg.MustRegister(purgeCollector{store: st})
	}
	return m
}

// countOrphans records objects the sweep removed.
func (m *Metrics) countOrphans(n int) {
	if m == nil {
		return
	}
	m.orphans.Add(float64(n))
}

// purgeCollector exports the purges waiting at scrape time, from the database, so every
// replica reports the same figures and a purge nobody works on still shows.
type purgeCollector struct{ store *store.Store }

var (
	purgesPendingDesc = prometheus.NewDesc("doceval_purges_pending", "Submissions whose purge was requested and has not finished.", nil, nil)
	purgesOldestDesc  = prometheus.NewDesc("doceval_purges_pending_oldest_seconds", "Time since the oldest unfinished purge was requested (0 when none waits).", nil, nil)
)

func (purgeCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- purgesPendingDesc
	ch <- purgesOldestDesc
}

func (c purgeCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	pending, oldest, err := c.store.PurgeStats(ctx)
	if err != nil {
		// Left out, not an error: an error would fail the whole scrape (the process's
		// other metrics too). The chart's DocevalPurgeUnmeasured alerts on the absence.
		return
	}
	ch <- prometheus.MustNewConstMetric(purgesPendingDesc, prometheus.GaugeValue, float64(pending))
	ch <- prometheus.MustNewConstMetric(purgesOldestDesc, prometheus.GaugeValue, oldest.Seconds())
}

// observe records one processed upload; outcome "" (nothing to do) is not recorded.
func (m *Metrics) observe(outcome string, took time.Duration) {
	if m == nil || outcome == "" {
		return
	}
	m.duration.WithLabelValues(outcome).Observe(took.Seconds())
}

// countPages records the pages of a ready upload.
func (m *Metrics) countPages(pages []document.Page) {
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
