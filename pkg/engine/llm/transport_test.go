package llm

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestRetryOnMalformedOutput(t *testing.T) {
	t.Parallel()

	d := document("gehalt.pdf", salaryPage1, salaryPage2)
	good := checkJSON("open", 0.8, "Second job found.", cite(d, 2, "Kellner im Gasthaus Krone"))
	c, bundle := setup(t, nil, answer("Sure! Here is my verdict: open, because …"), answer(good))

	out, err := c.Check(context.Background(), secondJobCheck(d))
	require.NoError(t, err)
	require.Equal(t, StatusOpen, out.Status)
	require.Len(t, out.Citations, 1)
	reqs := bundle.fake.received()
	require.Len(t, reqs, 2)
	require.Len(t, reqs[0].body.Messages, 2)
	require.Len(t, reqs[1].body.Messages, 2, "one user message: some chat templates reject two in a row")
	require.NotContains(t, reqs[0].user(), "could not be used")
	require.Contains(t, reqs[1].task(), "could not be used: no JSON object in the answer", "the retry says why the answer was unusable")
}

func TestAlwaysMalformedOutputIsAnError(t *testing.T) {
	t.Parallel()

	d := document("gehalt.pdf", salaryPage1)
	c, bundle := setup(t, nil, answer(`{"status": "open", "confidence": 0.8, "citations": [`))

	_, err := c.Check(context.Background(), secondJobCheck(d))
	require.ErrorIs(t, err, ErrMalformedOutput)
	require.Len(t, bundle.fake.received(), 3, "one attempt and MaxRetries (2) retries")
}

func TestCodeFencesAreStripped(t *testing.T) {
	t.Parallel()

	d := document("gehalt.pdf", salaryPage1, salaryPage2)
	fenced := "```json\n" + checkJSON("open", 0.7, "Second job.", cite(d, 2, "Kellner im Gasthaus Krone")) + "\n```"
	c, bundle := setup(t, nil, answer(fenced))

	out, err := c.Check(context.Background(), secondJobCheck(d))
	require.NoError(t, err)
	require.Equal(t, StatusOpen, out.Status)
	require.Len(t, out.Citations, 1)
	require.Len(t, bundle.fake.received(), 1)
}

func TestSlowServerTimesOutAndGivesUp(t *testing.T) {
	t.Parallel()

	d := document("gehalt.pdf", salaryPage1)
	c, bundle := setup(t, func(cfg *Config) { cfg.Timeout = 100 * time.Millisecond }, hang())

	start := time.Now()
	_, err := c.Check(context.Background(), secondJobCheck(d))
	require.ErrorContains(t, err, "timed out")
	require.Less(t, time.Since(start), 2*time.Second)
	require.Len(t, bundle.fake.received(), 3)
}

func TestRateLimitHonoursRetryAfter(t *testing.T) {
	t.Parallel()

	d := document("gehalt.pdf", salaryPage1, salaryPage2)
	c, bundle := setup(t, nil,
		status(http.StatusTooManyRequests, `{"error":{"message":"Rate limit reached"}}`, "Retry-After", "1"),
		answer(checkJSON("open", 0.8, "Second job.", cite(d, 2, "Kellner im Gasthaus Krone"))))

	start := time.Now()
	out, err := c.Check(context.Background(), secondJobCheck(d))
	require.NoError(t, err)
	require.Equal(t, StatusOpen, out.Status)
	require.GreaterOrEqual(t, time.Since(start), 950*time.Millisecond, "waited for Retry-After, not the 1 ms backoff")
	require.Len(t, bundle.fake.received(), 2)
}

func TestRetryAfterLongerThanAllowedGivesUp(t *testing.T) {
	t.Parallel()

	d := document("gehalt.pdf", salaryPage1)
	c, bundle := setup(t, nil, status(http.StatusTooManyRequests, `{}`, "Retry-After", "3600"))

	start := time.Now()
	_, err := c.Check(context.Background(), secondJobCheck(d))
	var apiErr *APIError
	require.ErrorAs(t, err, &apiErr)
	require.Equal(t, http.StatusTooManyRequests, apiErr.StatusCode)
	require.Less(t, time.Since(start), time.Second)
	require.Len(t, bundle.fake.received(), 1)
}

func TestServerErrorIsRetried(t *testing.T) {
	t.Parallel()

	d := document("gehalt.pdf", salaryPage1, salaryPage2)
	c, bundle := setup(t, nil,
		status(http.StatusInternalServerError, `{"error":{"message":"The server had an error"}}`),
		status(http.StatusBadGateway, `<html>bad gateway</html>`),
		answer(checkJSON("open", 0.8, "Second job.", cite(d, 2, "Kellner im Gasthaus Krone"))))

	out, err := c.Check(context.Background(), secondJobCheck(d))
	require.NoError(t, err)
	require.Equal(t, StatusOpen, out.Status)
	require.Len(t, bundle.fake.received(), 3)
}

func TestClientErrorIsNotRetried(t *testing.T) {
	t.Parallel()

	d := document("gehalt.pdf", salaryPage1)
	c, bundle := setup(t, nil, status(http.StatusBadRequest, `{"error":{"message":"This model's maximum context length is 8192 tokens."}}`))

	_, err := c.Check(context.Background(), secondJobCheck(d))
	var apiErr *APIError
	require.ErrorAs(t, err, &apiErr)
	require.Equal(t, http.StatusBadRequest, apiErr.StatusCode)
	require.Contains(t, apiErr.Message, "maximum context length")
	reqs := bundle.fake.received()
	require.Len(t, reqs, 2, "once more without the output limit, which may be what did not fit; then the 400 is final")
	require.NotZero(t, reqs[0].body.MaxCompletionTokens)
	require.Zero(t, reqs[1].body.MaxCompletionTokens)

	c, bundle = setup(t, func(cfg *Config) { cfg.MaxOutputTokens = -1 }, status(http.StatusBadRequest, `{"error":{"message":"This model's maximum context length is 8192 tokens."}}`))
	_, err = c.Check(context.Background(), secondJobCheck(d))
	require.ErrorAs(t, err, &apiErr)
	require.Len(t, bundle.fake.received(), 1, "nothing left to leave out")
}

func TestAPIKeyNeverInErrors(t *testing.T) {
	t.Parallel()

	d := document("gehalt.pdf", salaryPage1)
	c, bundle := setup(t, func(cfg *Config) { cfg.Azure = true },
		status(http.StatusUnauthorized, `{"error":{"message":"Incorrect API key provided: sk-test-secret-key."}}`))

	_, err := c.Check(context.Background(), secondJobCheck(d))
	require.Error(t, err)
	require.NotContains(t, err.Error(), "sk-test-secret-key")
	require.Contains(t, err.Error(), "401")
	reqs := bundle.fake.received()
	require.Len(t, reqs, 1)
	require.Equal(t, "sk-test-secret-key", reqs[0].header.Get("api-key"))
}

func TestJSONSchemaFallsBackToJSONObject(t *testing.T) {
	t.Parallel()

	d := document("gehalt.pdf", salaryPage1, salaryPage2)
	good := answer(checkJSON("open", 0.8, "Second job.", cite(d, 2, "Kellner im Gasthaus Krone")))
	c, bundle := setup(t, nil,
		status(http.StatusBadRequest, `{"error":{"message":"Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model.","param":"response_format"}}`),
		good)

	out, err := c.Check(context.Background(), secondJobCheck(d))
	require.NoError(t, err)
	require.Equal(t, StatusOpen, out.Status)

	reqs := bundle.fake.received()
	require.Len(t, reqs, 2)
	require.Equal(t, "json_schema", reqs[0].body.ResponseFormat.Type)
	require.Equal(t, "json_object", reqs[1].body.ResponseFormat.Type)
	require.Nil(t, reqs[1].body.ResponseFormat.JSONSchema)
	require.NotContains(t, reqs[0].task(), "JSON Schema:")
	require.Contains(t, reqs[1].task(), "It must match this JSON Schema:")
	require.Contains(t, reqs[1].task(), `"enum":["fulfilled","open","critical","not_applicable"]`)

	// The client remembers: the next request goes straight to json_object.
	_, err = c.Check(context.Background(), secondJobCheck(d))
	require.NoError(t, err)
	reqs = bundle.fake.received()
	require.Len(t, reqs, 3)
	require.Equal(t, "json_object", reqs[2].body.ResponseFormat.Type)
}

func TestFallbackHappensOnlyOnce(t *testing.T) {
	t.Parallel()

	d := document("gehalt.pdf", salaryPage1)
	c, bundle := setup(t, nil, status(http.StatusBadRequest, `{"error":{"message":"response_format is not supported"}}`))

	_, err := c.Check(context.Background(), secondJobCheck(d))
	var apiErr *APIError
	require.ErrorAs(t, err, &apiErr)
	require.Len(t, bundle.fake.received(), 2)
}

func TestContextCancellation(t *testing.T) {
	t.Parallel()

	d := document("gehalt.pdf", salaryPage1)
	c, _ := setup(t, nil, hang())

	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := c.Check(ctx, secondJobCheck(d))
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.Less(t, time.Since(start), time.Second)
}

func TestConcurrencyIsBounded(t *testing.T) {
	t.Parallel()

	d := document("gehalt.pdf", salaryPage1, salaryPage2)
	good := answer(checkJSON("open", 0.8, "Second job.", cite(d, 2, "Kellner im Gasthaus Krone")))
	slowGood := func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(30 * time.Millisecond)
		good(w, r)
	}
	c, bundle := setup(t, func(cfg *Config) { cfg.MaxConcurrency = 2 }, slowGood)

	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Go(func() {
			_, err := c.Check(context.Background(), secondJobCheck(d))
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	require.Len(t, bundle.fake.received(), 8)
	require.LessOrEqual(t, bundle.fake.maxFlight.Load(), int32(2))
	require.Equal(t, int32(2), bundle.fake.maxFlight.Load(), "the slots are used")
}

func TestOversizedResponseIsRejected(t *testing.T) {
	t.Parallel()

	d := document("gehalt.pdf", salaryPage1)
	huge := answer(strings.Repeat("x", maxResponseBytes))
	c, bundle := setup(t, func(cfg *Config) { cfg.MaxRetries = -1 }, huge)

	_, err := c.Check(context.Background(), secondJobCheck(d))
	require.ErrorContains(t, err, "larger than")
	require.Len(t, bundle.fake.received(), 1)
}

func TestTruncatedAnswerIsRetried(t *testing.T) {
	t.Parallel()

	d := document("gehalt.pdf", salaryPage1, salaryPage2)
	cut := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"choices":[{"index":0,"finish_reason":"length","message":{"role":"assistant","content":"{\"status\":\"open\""}}]}`))
	}
	c, bundle := setup(t, nil, cut, answer(checkJSON("open", 0.8, "Second job.", cite(d, 2, "Kellner im Gasthaus Krone"))))

	_, err := c.Check(context.Background(), secondJobCheck(d))
	require.NoError(t, err)
	require.Len(t, bundle.fake.received(), 2)
}

func TestNetworkErrorIsRetried(t *testing.T) {
	t.Parallel()

	d := document("gehalt.pdf", salaryPage1, salaryPage2)
	hangUp := func(w http.ResponseWriter, r *http.Request) {
		conn, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			_ = conn.Close()
		}
	}
	c, bundle := setup(t, nil, hangUp, answer(checkJSON("open", 0.8, "Second job.", cite(d, 2, "Kellner im Gasthaus Krone"))))

	_, err := c.Check(context.Background(), secondJobCheck(d))
	require.NoError(t, err)
	require.Len(t, bundle.fake.received(), 2)
}

func TestRetryAfterParsing(t *testing.T) {
	t.Parallel()

	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	h := http.Header{}
	require.Zero(t, retryAfter(h, now))
	h.Set("Retry-After", "2")
	require.Equal(t, 2*time.Second, retryAfter(h, now))
	h.Set("Retry-After", now.Add(5*time.Second).Format(http.TimeFormat))
	require.Equal(t, 5*time.Second, retryAfter(h, now))
	h.Set("Retry-After-Ms", "250")
	require.Equal(t, 250*time.Millisecond, retryAfter(h, now))
}

func TestBackoffGrowsWithJitter(t *testing.T) {
	t.Parallel()

	c, err := New(Config{BaseURL: "http://localhost/v1", Model: "m", BackoffBase: 100 * time.Millisecond, BackoffMax: time.Second})
	require.NoError(t, err)
	c.jitter = func() float64 { return 0.999999 }
	require.InDelta(t, float64(100*time.Millisecond), float64(c.backoff(0)), float64(time.Millisecond))
	require.InDelta(t, float64(400*time.Millisecond), float64(c.backoff(2)), float64(time.Millisecond))
	require.InDelta(t, float64(time.Second), float64(c.backoff(10)), float64(time.Millisecond))
	c.jitter = func() float64 { return 0 }
	require.Equal(t, 50*time.Millisecond, c.backoff(0))
}

func TestDecodeJSON(t *testing.T) {
	t.Parallel()

	for _, in := range []string{
		`{"status":"open"}`,
		"```json\n{\"status\":\"open\"}\n```",
		"```\n{\"status\":\"open\"}```",
		"Here you go:\n{\"status\":\"open\"}\nHope that helps.",
	} {
		var a checkAnswer
		require.NoError(t, decodeJSON(in, &a), in)
		require.Equal(t, "open", a.Status)
	}
	var a checkAnswer
	require.Error(t, decodeJSON("no json here", &a))
	require.Error(t, decodeJSON("{broken", &a))

	_, err := decodeCheck(`{"status":"maybe","confidence":1}`)
	require.True(t, errors.Is(err, errInvalidStatus))
	ans, err := decodeCheck(`{"status":"Not Applicable","confidence":"0.7"}`)
	require.NoError(t, err)
	require.Equal(t, StatusNotApplicable, ans.Status)
	require.InDelta(t, 0.7, clampConfidence(ans.Confidence), 1e-9)
}

// A redirect from the endpoint is not followed: the document text and the key never
// reach the server it points to, and the call fails.
func TestRedirectIsNotFollowed(t *testing.T) {
	t.Parallel()
	var hits sync.Mutex
	reached := false
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Lock()
		reached = true
		hits.Unlock()
	}))
	t.Cleanup(elsewhere.Close)
	redirect := func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, elsewhere.URL+"/v1/chat/completions", http.StatusTemporaryRedirect)
	}
	d := document("gehalt.pdf", salaryPage1)
	c, _ := setup(t, nil, redirect, redirect, redirect)
	_, err := c.Check(context.Background(), secondJobCheck(d))
	require.Error(t, err)
	hits.Lock()
	defer hits.Unlock()
	require.False(t, reached, "the redirect was followed")
}
