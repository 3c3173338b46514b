package extractor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/doceval/doceval/pkg/extract"
)

// ErrUnavailable: the extractor could not be reached, or had no slot free; the document
// itself was not looked at.
var ErrUnavailable = errors.New("extractor unavailable")

// Bounds on what the client believes of the extractor's answers: it parses hostile
// files, so a compromised one must not exhaust the caller's memory either.
const (
	maxResultBytes = 512 << 20
	maxPNGBytes    = 128 << 20
	maxErrorBytes  = 64 << 10
	// responseGrace is added to a document's budget for the client's own deadline: the
	// wait for a slot (DOCEVAL_EXTRACTOR_QUEUE_WAIT, 30 s by default) and the transfer.
	responseGrace = time.Minute
	readyTimeout  = 2 * time.Second
)

// Client is the Parser of a service that sends its documents to the extractor service.
type Client struct {
	base *url.URL
	http *http.Client
}

var _ Parser = (*Client)(nil)

// NewClient returns a client of the extractor at rawURL (http://host:port).
func NewClient(rawURL string) (*Client, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, err
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return nil, fmt.Errorf("%q is not an http(s)://host:port URL without credentials", rawURL)
	}
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.Proxy = nil // an in-cluster service: never through HTTP(S)_PROXY
	return &Client{
		base: u,
		http: &http.Client{
			Transport: t,
			// The extractor never redirects; a redirect would carry the document
			// elsewhere.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
	}, nil
}

// Describe names the extractor, for the start-up log.
func (c *Client) Describe() string { return "extractor service at " + c.base.Redacted() }

// File sends the file at path to the extractor with opt (TempDir stays local: the
// extractor uses its own).
func (c *Client) File(ctx context.Context, path, declared string, opt extract.Options) (*extract.Result, error) {
	q := url.Values{}
	q.Set(paramDeclared, declared)
	setPositive(q, paramMaxPages, int64(opt.MaxPages))
	setPositive(q, paramMaxOCRPages, int64(opt.MaxOCRPages))
	setPositive(q, paramMaxMemory, opt.Limits.MaxMemory)
	if opt.Languages != "" {
		q.Set(paramLanguages, opt.Languages)
	}
	if opt.Timeout > 0 {
		q.Set(paramTimeout, opt.Timeout.String())
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, opt.Timeout+responseGrace)
		defer cancel()
	}
	resp, err := c.post(ctx, pathExtract, q, path)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var res extract.Result
	dec := json.NewDecoder(io.LimitReader(resp.Body, maxResultBytes))
	if err := dec.Decode(&res); err != nil {
		return nil, fmt.Errorf("extractor: reading the result: %w", err)
	}
	if opt.MaxPages > 0 && (len(res.Pages) > opt.MaxPages || res.PageCount > opt.MaxPages) {
		return nil, fmt.Errorf("extractor: %d pages in a result of at most %d", max(len(res.Pages), res.PageCount), opt.MaxPages)
	}
	return &res, nil
}

// RenderPage sends the PDF at pdfPath to the extractor, which renders page n at dpi
// within ctx's deadline.
func (c *Client) RenderPage(ctx context.Context, pdfPath string, n, dpi int, limits extract.Limits) ([]byte, error) {
	q := url.Values{}
	q.Set(paramPage, strconv.Itoa(n))
	q.Set(paramDPI, strconv.Itoa(dpi))
	setPositive(q, paramMaxMemory, limits.MaxMemory)
	if deadline, ok := ctx.Deadline(); ok {
		q.Set(paramTimeout, max(time.Until(deadline), time.Second).Round(time.Millisecond).String())
	}
	resp, err := c.post(ctx, pathRender, q, pdfPath)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	png, err := io.ReadAll(io.LimitReader(resp.Body, maxPNGBytes+1))
	if err != nil {
		return nil, fmt.Errorf("extractor: reading the page: %w", err)
	}
	if len(png) > maxPNGBytes {
		return nil, fmt.Errorf("extractor: a page image over %d bytes", maxPNGBytes)
	}
	return png, nil
}

// Ready asks the extractor's /readyz.
func (c *Client) Ready(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, readyTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base.JoinPath(pathReady).String(), nil)
	if err != nil {
		return err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxErrorBytes))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%w: readiness %s", ErrUnavailable, resp.Status)
	}
	return nil
}

// post sends the file at path as the body of a request to the operation; the answer is
// returned on 200 only, every other status becomes the error it stands for.
func (c *Client) post(ctx context.Context, op string, q url.Values, path string) (*http.Response, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	u := c.base.JoinPath(op)
	u.RawQuery = q.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), f)
	if err != nil {
		return nil, err
	}
	req.ContentLength = st.Size()
	req.Header.Set("Content-Type", "application/octet-stream")
	resp, err := c.http.Do(req)
	if err != nil {
		var dial *net.OpError
		if errors.As(err, &dial) && dial.Op == "dial" {
			return nil, fmt.Errorf("%w: %v", ErrUnavailable, err)
		}
		return nil, fmt.Errorf("extractor: %w", err)
	}
	if resp.StatusCode == http.StatusOK {
		return resp, nil
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBytes))
	switch resp.StatusCode {
	case http.StatusUnprocessableEntity:
		var f failureBody
		if err := json.Unmarshal(body, &f); err != nil || f.Code == "" {
			return nil, fmt.Errorf("extractor: a refusal without a code: %q", body)
		}
		// The answer goes to the partner as the upload's failure: only a code of the
		// contract, and a message of bounded length, whatever the extractor says.
		if !extract.KnownCode(f.Code) {
			return nil, fmt.Errorf("extractor: a refusal with an unknown code %q", cut(f.Code, 64))
		}
		return nil, &extract.Failure{Code: f.Code, Message: cut(f.Message, maxFailureMessage)}
	case http.StatusServiceUnavailable:
		return nil, fmt.Errorf("%w: %s", ErrUnavailable, errorText(body))
	default:
		return nil, fmt.Errorf("extractor: %s: %s", resp.Status, errorText(body))
	}
}

// maxFailureMessage bounds the message of a refusal passed on to the partner.
const maxFailureMessage = 500

// cut shortens s to at most n bytes, at a rune boundary.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func errorText(body []byte) string {
	var e errorBody
	if json.Unmarshal(body, &e) == nil && e.Error != "" {
		return e.Error
	}
	return strings.TrimSpace(string(body))
}

func setPositive(q url.Values, key string, v int64) {
	if v > 0 {
		q.Set(key, strconv.FormatInt(v, 10))
	}
}
