package dispatch

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/doceval/doceval/pkg/store"
)

// deliveryOutcomes name, for doceval_webhook_deliveries_total, the state a delivery is
// settled in after an attempt (or without one, for a deleted endpoint).
var deliveryOutcomes = map[string]string{
	store.DeliverySucceeded:       "delivered",
	store.DeliveryFailedRetryable: "retry_scheduled",
	store.DeliveryAbandoned:       "abandoned",        // the retry schedule is used up
	store.DeliveryFailedPermanent: "endpoint_deleted", // its endpoint was deleted: never sent
}

// Metrics are the dispatcher's Prometheus metrics.
type Metrics struct {
	deliveries *prometheus.CounterVec
	attempts   *prometheus.HistogramVec
}

// NewMetrics registers the dispatcher metrics on reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		deliveries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "doceval_webhook_deliveries_total",
			Help: "Webhook deliveries settled, by outcome: delivered, retry_scheduled, abandoned (retries used up) or endpoint_deleted.",
		}, []string{"outcome"}),
		attempts: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "doceval_webhook_attempt_duration_seconds",
			Help:    "Latency of one webhook HTTP attempt, by attempt outcome: succeeded, http_error, timeout, network_error or blocked.",
			Buckets: []float64{.01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 20, 30, 60},
		}, []string{"outcome"}),
	}
	for _, outcome := range deliveryOutcomes {
		m.deliveries.WithLabelValues(outcome)
	}
	reg.MustRegister(m.deliveries, m.attempts)
	return m
}

// settled records a delivery settled in status.
func (m *Metrics) settled(status string) {
	if m == nil {
		return
	}
	if outcome, ok := deliveryOutcomes[status]; ok {
		m.deliveries.WithLabelValues(outcome).Inc()
	}
}

// attempted records one HTTP attempt.
func (m *Metrics) attempted(outcome string, took time.Duration) {
	if m == nil {
		return
	}
	m.attempts.WithLabelValues(outcome).Observe(took.Seconds())
}
