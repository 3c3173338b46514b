package console_test

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"github.com/coreos/go-oidc/v3/oidc/oidctest"

	"github.com/doceval/doceval/pkg/console"
	"github.com/doceval/doceval/pkg/store"
)

// testProvider is an OpenID Connect provider for the tests: go-oidc's oidctest serves
// discovery and the key set; /auth signs the configured user in at once (or answers
// with an error), /token redeems a code once, checking the client's credentials, the
// redirect URL and the PKCE verifier, and returns an RS256-signed ID token.
type testProvider struct {
	t   *testing.T
	srv *httptest.Server
	key *rsa.PrivateKey

	mu          sync.Mutex
	user        map[string]any              // the claims of who signs in (sub, email, email_verified)
	refuse      string                      // /auth answers with this error instead
	edit        func(claims map[string]any) // changes the ID token before it is signed
	forger      *rsa.PrivateKey             // signs the ID token instead of key
	unavailable int                         // discovery answers 503 this many times
	codes       map[string]grant
}

type grant struct {
	nonce, challenge, redirect string
	claims                     map[string]any
}

const (
	testClientID     = "doceval-console"
	testClientSecret = "s3cret"
)

func newTestProvider(t *testing.T) *testProvider {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	p := &testProvider{t: t, key: key, codes: map[string]grant{}}
	disc := &oidctest.Server{PublicKeys: []oidctest.PublicKey{{PublicKey: key.Public(), KeyID: "k1", Algorithm: oidc.RS256}}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		down := p.unavailable > 0
		p.unavailable--
		p.mu.Unlock()
		if down {
			http.Error(w, "starting", http.StatusServiceUnavailable)
			return
		}
		disc.ServeHTTP(w, r)
	})
	mux.Handle("GET /keys", disc)
	mux.HandleFunc("GET /auth", p.authorize)
	mux.HandleFunc("POST /token", p.token)
	p.srv = httptest.NewServer(mux)
	t.Cleanup(p.srv.Close)
	disc.SetIssuer(p.srv.URL)
	return p
}

// signsIn makes the provider sign in a user with these claims from now on.
func (p *testProvider) signsIn(sub, email string, verified any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.user = map[string]any{"sub": sub, "email": email}
	if verified != nil {
		p.user["email_verified"] = verified
	}
}

func (p *testProvider) set(f func(p *testProvider)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	f(p)
}

func (p *testProvider) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if q.Get("client_id") != testClientID || q.Get("response_type") != "code" || q.Get("code_challenge_method") != "S256" ||
		q.Get("code_challenge") == "" || q.Get("nonce") == "" || q.Get("state") == "" || !strings.Contains(q.Get("scope"), "openid") {
		http.Error(w, "bad authorization request: "+r.URL.RawQuery, http.StatusBadRequest)
		return
	}
	back, err := url.Parse(q.Get("redirect_uri"))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	v := url.Values{"state": {q.Get("state")}}
	p.mu.Lock()
	if p.refuse != "" {
		v.Set("error", p.refuse)
		v.Set("error_description", "the user said no")
	} else {
		code := rand.Text()
		p.codes[code] = grant{nonce: q.Get("nonce"), challenge: q.Get("code_challenge"), redirect: q.Get("redirect_uri"), claims: maps.Clone(p.user)}
		v.Set("code", code)
	}
	p.mu.Unlock()
	back.RawQuery = v.Encode()
	http.Redirect(w, r, back.String(), http.StatusFound)
}

func (p *testProvider) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	id, secret, ok := r.BasicAuth()
	if !ok {
		id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	}
	w.Header().Set("Content-Type", "application/json")
	if id != testClientID || secret != testClientSecret {
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte(`{"error":"invalid_client"}`))
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	g, found := p.codes[r.PostForm.Get("code")]
	delete(p.codes, r.PostForm.Get("code"))
	sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
	if !found || r.PostForm.Get("grant_type") != "authorization_code" || r.PostForm.Get("redirect_uri") != g.redirect ||
		base64.RawURLEncoding.EncodeToString(sum[:]) != g.challenge {
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"error":"invalid_grant"}`))
		return
	}
	now := time.Now()
	claims := map[string]any{"iss": p.srv.URL, "aud": testClientID, "iat": now.Unix(), "exp": now.Add(5 * time.Minute).Unix(), "nonce": g.nonce}
	maps.Copy(claims, g.claims)
	if p.edit != nil {
		p.edit(claims)
	}
	signer := p.key
	if p.forger != nil {
		signer = p.forger
	}
	raw, _ := json.Marshal(claims)
	_ = json.NewEncoder(w).Encode(map[string]any{
		"access_token": "at-" + rand.Text(), "token_type": "Bearer", "expires_in": 300,
		"id_token": oidctest.SignIDToken(signer, "k1", oidc.RS256, string(raw)),
	})
}

// settings are the console's settings for single sign-on through p.
func (p *testProvider) settings(s *console.Settings) {
	s.OIDCIssuer, s.OIDCClientID, s.OIDCClientSecret, s.OIDCScopes = p.srv.URL, testClientID, testClientSecret, "openid email profile"
}

// withSSO configures the console for single sign-on through p.
func withSSO(p *testProvider) func(*console.Deps) {
	return func(d *console.Deps) {
		p.settings(&d.Settings)
		o, err := console.NewOIDC(context.Background(), d.Settings)
		if err != nil {
			p.t.Fatal(err)
		}
		d.OIDC = o
	}
}

// ssoSetup is the console with single sign-on through a test provider, the advisor
// advisor@example.com, and the provider signing in user-1 with that verified e-mail.
func ssoSetup(t *testing.T) (*testBundle, *testProvider) {
	t.Helper()
	p := newTestProvider(t)
	b := setup(t, withSSO(p))
	b.operator("advisor@example.com", store.RoleAdvisor, nil)
	p.signsIn("user-1", "advisor@example.com", true)
	return b, p
}

// anywhere is the browser sending requests to absolute URLs (the provider's too).
func (br *browser) anywhere() *browser {
	return &browser{t: br.t, c: br.c, lang: br.lang}
}

// ssoCallbackURL starts single sign-on and returns where the provider sends the
// browser back to.
func (br *browser) ssoCallbackURL(next string) string {
	br.t.Helper()
	start := "/login/sso"
	if next != "" {
		start += "?next=" + url.QueryEscape(next)
	}
	p := br.get(start)
	if p.status != http.StatusSeeOther || !strings.Contains(p.location, "/auth?") {
		br.t.Fatalf("start single sign-on: %d %s", p.status, p.location)
	}
	auth := br.anywhere().get(p.location)
	if auth.status != http.StatusFound {
		br.t.Fatalf("provider's sign-in: %d %.300s", auth.status, auth.body)
	}
	return auth.location
}

// sso signs in through the provider and returns the console's answer to the callback.
func (br *browser) sso(next string) page {
	br.t.Helper()
	return br.anywhere().get(br.ssoCallbackURL(next))
}

// ssoSignIn signs in through the provider and fails the test unless the console sends
// the browser to want, signed in.
func (br *browser) ssoSignIn(next, want string) {
	br.t.Helper()
	if pg := br.sso(next); pg.status != http.StatusSeeOther || pg.location != want {
		br.t.Fatalf("sign-in: %d %s, want %s: %.300s", pg.status, pg.location, want, pg.body)
	}
	if pg := br.get("/queue"); pg.status != http.StatusOK {
		br.t.Fatalf("/queue after sign-in: %d", pg.status)
	}
}

func (b *testBundle) auditOf(action string) []store.AuditEntry {
	b.t.Helper()
	entries, err := b.st.AuditLog(context.Background(), store.AuditFilter{Action: &action, Limit: 100})
	if err != nil {
		b.t.Fatal(err)
	}
	return entries
}

const (
	msgSSOFailed  = "Single sign-on did not succeed"
	msgSSOUnknown = "No console account exists for this identity"
)

func TestSSOSignInBindsIdentity(t *testing.T) {
	t.Parallel()
	b, p := ssoSetup(t)
	if pg := b.browser().get("/login"); !strings.Contains(pg.body, `href="/login/sso"`) {
		t.Fatalf("the sign-in page has no SSO button: %.500s", pg.body)
	}

	p.signsIn("user-1", "Advisor@Example.com", true)
	b.browser().ssoSignIn("", "/")
	op, err := b.st.OperatorByEmail(context.Background(), "advisor@example.com")
	if err != nil {
		t.Fatal(err)
	}
	if want := p.srv.URL + " user-1"; op.OIDCSubject == nil || *op.OIDCSubject != want {
		t.Fatalf("bound subject %v, want %q", op.OIDCSubject, want)
	}
	if n := len(b.auditOf("operator.sso_bound")); n != 1 {
		t.Fatalf("%d operator.sso_bound entries, want 1", n)
	}

	// Later the identity signs in by its subject, whatever e-mail it has now.
	p.signsIn("user-1", "renamed@elsewhere.example", false)
	b.browser().ssoSignIn("/queue", "/queue")
	signins := b.auditOf("signin")
	if len(signins) != 2 {
		t.Fatalf("%d signin entries, want 2", len(signins))
	}
	for _, e := range signins {
		var details struct{ Method string }
		if err := json.Unmarshal(e.Details, &details); err != nil || e.OperatorID == nil || *e.OperatorID != op.ID || details.Method != "oidc" {
			t.Fatalf("signin entry %+v (%s)", e, e.Details)
		}
	}
}

func TestSSORefused(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		email    string
		verified any
		prepare  func(b *testBundle, op store.Operator)
		message  string
	}{
		"unknown e-mail":       {email: "stranger@example.com", verified: true, message: msgSSOUnknown},
		"e-mail not verified":  {email: "advisor@example.com", verified: false, message: "did not confirm an e-mail address"},
		"no email_verified":    {email: "advisor@example.com", message: "did not confirm an e-mail address"},
		"no e-mail":            {verified: true, message: "did not confirm an e-mail address"},
		"email_verified false": {email: "advisor@example.com", verified: "false", message: "did not confirm an e-mail address"},
		"disabled operator": {email: "advisor@example.com", verified: true, message: msgSSOUnknown, prepare: func(b *testBundle, op store.Operator) {
			if err := b.st.SetOperatorDisabled(context.Background(), op.ID, true); err != nil {
				t.Fatal(err)
			}
		}},
		"bound to another identity": {email: "advisor@example.com", verified: true, message: "already linked to another", prepare: func(b *testBundle, op store.Operator) {
			if err := b.st.BindOIDCSubject(context.Background(), op.ID, "https://other.example subject-9"); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b, p := ssoSetup(t)
			op, err := b.st.OperatorByEmail(context.Background(), "advisor@example.com")
			if err != nil {
				t.Fatal(err)
			}
			if tc.prepare != nil {
				tc.prepare(b, op)
			}
			p.signsIn("user-1", tc.email, tc.verified)
			br := b.browser()
			if pg := br.sso(""); pg.status != http.StatusForbidden || !strings.Contains(pg.body, tc.message) {
				t.Fatalf("sign-in: %d %s, want 403 with %q: %.2000s", pg.status, pg.location, tc.message, pg.body)
			}
			if pg := br.get("/queue"); pg.status != http.StatusSeeOther {
				t.Fatalf("/queue after a refused sign-in: %d", pg.status)
			}
			refused := b.auditOf("signin.sso_refused")
			if len(refused) != 1 || !strings.Contains(string(refused[0].Details), p.srv.URL) {
				t.Fatalf("signin.sso_refused entries: %+v", refused)
			}
			if op, _ := b.st.OperatorByEmail(context.Background(), "advisor@example.com"); tc.prepare == nil && op.OIDCSubject != nil {
				t.Fatalf("a refused identity was bound: %s", *op.OIDCSubject)
			}
		})
	}
}

func TestSSOProtocolFailures(t *testing.T) {
	t.Parallel()
	other, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	edit := func(claim string, v any) func(p *testProvider) {
		return func(p *testProvider) { p.edit = func(c map[string]any) { c[claim] = v } }
	}
	for name, tc := range map[string]struct {
		provider     func(p *testProvider)
		callback     func(u *url.URL) // changes the callback URL
		otherBrowser bool             // the callback arrives in a browser that did not start
		status       int
	}{
		"provider error": {provider: func(p *testProvider) { p.refuse = "access_denied" }, status: http.StatusUnauthorized},
		"wrong state": {callback: func(u *url.URL) {
			q := u.Query()
			q.Set("state", "guessed")
			u.RawQuery = q.Encode()
		}, status: http.StatusUnauthorized},
		"unknown code": {callback: func(u *url.URL) {
			q := u.Query()
			q.Set("code", "guessed")
			u.RawQuery = q.Encode()
		}, status: http.StatusBadGateway},
		"forged signature": {provider: func(p *testProvider) { p.forger = other }, status: http.StatusUnauthorized},
		"other audience":   {provider: edit("aud", "another-app"), status: http.StatusUnauthorized},
		"other azp":        {provider: edit("azp", "another-app"), status: http.StatusUnauthorized},
		"several audiences without azp": {
			provider: edit("aud", []string{testClientID, "another-app"}), status: http.StatusUnauthorized,
		},
		"other issuer":    {provider: edit("iss", "https://issuer.example"), status: http.StatusUnauthorized},
		"expired":         {provider: edit("exp", time.Now().Add(-time.Minute).Unix()), status: http.StatusUnauthorized},
		"other nonce":     {provider: edit("nonce", "replayed"), status: http.StatusUnauthorized},
		"no subject":      {provider: edit("sub", ""), status: http.StatusUnauthorized},
		"another browser": {otherBrowser: true, status: http.StatusUnauthorized}, // no flow cookie
		"control":         {status: http.StatusSeeOther},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b, p := ssoSetup(t)
			if tc.provider != nil {
				p.set(tc.provider)
			}
			br := b.browser()
			back, err := url.Parse(br.ssoCallbackURL(""))
			if err != nil {
				t.Fatal(err)
			}
			if tc.callback != nil {
				tc.callback(back)
			}
			if tc.otherBrowser {
				br = b.browser()
			}
			pg := br.anywhere().get(back.String())
			if tc.status == http.StatusSeeOther {
				if pg.status != http.StatusSeeOther || pg.location != "/" {
					t.Fatalf("control: %d %.300s", pg.status, pg.body)
				}
				return
			}
			if pg.status != tc.status || !strings.Contains(pg.body, msgSSOFailed) {
				t.Fatalf("callback: %d %s, want %d with the message: %.1000s", pg.status, pg.location, tc.status, pg.body)
			}
			if pg := br.get("/queue"); pg.status != http.StatusSeeOther {
				t.Fatalf("/queue after a failed sign-in: %d", pg.status)
			}
			if op, _ := b.st.OperatorByEmail(context.Background(), "advisor@example.com"); op.OIDCSubject != nil {
				t.Fatalf("bound after a failed sign-in: %s", *op.OIDCSubject)
			}
		})
	}
}

// TestSSOCallbackOnce: a callback URL replayed (after the sign-in, or by someone who
// saw it) finds no flow and signs no one in.
func TestSSOCallbackOnce(t *testing.T) {
	t.Parallel()
	b, _ := ssoSetup(t)
	br := b.browser()
	back := br.ssoCallbackURL("")
	if pg := br.anywhere().get(back); pg.status != http.StatusSeeOther {
		t.Fatalf("sign-in: %d %.300s", pg.status, pg.body)
	}
	if pg := br.anywhere().get(back); pg.status != http.StatusUnauthorized || !strings.Contains(pg.body, msgSSOFailed) {
		t.Fatalf("replayed callback: %d %.300s", pg.status, pg.body)
	}
}

func TestSSONextStaysLocal(t *testing.T) {
	t.Parallel()
	b, _ := ssoSetup(t)
	for next, want := range map[string]string{
		"/submissions/42?tab=documents": "/submissions/42?tab=documents",
		"":                              "/",
		"https://evil.example/":         "/",
		"//evil.example/x":              "/",
		"/\\evil.example":               "/",
	} {
		if pg := b.browser().sso(next); pg.status != http.StatusSeeOther || pg.location != want {
			t.Errorf("next %q: %d %s, want %s", next, pg.status, pg.location, want)
		}
	}
}

func TestSSOFlowCookieAndRedirectURL(t *testing.T) {
	t.Parallel()
	p := newTestProvider(t)
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for name, tc := range map[string]struct {
		edit                 func(s *console.Settings)
		cookie, redirectHost string
		secure               bool
	}{
		"derived from the request": {edit: func(*console.Settings) {}, cookie: "doceval_sso"},
		"public URL": {edit: func(s *console.Settings) {
			s.PublicURL, s.InsecureCookies = "https://console.example.com/", false
		}, cookie: "__Host-doceval_sso", redirectHost: "https://console.example.com", secure: true},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b := setup(t, func(d *console.Deps) { tc.edit(&d.Settings); withSSO(p)(d) })
			res, err := noRedirect.Get(b.srv.URL + "/login/sso")
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			loc, err := url.Parse(res.Header.Get("Location"))
			if err != nil {
				t.Fatal(err)
			}
			want := tc.redirectHost
			if want == "" {
				want = b.srv.URL
			}
			if got := loc.Query().Get("redirect_uri"); got != want+"/login/sso/callback" {
				t.Fatalf("redirect_uri %q, want %s/login/sso/callback", got, want)
			}
			cookies := res.Cookies()
			if len(cookies) != 1 {
				t.Fatalf("cookies %v", cookies)
			}
			c := cookies[0]
			if c.Name != tc.cookie || c.MaxAge != 600 || !c.HttpOnly || c.SameSite != http.SameSiteLaxMode || c.Secure != tc.secure || c.Path != "/" {
				t.Fatalf("flow cookie %+v", c)
			}
		})
	}
}

func TestSSOOffWithoutIssuer(t *testing.T) {
	t.Parallel()
	b := setup(t)
	br := b.browser()
	if pg := br.get("/login"); strings.Contains(pg.body, "/login/sso") {
		t.Fatal("the sign-in page offers SSO without a provider")
	}
	for _, path := range []string{"/login/sso", "/login/sso/callback?code=x&state=y"} {
		if pg := br.get(path); pg.status != http.StatusNotFound {
			t.Fatalf("%s: %d, want 404", path, pg.status)
		}
	}
}

func TestNewOIDC(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	t.Run("off without an issuer", func(t *testing.T) {
		t.Parallel()
		if o, err := console.NewOIDC(ctx, console.Settings{}); o != nil || err != nil {
			t.Fatalf("%v %v", o, err)
		}
	})
	t.Run("needs a client ID", func(t *testing.T) {
		t.Parallel()
		if _, err := console.NewOIDC(ctx, console.Settings{OIDCIssuer: "https://id.example"}); err == nil || !strings.Contains(err.Error(), "CLIENT_ID") {
			t.Fatalf("err %v", err)
		}
	})
	t.Run("provider starting late", func(t *testing.T) {
		t.Parallel()
		p := newTestProvider(t)
		p.set(func(p *testProvider) { p.unavailable = 2 })
		var s console.Settings
		p.settings(&s)
		if o, err := console.NewOIDC(ctx, s); o == nil || err != nil {
			t.Fatalf("%v %v", o, err)
		}
	})
	t.Run("issuer mismatch fails at once", func(t *testing.T) {
		t.Parallel()
		p := newTestProvider(t)
		var s console.Settings
		p.settings(&s)
		s.OIDCIssuer += "/"
		start := time.Now()
		if _, err := console.NewOIDC(ctx, s); err == nil || !strings.Contains(err.Error(), "did not match") || time.Since(start) > 5*time.Second {
			t.Fatalf("err %v after %s", err, time.Since(start))
		}
	})
	t.Run("no provider", func(t *testing.T) {
		t.Parallel()
		dead := httptest.NewServer(http.NotFoundHandler())
		dead.Close()
		ctx, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		_, err := console.NewOIDC(ctx, console.Settings{OIDCIssuer: dead.URL, OIDCClientID: "x"})
		if err == nil || !strings.Contains(err.Error(), dead.URL) {
			t.Fatalf("err %v", err)
		}
	})
}
