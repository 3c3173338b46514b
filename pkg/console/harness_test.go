package console_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/doceval/doceval/pkg/auth"
	"github.com/doceval/doceval/pkg/blob"
	"github.com/doceval/doceval/pkg/blobkey"
	"github.com/doceval/doceval/pkg/console"
	"github.com/doceval/doceval/pkg/document"
	"github.com/doceval/doceval/pkg/domain/submission"
	"github.com/doceval/doceval/pkg/secretbox"
	"github.com/doceval/doceval/pkg/store"
	"github.com/doceval/doceval/pkg/testkit/dbtest"
)

// testBundle is the console on a real, freshly migrated database behind an httptest
// server, with helpers to make staff accounts and partner data.
type testBundle struct {
	t     testing.TB
	st    *store.Store
	blobs *blob.Store
	srv   *httptest.Server
}

func defaultSettings() console.Settings {
	return console.Settings{
		InsecureCookies: true, SessionIdle: 30 * time.Minute, SessionMax: 12 * time.Hour,
		LoginMaxFailures: 5, LoginWindow: 15 * time.Minute, RenderDPI: 60, OIDCButton: "SSO",
		SecretKey: secretbox.NewKey(), HashConcurrency: 4, HashWait: 2 * time.Second, MFAIssuer: "doceval test",
	}
}

func setup(t testing.TB, opts ...func(*console.Deps)) *testBundle {
	t.Helper()
	pool, url := dbtest.NewWithURL(t)
	blobs, err := blob.Open(context.Background(), blob.FileURL(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { blobs.Close() })
	// The console connects as its database role (migration 00018): a query it is not
	// granted fails the test. The test's own fixtures and checks use the owner.
	d := console.Deps{Store: store.New(dbtest.RolePool(t, url, "console")), Blobs: blobs, Log: slog.New(slog.NewTextHandler(testLog{t}, nil)), Settings: defaultSettings()}
	for _, o := range opts {
		o(&d)
	}
	h, err := console.New(d)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return &testBundle{t: t, st: store.New(pool), blobs: blobs, srv: srv}
}

// operator creates a staff account and returns its password.
func (b *testBundle) operator(email, role string, clients []uuid.UUID) string {
	b.t.Helper()
	password := auth.NewPassword(16)
	hash, err := auth.HashPassword(password)
	if err != nil {
		b.t.Fatal(err)
	}
	if _, err := b.st.CreateOperator(context.Background(), store.NewOperator{Email: email, Role: role, PasswordHash: &hash, ClientIDs: clients}); err != nil {
		b.t.Fatal(err)
	}
	return password
}

// client creates an API client with every permission.
func (b *testBundle) client(name string) store.Client {
	b.t.Helper()
	c, _, _, err := b.st.CreateClient(context.Background(), name, auth.AllPermissions)
	if err != nil {
		b.t.Fatal(err)
	}
	return c
}

// submission creates a submission of the client's with one ready upload in its first slot.
func (b *testBundle) submission(client uuid.UUID, external, filename, metadata string) (store.SubmissionDetail, submission.Upload) {
	b.t.Helper()
	ctx := context.Background()
	tenant := b.st.Tenant(client)
	sub, _, err := tenant.CreateSubmission(ctx, submission.New{ExternalID: external, Metadata: []byte(metadata), Language: "de"})
	if err != nil {
		b.t.Fatal(err)
	}
	d, err := tenant.Submission(ctx, sub.ID)
	if err != nil {
		b.t.Fatal(err)
	}
	slot := d.Slots[0].ID
	u, _, err := tenant.CreateUpload(ctx, submission.NewUpload{
		SubmissionID: sub.ID, SlotID: &slot, ExternalFileID: "f1", FileID: uuid.New(), Filename: filename,
		ContentType: "application/pdf", Size: 1, SHA256: []byte{1}, BlobKey: blobkey.Submission(client, sub.ID) + "f1",
	})
	if err != nil {
		b.t.Fatal(err)
	}
	text := "Gehaltsabrechnung Januar 2026 Nettobezug 3.250,00 EUR"
	if err := b.st.FinishIngest(ctx, u.ID, []document.Page{{Number: 1, Text: text, Chars: len(text)}}, nil, nil); err != nil {
		b.t.Fatal(err)
	}
	if d, err = tenant.Submission(ctx, sub.ID); err != nil {
		b.t.Fatal(err)
	}
	return d, u
}

// browser is a cookie-keeping HTTP client that does not follow redirects, so tests see
// where the console sends them.
type browser struct {
	t    testing.TB
	base string
	c    *http.Client
	lang string
	// forwardedFor is sent as X-Forwarded-For (believed only from a trusted proxy).
	forwardedFor string
}

func (b *testBundle) browser() *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{t: b.t, base: b.srv.URL, lang: "en", c: &http.Client{
		Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

type page struct {
	status   int
	body     string
	location string
}

func (br *browser) do(method, path string, form url.Values) page {
	br.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, br.base+path, body)
	if err != nil {
		br.t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	req.Header.Set("Accept-Language", br.lang)
	if br.forwardedFor != "" {
		req.Header.Set("X-Forwarded-For", br.forwardedFor)
	}
	res, err := br.c.Do(req)
	if err != nil {
		br.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return page{status: res.StatusCode, body: string(b), location: res.Header.Get("Location")}
}

func (br *browser) get(path string) page { return br.do(http.MethodGet, path, nil) }

// post sends a form; the page's CSRF token is added unless the form sets csrf.
func (br *browser) post(path string, form url.Values, csrf string) page {
	if form == nil {
		form = url.Values{}
	}
	if _, set := form["csrf"]; !set {
		form.Set("csrf", csrf)
	}
	return br.do(http.MethodPost, path, form)
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// csrf reads the form token of the page at path.
func (br *browser) csrf(path string) string {
	br.t.Helper()
	p := br.get(path)
	m := csrfField.FindStringSubmatch(p.body)
	if m == nil {
		br.t.Fatalf("no csrf token on %s (%d): %.300s", path, p.status, p.body)
	}
	return m[1]
}

// signIn signs in through the form and fails the test unless it worked.
func (br *browser) signIn(email, password string) {
	br.t.Helper()
	p := br.post("/login", url.Values{"email": {email}, "password": {password}}, br.csrf("/login"))
	if p.status != http.StatusSeeOther || p.location != "/" {
		br.t.Fatalf("sign in as %s: %d %s %.300s", email, p.status, p.location, p.body)
	}
}

// testLog sends the console's log to the test's output (shown when it fails).
type testLog struct{ t testing.TB }

func (l testLog) Write(p []byte) (int, error) {
	l.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}
