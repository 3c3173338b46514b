package messaging

import (
	"context"
	"maps"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"
)

// Outcomes of a consumed message, the outcome label of doceval_jetstream_messages_total.
const (
	outcomeAck   = "ack"   // handled
	outcomeRetry = "retry" // redelivered after a backoff
	outcomeTerm  = "term"  // a poison message, never redelivered
)

// Metrics are the JetStream consumer metrics of one process: counters and handler
// latency from Consume, and each running consumer's backlog read from JetStream at
// scrape time. One per registry; every Consume given it shares it.
type Metrics struct {
	messages     *prometheus.CounterVec
	redeliveries *prometheus.CounterVec
	duration     *prometheus.HistogramVec

	mu        sync.Mutex
	consumers map[consumerKey]stateReader
}

type consumerKey struct{ stream, durable string }

// consumerCounts is the backlog of a consumer (or the sum of a queue's consumers).
type consumerCounts struct{ pending, ackPending, redelivered uint64 }

// stateReader reads a consumer's backlog from JetStream.
type stateReader func(context.Context) (consumerCounts, error)

// consumerState reads the backlog of one consumer.
func consumerState(cons jetstream.Consumer) stateReader {
	return func(ctx context.Context) (consumerCounts, error) {
		info, err := cons.Info(ctx)
		if err != nil {
			return consumerCounts{}, err
		}
		return consumerCounts{info.NumPending, uint64(info.NumAckPending), uint64(info.NumRedelivered)}, nil
	}
}

// NewMetrics registers the consumer metrics on reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		messages: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "doceval_jetstream_messages_total",
			Help: "Messages handled by this process's consumers, by outcome: ack, retry (redelivered after a backoff) or term (poison).",
		}, []string{"consumer", "outcome"}),
		redeliveries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "doceval_jetstream_redeliveries_total",
			Help: "Messages received again after an earlier delivery (retried, or not acknowledged in time).",
		}, []string{"consumer"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "doceval_jetstream_handler_duration_seconds",
			Help:    "Time a consumer's handler took for one message, whatever its outcome.",
			Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600},
		}, []string{"consumer"}),
		consumers: map[consumerKey]stateReader{},
	}
	reg.MustRegister(m.messages, m.redeliveries, m.duration, backlogCollector{m})
	return m
}

// track adds a running consumer to the backlog gauges (state reads its backlog), and
// starts its counters at zero so rates exist from the first scrape. The returned func
// removes it.
func (m *Metrics) track(stream, durable string, state stateReader) (untrack func()) {
	if m == nil {
		return func() {}
	}
	for _, outcome := range []string{outcomeAck, outcomeRetry, outcomeTerm} {
		m.messages.WithLabelValues(durable, outcome)
	}
	m.redeliveries.WithLabelValues(durable)
	key := consumerKey{stream, durable}
	m.mu.Lock()
	m.consumers[key] = state
	m.mu.Unlock()
	return func() {
		m.mu.Lock()
		delete(m.consumers, key)
		m.mu.Unlock()
	}
}

// observe records one handled message.
func (m *Metrics) observe(durable, outcome string, redelivered bool, took time.Duration) {
	if m == nil {
		return
	}
	m.messages.WithLabelValues(durable, outcome).Inc()
	if redelivered {
		m.redeliveries.WithLabelValues(durable).Inc()
	}
	m.duration.WithLabelValues(durable).Observe(took.Seconds())
}

// backlogCollector reads each tracked consumer's state from JetStream at scrape time.
// Every replica of a service reports the same durable consumer: aggregate with max. A
// per-client queue (ConsumeFair) is reported as one consumer, its durable prefix, in
// QueuesStream: the sum over its clients' consumers.
type backlogCollector struct{ m *Metrics }

var (
	consumerLabels     = []string{"stream", "consumer"}
	pendingDesc        = prometheus.NewDesc("doceval_jetstream_consumer_pending_messages", "Messages in the stream not yet delivered to the consumer.", consumerLabels, nil)
	ackPendingDesc     = prometheus.NewDesc("doceval_jetstream_consumer_ack_pending_messages", "Messages delivered to the consumer and not yet acknowledged.", consumerLabels, nil)
	redeliveredNowDesc = prometheus.NewDesc("doceval_jetstream_consumer_redelivered_messages", "Messages of the consumer delivered more than once and not yet acknowledged.", consumerLabels, nil)
)

func (backlogCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- pendingDesc
	ch <- ackPendingDesc
	ch <- redeliveredNowDesc
}

// Collect leaves out a consumer whose state cannot be read (NATS unreachable) instead of
// failing the whole scrape: the process's other metrics matter most just then.
func (c backlogCollector) Collect(ch chan<- prometheus.Metric) {
	c.m.mu.Lock()
	consumers := maps.Clone(c.m.consumers)
	c.m.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	for key, state := range consumers {
		n, err := state(ctx)
		if err != nil {
			continue
		}
		ch <- prometheus.MustNewConstMetric(pendingDesc, prometheus.GaugeValue, float64(n.pending), key.stream, key.durable)
		ch <- prometheus.MustNewConstMetric(ackPendingDesc, prometheus.GaugeValue, float64(n.ackPending), key.stream, key.durable)
		ch <- prometheus.MustNewConstMetric(redeliveredNowDesc, prometheus.GaugeValue, float64(n.redelivered), key.stream, key.durable)
	}
}
