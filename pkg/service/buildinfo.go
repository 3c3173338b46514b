package service

import (
	"runtime"
	"runtime/debug"

	"github.com/prometheus/client_golang/prometheus"
)

// BuildInfo is the gauge doceval_build_info, always 1, labelled with the service, its
// Version, the source revision it was built from (empty when the build did not record
// one) and the Go version: dashboards and alerts join on it to tell which build a
// replica runs, and a rollout shows as two versions side by side.
func BuildInfo(service string) prometheus.Collector {
	revision := ""
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			if s.Key == "vcs.revision" {
				revision = s.Value
			}
		}
	}
	g := prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "doceval_build_info",
		Help: "1, labelled with the service's name, version, source revision and Go version.",
		ConstLabels: prometheus.Labels{
			"service": service, "version": Version, "revision": revision, "goversion": runtime.Version(),
		},
	})
	g.Set(1)
	return g
}
