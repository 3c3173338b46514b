package evaluator

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Outcomes of one run, the outcome label of doceval_evaluation_duration_seconds.
const (
	outcomeCompleted = "completed"
	outcomeFailed    = "failed"   // the engine failed: processing_error
	outcomeTimeout   = "timeout"  // failed as evaluation_timeout
	outcomeCanceled  = "canceled" // canceled, or its submission purged, while running
	outcomeHeld      = "held"     // its API client was disabled while running: it runs again when enabled
	outcomeRetry     = "retry"    // an infrastructure error or a shutdown: the job is redelivered
)

// Metrics are the evaluator's Prometheus metrics.
type Metrics struct {
	duration *prometheus.HistogramVec
}

// NewMetrics registers the evaluator metrics on reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "doceval_evaluation_duration_seconds",
		Help:    "Time from the start to the end of one evaluation run, by outcome: completed, failed, timeout, canceled, held or retry.",
		Buckets: []float64{.05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1200},
	}, []string{"outcome"})}
	reg.MustRegister(m.duration)
	return m
}

// observe records one run; outcome "" (no run began) is not recorded.
func (m *Metrics) observe(outcome string, took time.Duration) {
	if m == nil || outcome == "" {
		return
	}
	m.duration.WithLabelValues(outcome).Observe(took.Seconds())
}
