package extractor

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// serverMetrics are the extractor's instruments.
type serverMetrics struct {
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
	inFlight prometheus.Gauge
	queued   prometheus.Gauge
}

func newServerMetrics(reg prometheus.Registerer) *serverMetrics {
	m := &serverMetrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "doceval_extractor_requests_total",
			Help: "Documents the extractor was asked to parse, by operation (extract, render) and outcome (ok, refused, error, busy, too_large, bad_request).",
		}, []string{"operation", "outcome"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "doceval_extractor_request_duration_seconds",
			Help:    "Time from a request's arrival to its answer, by operation.",
			Buckets: []float64{0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600},
		}, []string{"operation"}),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "doceval_extractor_in_flight", Help: "Documents being parsed now.",
		}),
		queued: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "doceval_extractor_waiting", Help: "Requests waiting for a parser slot.",
		}),
	}
	if reg != nil {
		reg.MustRegister(m.requests, m.duration, m.inFlight, m.queued)
	}
	return m
}

func (m *serverMetrics) observe(op, outcome string, d time.Duration) {
	m.requests.WithLabelValues(op, outcome).Inc()
	m.duration.WithLabelValues(op).Observe(d.Seconds())
}
