package sdk

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
)

// receive turns the raw answer of a generated ClientInterface call into a *T for a 2xx
// or an *Error otherwise. It decodes by itself rather than through the generated
// ParseXxxResponse functions because those fail outright on a body that is not the
// documented JSON (a proxy's HTML 502) and lose the service's error in the process.
func receive[T any](res *http.Response, err error) (*T, error) {
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, fmt.Errorf("doceval: read %s: %w", describe(res), err)
	}
	if err := ParseError(res, body); err != nil {
		return nil, err
	}
	v := new(T)
	if err := json.Unmarshal(body, v); err != nil {
		return nil, fmt.Errorf("doceval: decode %s: %w", describe(res), err)
	}
	return v, nil
}

// describe names the request of res for an error message; a custom RoundTripper may
// leave res.Request unset.
func describe(res *http.Response) string {
	if res.Request == nil || res.Request.URL == nil {
		return "response"
	}
	return res.Request.Method + " " + res.Request.URL.Path
}

// receiveNoContent is receive for the operations whose success has no body (204, and
// 202 for deleteSubmission).
func receiveNoContent(res *http.Response, err error) error {
	if err != nil {
		return err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		return fmt.Errorf("doceval: read %s: %w", describe(res), err)
	}
	return ParseError(res, body)
}
