package httpx

import (
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"
)

// Observe records a latency histogram by route template, method and status, and logs
// each request (with its request id through the context).
func Observe(reg prometheus.Registerer, log *slog.Logger) echo.MiddlewareFunc {
	duration := prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "doceval_http_request_duration_seconds",
		Help:    "API request latency by route template, method and status.",
		Buckets: []float64{.002, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
	}, []string{"route", "method", "status"})
	reg.MustRegister(duration)
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			start := time.Now()
			err := next(c)
			status := responseStatus(c, err)
			route := c.Path()
			if route == "" {
				route = "unmatched"
			}
			elapsed := time.Since(start)
			duration.WithLabelValues(route, knownMethod(c.Request().Method), strconv.Itoa(status)).Observe(elapsed.Seconds())
			log.InfoContext(c.Request().Context(), "request",
				"method", c.Request().Method, "route", route, "status", status, "duration_ms", elapsed.Milliseconds())
			return err
		}
	}
}

// responseStatus is the status a request is answered with: the error handler has not
// written yet when a middleware sees err, so it is the status that handler will send.
func responseStatus(c echo.Context, err error) int {
	if err != nil {
		return toAPIError(err).Status
	}
	return c.Response().Status
}

// knownMethod is method when it is a standard HTTP method and "_OTHER" otherwise: any
// token is a valid method, and a label or span name per invented one would let anyone
// create metric series without bound (OpenTelemetry's convention for the same problem).
func knownMethod(method string) string {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodConnect, http.MethodOptions, http.MethodTrace:
		return method
	}
	return "_OTHER"
}
