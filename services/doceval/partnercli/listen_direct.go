package partnercli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/doceval/doceval/pkg/sdk/webhook"
)

// runDirect is the dev stack's local receiver: the service's dispatcher POSTs to it.
// It verifies each delivery's signature with the endpoint's secrets, prints the event
// and optionally forwards it unchanged (raw body and signature header, so the
// forwarded-to app verifies it too). It runs until ctx ends.
func (a *app) runDirect(ctx context.Context, o *listenOptions) error {
	secrets := o.secrets
	if len(secrets) == 0 {
		secrets = splitList(a.env("DOCEVAL_WEBHOOK_SECRET"))
	}
	if len(secrets) == 0 {
		return usagef("listen --direct: no signing secret: pass --secret or set DOCEVAL_WEBHOOK_SECRET")
	}
	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		return err
	}
	r := &receiver{app: a, secrets: secrets, forwardTo: o.forwardTo, http: &http.Client{Timeout: forwardTimeout}}
	srv := &http.Server{Handler: r, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(a.stderr, "Listening on http://%s (%d signing secret(s))", ln.Addr(), len(secrets))
	if o.forwardTo != "" {
		fmt.Fprintf(a.stderr, ", forwarding to %s", o.forwardTo)
	}
	fmt.Fprintln(a.stderr)

	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return err
	}
	if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

type receiver struct {
	app       *app
	secrets   []string
	forwardTo string
	http      *http.Client
	mu        sync.Mutex // one delivery's lines stay together
}

func (r *receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if req.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "deliveries are POSTed", http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, req.Body, webhook.DefaultMaxBodyBytes))
	if err != nil {
		r.warn("cannot read delivery body: %v", err)
		http.Error(w, "cannot read body", http.StatusBadRequest)
		return
	}
	if err := webhook.VerifyRequest(req.Header, body, r.secrets, 0, time.Now()); err != nil {
		r.warn("rejected unverifiable delivery from %s: %v", req.RemoteAddr, err)
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	event, err := webhook.ParseEvent(body)
	if err != nil {
		r.warn("rejected delivery with a valid signature but no event: %v", err)
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	r.print(event, body)
	if r.forwardTo == "" {
		w.WriteHeader(http.StatusOK)
		return
	}
	// The sender sees the forwarded-to app's answer, so its retries behave as they
	// would against the app directly.
	status := r.forward(req.Context(), body, req.Header)
	w.WriteHeader(status)
}

func (r *receiver) print(event webhook.Event, body []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.app.global.json {
		// One event per line, the body as delivered: easy to pipe into jq.
		fmt.Fprintf(r.app.stdout, "%s\n", bytes.TrimSpace(body))
		return
	}
	fmt.Fprintln(r.app.stdout, eventLine(event, ""))
}

// signatureHeaders are passed on as received: both schemes' (the receiver verifies either).
var signatureHeaders = []string{webhook.SignatureHeader, webhook.IDHeader, webhook.TimestampHeader, webhook.StandardSignatureHeader}

func (r *receiver) forward(ctx context.Context, body []byte, received http.Header) int {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.forwardTo, bytes.NewReader(body))
	if err != nil {
		r.warn("forward: %v", err)
		return http.StatusBadGateway
	}
	req.Header.Set("Content-Type", "application/json")
	for _, name := range signatureHeaders {
		if v := received.Get(name); v != "" {
			req.Header.Set(name, v)
		}
	}
	res, err := r.http.Do(req)
	if err != nil {
		r.warn("forward to %s failed: %v", r.forwardTo, err)
		return http.StatusBadGateway
	}
	defer res.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 1<<20))
	r.mu.Lock()
	fmt.Fprintf(r.app.stderr, "  -> %s answered %d\n", r.forwardTo, res.StatusCode)
	r.mu.Unlock()
	return res.StatusCode
}

func (r *receiver) warn(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	fmt.Fprintf(r.app.stderr, "warning: "+format+"\n", args...)
}
