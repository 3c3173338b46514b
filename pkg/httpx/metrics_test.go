package httpx_test

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/doceval/doceval/pkg/httpx"
)

// Invented methods share one "_OTHER" series: a caller cannot grow the metric (or the
// span names) without bound, while the standard methods keep their own.
func TestObserveBoundsMethods(t *testing.T) {
	t.Parallel()
	reg := prometheus.NewRegistry()
	e := echo.New()
	e.Use(httpx.Observe(reg, slog.New(slog.DiscardHandler)))
	e.GET("/v1/things", func(c echo.Context) error { return c.NoContent(http.StatusNoContent) })
	for _, m := range []string{"GET", "FOO", "BAR", "X-INVENTED-1", "GET"} {
		e.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(m, "/v1/things", nil))
	}
	if n := testutil.CollectAndCount(reg, "doceval_http_request_duration_seconds"); n != 2 {
		t.Errorf("%d series, want 2 (GET 204 and _OTHER 405)", n)
	}
	problems, err := testutil.GatherAndLint(reg)
	if err != nil || len(problems) > 0 {
		t.Errorf("lint: %v %v", err, problems)
	}
}
