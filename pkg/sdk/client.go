package sdk

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"

	"github.com/doceval/doceval/gen/client"
)

// Version is the SDK's version, sent in the User-Agent.
const Version = "0.1.0"

// Client is safe for concurrent use.
type Client struct {
	api *client.ClientWithResponses
}

// New returns a client for the service at baseURL (for example
// "https://api.doceval.example") authenticating with apiKey.
func New(baseURL, apiKey string, opts ...Option) (*Client, error) {
	u, err := url.Parse(baseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("doceval: base URL %q is not an http(s) URL", baseURL)
	}
	if apiKey == "" {
		return nil, errors.New("doceval: empty API key")
	}
	cfg := config{retry: DefaultRetryPolicy}
	for _, opt := range opts {
		opt(&cfg)
	}

	httpClient := &http.Client{Timeout: DefaultTimeout}
	if cfg.httpClient != nil {
		copied := *cfg.httpClient
		httpClient = &copied
	}
	if cfg.timeout != nil {
		httpClient.Timeout = *cfg.timeout
	}
	retrying := newRetryTransport(httpClient.Transport, cfg.retry)
	retrying.hooks = cfg.retryHooks
	if cfg.wait != nil {
		retrying.wait = cfg.wait
	}
	if cfg.jitter != nil {
		retrying.jitter = cfg.jitter
	}
	if cfg.now != nil {
		retrying.now = cfg.now
	}
	if cfg.newKey != nil {
		retrying.newKey = cfg.newKey
	}
	httpClient.Transport = retrying

	userAgent := "doceval-go-sdk/" + Version
	if cfg.userAgent != "" {
		userAgent = cfg.userAgent + " " + userAgent
	}
	authenticate := func(_ context.Context, req *http.Request) error {
		req.Header.Set("Authorization", "Bearer "+apiKey)
		req.Header.Set("User-Agent", userAgent)
		return nil
	}
	api, err := client.NewClientWithResponses(baseURL, client.WithHTTPClient(httpClient), client.WithRequestEditorFn(authenticate))
	if err != nil {
		return nil, fmt.Errorf("doceval: %w", err)
	}
	return &Client{api: api}, nil
}

// API is the generated client, sharing this client's credentials, User-Agent and
// retrying transport, for everything the thin layer does not wrap. Its XxxWithResponse
// methods do not turn non-2xx answers into errors (and fail to parse a body that is not
// the documented JSON, such as a proxy's HTML 502: the raw methods of its embedded
// ClientInterface do not); use ParseError for that:
//
//	res, err := c.API().GetTemplateWithResponse(ctx, "personal_loan")
//	if err == nil {
//		err = sdk.ParseError(res.HTTPResponse, res.Body)
//	}
func (c *Client) API() *client.ClientWithResponses { return c.api }
