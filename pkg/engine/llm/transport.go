package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode"
)

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type chatRequest struct {
	Model    string        `json:"model"`
	Messages []chatMessage `json:"messages"`
	// Temperature is a pointer because 0 must be sent when it is sent at all.
	Temperature         *float64       `json:"temperature,omitempty"`
	MaxCompletionTokens int            `json:"max_completion_tokens,omitempty"`
	MaxTokens           int            `json:"max_tokens,omitempty"`
	ResponseFormat      responseFormat `json:"response_format"`
}

type responseFormat struct {
	Type       string      `json:"type"`
	JSONSchema *jsonSchema `json:"json_schema,omitempty"`
}

type jsonSchema struct {
	Name   string         `json:"name"`
	Strict bool           `json:"strict"`
	Schema map[string]any `json:"schema"`
}

type chatResponse struct {
	Choices []struct {
		Message struct {
			Content json.RawMessage `json:"content"`
			Refusal *string         `json:"refusal"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
}

// exchange is one structured question to the model.
type exchange struct {
	schemaName string
	schema     map[string]any
	// messages builds the conversation; jsonObject is true when the server only takes
	// {"type":"json_object"} and the schema must be described in the prompt instead.
	// The documents come before the task, so that requests of one evaluation share a
	// prefix that providers can cache.
	messages func(jsonObject bool) []chatMessage
	// decode reads the model's answer; any error counts as malformed output and is
	// retried.
	decode func(content string) error
}

// attemptError is the failure of one attempt and what to do about it.
type attemptError struct {
	err        error
	retryable  bool
	retryAfter time.Duration // from the server, 0 when not given
	// rejected is the lower-cased error parameter and message of a 400 or 422 answer:
	// the server may have rejected a parameter the client can leave out or rename.
	rejected string
}

// sent is what a request carried of the parameters servers may reject.
type sent struct {
	jsonSchema, temperature, outputLimit, maxCompletionTokens, systemRole bool
}

// parameter names a request parameter the client can do without.
type parameter int

const (
	paramNone parameter = iota
	paramResponseFormat
	paramTemperature
	paramMaxCompletionTokens
	paramOutputLimit
	paramSystemRole
)

// rejectedParameter reads which parameter a 400/422 error complains about, among those
// the request sent.
func rejectedParameter(body string, s sent) parameter {
	switch {
	case s.temperature && strings.Contains(body, "temperature"):
		return paramTemperature
	case s.outputLimit && strings.Contains(body, "token") && (strings.Contains(body, "context length") ||
		strings.Contains(body, "too large") || strings.Contains(body, "at most") || strings.Contains(body, "exceed")):
		// "max_tokens is too large", "maximum context length is 8192 tokens, however you
		// requested …": the limit leaves no room; the prompt itself may still fit.
		return paramOutputLimit
	case s.maxCompletionTokens && strings.Contains(body, "max_completion_tokens"):
		return paramMaxCompletionTokens
	case s.jsonSchema && (strings.Contains(body, "response_format") || strings.Contains(body, "json_schema")):
		return paramResponseFormat
	case s.systemRole && (strings.Contains(body, "'system'") || strings.Contains(body, "system role") ||
		strings.Contains(body, "role 'system'") || strings.Contains(body, "messages[0].role")):
		return paramSystemRole
	}
	return paramNone
}

// doWithout remembers that the server rejected p; it reports false when p was already
// left out in this call, so each fallback happens once.
func (c *Client) doWithout(ctx context.Context, p parameter, done map[parameter]bool) bool {
	if p == paramNone || done[p] {
		return false
	}
	done[p] = true
	switch p {
	case paramResponseFormat:
		c.jsonObjectOnly.Store(true)
		c.log.WarnContext(ctx, "llm server rejected json_schema response format; falling back to json_object")
	case paramTemperature:
		c.noTemperature.Store(true)
		c.log.WarnContext(ctx, "llm server rejected the temperature; sending none from now on")
	case paramMaxCompletionTokens:
		c.legacyMaxTokens.Store(true)
		c.log.WarnContext(ctx, "llm server rejected max_completion_tokens; sending max_tokens from now on")
	case paramOutputLimit:
		c.noOutputLimit.Store(true)
		c.log.WarnContext(ctx, "llm server rejected the output token limit; sending none from now on")
	case paramSystemRole:
		c.noSystemRole.Store(true)
		c.log.WarnContext(ctx, "llm server rejected the system role; sending the rules in the user message from now on")
	}
	return true
}

func (e *attemptError) Error() string { return e.err.Error() }
func (e *attemptError) Unwrap() error { return e.err }

// run sends the exchange, retrying as configured, until decode accepts an answer.
func (c *Client) run(ctx context.Context, x exchange) error {
	done := map[parameter]bool{}
	var unusable error // why the previous answer could not be used
	for attempt := 0; ; {
		jsonObject := c.jsonObjectOnly.Load()
		body, params, err := c.requestBody(x, jsonObject, unusable)
		if err != nil {
			return err
		}
		content, aerr := c.attempt(ctx, body)
		if aerr == nil {
			derr := x.decode(content)
			if derr == nil {
				return nil
			}
			unusable = derr
			aerr = &attemptError{err: fmt.Errorf("%w: %w", ErrMalformedOutput, derr), retryable: true}
		}
		if ctx.Err() != nil {
			return fmt.Errorf("llm: %w", context.Cause(ctx))
		}
		if aerr.rejected != "" && c.doWithout(ctx, rejectedParameter(aerr.rejected, params), done) {
			continue
		}
		if !aerr.retryable {
			return aerr.err
		}
		if attempt >= c.cfg.MaxRetries {
			return fmt.Errorf("llm: giving up after %d attempts: %w", attempt+1, aerr.err)
		}
		wait := c.backoff(attempt)
		if aerr.retryAfter > 0 {
			if aerr.retryAfter > c.cfg.MaxRetryAfter {
				return fmt.Errorf("llm: server asks to retry after %s, longer than allowed: %w", aerr.retryAfter, aerr.err)
			}
			wait = aerr.retryAfter
		}
		if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) < wait {
			return fmt.Errorf("llm: no time left to retry: %w", aerr.err)
		}
		c.log.WarnContext(ctx, "llm request failed; retrying", "attempt", attempt+1, "wait", wait, "error", aerr.err.Error())
		if err := sleep(ctx, wait); err != nil {
			return fmt.Errorf("llm: %w", err)
		}
		attempt++
	}
}

// requestBody encodes the request and says which optional parameters it carries.
// After an unusable answer the model is told why, at the end of the last message (some
// chat templates reject two user messages in a row), so that a retry at temperature 0
// does not repeat the same answer.
func (c *Client) requestBody(x exchange, jsonObject bool, unusable error) ([]byte, sent, error) {
	messages := x.messages(jsonObject)
	systemRole := len(messages) > 1 && messages[0].Role == "system"
	if systemRole && c.noSystemRole.Load() {
		// The rules still come first, so the shared prefix stays shared.
		merged := chatMessage{Role: "user", Content: messages[0].Content + "\n\n" + messages[1].Content}
		messages = append([]chatMessage{merged}, messages[2:]...)
		systemRole = false
	}
	if unusable != nil && len(messages) > 0 {
		last := &messages[len(messages)-1]
		last.Content += "\n\nA previous answer to this request could not be used: " +
			unusable.Error() + ". Answer again with exactly one JSON object in the required format and nothing else."
	}
	req := chatRequest{
		Model:          c.cfg.Model,
		Messages:       messages,
		ResponseFormat: responseFormat{Type: "json_schema", JSONSchema: &jsonSchema{Name: x.schemaName, Strict: true, Schema: x.schema}},
	}
	params := sent{jsonSchema: !jsonObject, systemRole: systemRole}
	if jsonObject {
		req.ResponseFormat = responseFormat{Type: "json_object"}
	}
	if !c.cfg.OmitTemperature && !c.noTemperature.Load() {
		zero := 0.0
		req.Temperature = &zero
		params.temperature = true
	}
	if n := c.cfg.MaxOutputTokens; n > 0 && !c.noOutputLimit.Load() {
		params.outputLimit = true
		if c.legacyMaxTokens.Load() {
			req.MaxTokens = n
		} else {
			req.MaxCompletionTokens = n
			params.maxCompletionTokens = true
		}
	}
	b, err := json.Marshal(req)
	if err != nil {
		return nil, params, fmt.Errorf("llm: encode request: %w", err)
	}
	return b, params, nil
}

// backoff is the wait before retry number attempt+1: exponential with jitter.
func (c *Client) backoff(attempt int) time.Duration {
	d := c.cfg.BackoffBase
	for i := 0; i < attempt && d < c.cfg.BackoffMax; i++ {
		d *= 2
	}
	d = min(d, c.cfg.BackoffMax)
	return d/2 + time.Duration(c.jitter()*float64(d/2))
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// attempt makes one HTTP request within the per-request timeout and a concurrency slot,
// and returns the model's message content.
func (c *Client) attempt(ctx context.Context, body []byte) (string, *attemptError) {
	select {
	case c.sem <- struct{}{}:
	case <-ctx.Done():
		return "", &attemptError{err: context.Cause(ctx)}
	}
	defer func() { <-c.sem }()

	actx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(actx, http.MethodPost, c.endpoint, bytes.NewReader(body))
	if err != nil {
		return "", &attemptError{err: errors.New("llm: build request")}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	switch {
	case c.cfg.APIKey == "":
	case c.cfg.Azure:
		req.Header.Set("api-key", c.cfg.APIKey)
	default:
		req.Header.Set("Authorization", "Bearer "+c.cfg.APIKey)
	}

	resp, err := c.http.Do(req)
	if err != nil {
		return "", c.transportError(ctx, actx, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes+1))
	if err != nil {
		return "", c.transportError(ctx, actx, err)
	}
	if len(raw) > maxResponseBytes {
		return "", &attemptError{err: fmt.Errorf("llm: response larger than %d bytes", maxResponseBytes), retryable: true}
	}

	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		apiErr := &APIError{StatusCode: resp.StatusCode, Message: c.errorMessage(raw)}
		switch {
		case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500:
			return "", &attemptError{err: apiErr, retryable: true, retryAfter: retryAfter(resp.Header, time.Now())}
		case resp.StatusCode == http.StatusBadRequest || resp.StatusCode == http.StatusUnprocessableEntity:
			return "", &attemptError{err: apiErr, rejected: strings.ToLower(errorParam(raw) + " " + apiErr.Message)}
		default:
			return "", &attemptError{err: apiErr}
		}
	}

	var cr chatResponse
	if err := json.Unmarshal(raw, &cr); err != nil {
		return "", &attemptError{err: fmt.Errorf("%w: response is not a chat completion", ErrMalformedOutput), retryable: true}
	}
	if len(cr.Choices) == 0 {
		return "", &attemptError{err: fmt.Errorf("%w: no choices", ErrMalformedOutput), retryable: true}
	}
	choice := cr.Choices[0]
	if choice.Message.Refusal != nil && strings.TrimSpace(*choice.Message.Refusal) != "" {
		return "", &attemptError{err: fmt.Errorf("%w: the model refused", ErrMalformedOutput), retryable: true}
	}
	if choice.FinishReason == "length" {
		return "", &attemptError{err: fmt.Errorf("%w: answer cut off at the token limit", ErrMalformedOutput), retryable: true}
	}
	content, ok := messageText(choice.Message.Content)
	if !ok || strings.TrimSpace(content) == "" {
		return "", &attemptError{err: fmt.Errorf("%w: empty answer (finish_reason %q)", ErrMalformedOutput, choice.FinishReason), retryable: true}
	}
	return content, nil
}

// transportError classifies a failed round trip. url.Error is unwrapped so the
// endpoint URL (which may carry a query string) stays out of the message.
func (c *Client) transportError(ctx, actx context.Context, err error) *attemptError {
	if ctx.Err() != nil {
		return &attemptError{err: context.Cause(ctx)}
	}
	if errors.Is(actx.Err(), context.DeadlineExceeded) {
		return &attemptError{err: fmt.Errorf("llm: request timed out after %s", c.cfg.Timeout), retryable: true}
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return &attemptError{err: fmt.Errorf("llm: request failed: %s", c.redact(err.Error())), retryable: true}
}

// messageText reads a message content that is a string or an array of text parts.
func messageText(raw json.RawMessage) (string, bool) {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, true
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", false
	}
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String(), true
}

// errorParam is the "param" of an OpenAI-style error envelope, "" when there is none.
func errorParam(body []byte) string {
	var env struct {
		Error struct {
			Param *string `json:"param"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &env) != nil || env.Error.Param == nil {
		return ""
	}
	return *env.Error.Param
}

// errorMessage extracts the server's error message: short, printable, key redacted.
func (c *Client) errorMessage(body []byte) string {
	var env struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  string          `json:"detail"`
	}
	msg := ""
	if json.Unmarshal(body, &env) == nil {
		var inner struct {
			Message string `json:"message"`
		}
		var s string
		switch {
		case json.Unmarshal(env.Error, &inner) == nil && inner.Message != "":
			msg = inner.Message
		case json.Unmarshal(env.Error, &s) == nil && s != "":
			msg = s
		case env.Message != "":
			msg = env.Message
		case env.Detail != "":
			msg = env.Detail
		}
	}
	if msg == "" {
		msg = string(body)
	}
	msg = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, msg)
	msg = c.redact(strings.TrimSpace(msg))
	if r := []rune(msg); len(r) > 300 {
		msg = string(r[:300]) + "…"
	}
	return msg
}

func (c *Client) redact(s string) string {
	if c.cfg.APIKey == "" {
		return s
	}
	return strings.ReplaceAll(s, c.cfg.APIKey, "[redacted]")
}

// retryAfter reads Retry-After (seconds or an HTTP date) or the retry-after-ms header
// some OpenAI-compatible servers send; 0 when absent.
func retryAfter(h http.Header, now time.Time) time.Duration {
	if ms := h.Get("Retry-After-Ms"); ms != "" {
		if v, err := strconv.ParseFloat(ms, 64); err == nil && v > 0 {
			return time.Duration(v * float64(time.Millisecond))
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		if secs <= 0 {
			return 0
		}
		return time.Duration(secs * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}
