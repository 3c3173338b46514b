// Package metricstest reads single series out of a Prometheus registry, so a test can
// assert that the work it drove moved a metric with the right labels.
package metricstest

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// Value returns the series of name whose labels include the given name, value pairs: a
// counter's or gauge's value, a histogram's number of observations; and whether the
// series exists.
func Value(t testing.TB, g prometheus.Gatherer, name string, labels ...string) (float64, bool) {
	t.Helper()
	if len(labels)%2 != 0 {
		t.Fatalf("labels of %s: %q is not name, value pairs", name, labels)
	}
	families, err := g.Gather()
	if err != nil {
		t.Fatalf("gather: %v", err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			if !matches(m, labels) {
				continue
			}
			switch {
			case m.Counter != nil:
				return m.Counter.GetValue(), true
			case m.Gauge != nil:
				return m.Gauge.GetValue(), true
			case m.Histogram != nil:
				return float64(m.Histogram.GetSampleCount()), true
			}
			t.Fatalf("%s is no counter, gauge or histogram", name)
		}
	}
	return 0, false
}

// WaitFor waits until the series of name with labels has value want (see Value): the
// work a test drove may record its metrics just after its visible effect.
func WaitFor(t testing.TB, g prometheus.Gatherer, want float64, name string, labels ...string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		got, ok := Value(t, g, name, labels...)
		if ok && got == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s%q = %v (reported: %v), want %v", name, labels, got, ok, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func matches(m *dto.Metric, labels []string) bool {
	have := map[string]string{}
	for _, l := range m.GetLabel() {
		have[l.GetName()] = l.GetValue()
	}
	for i := 0; i < len(labels); i += 2 {
		if v, ok := have[labels[i]]; !ok || v != labels[i+1] {
			return false
		}
	}
	return true
}
