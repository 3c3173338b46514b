package console

import (
	"context"
	"errors"
	"fmt"
	"html/template"
	"log/slog"
	"net/http"
	"net/netip"
	"net/url"
	"path"
	"strings"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/doceval/doceval/pkg/apierr"
	"github.com/doceval/doceval/pkg/auth"
	"github.com/doceval/doceval/pkg/blob"
	"github.com/doceval/doceval/pkg/domain"
	"github.com/doceval/doceval/pkg/extractor"
	"github.com/doceval/doceval/pkg/secretbox"
	"github.com/doceval/doceval/pkg/store"
)

// app is the console's HTTP handler.
type app struct {
	st       *store.Store
	blobs    *blob.Store
	log      *slog.Logger
	cfg      Settings
	oidc     *OIDC
	msgs     catalog
	pages    map[string]map[string]*template.Template // language → page → template
	secure   bool                                     // cookies carry Secure
	renderer *pageRenderer
	signins  *prometheus.CounterVec
	proxies  []netip.Prefix // whose X-Forwarded-For is believed
	// box seals and opens TOTP secrets (DOCEVAL_CONSOLE_SECRET_KEY).
	box *secretbox.Box
	// passwords bounds the argon2id checks running at once.
	passwords *auth.PasswordChecker
	// views keeps document.view audit entries to one per viewer page load.
	views viewAudit
}

// New builds the console's handler.
func New(d Deps) (http.Handler, error) {
	msgs, err := loadCatalog()
	if err != nil {
		return nil, err
	}
	a := &app{st: d.Store, blobs: d.Blobs, log: d.Log, cfg: d.Settings, oidc: d.OIDC, msgs: msgs}
	a.signins = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "doceval_console_signins_total",
		Help: "Console sign-ins by method (password, totp, oidc) and result (ok, failed, throttled, busy, sso_only).",
	}, []string{"method", "result"})
	if d.Registry != nil {
		if err := d.Registry.Register(a.signins); err != nil {
			return nil, err
		}
	}
	a.secure = !d.Settings.InsecureCookies
	if d.Settings.SecretKey == "" {
		return nil, errors.New("DOCEVAL_CONSOLE_SECRET_KEY is required: it seals the staff's TOTP secrets (a key ring of the console's own, not the api's DOCEVAL_SECRET_KEY)")
	}
	keys, err := secretbox.ParseKeys(d.Settings.SecretKey)
	if err != nil {
		return nil, fmt.Errorf("DOCEVAL_CONSOLE_SECRET_KEY: %w", err)
	}
	if a.box, err = secretbox.NewRing(keys); err != nil {
		return nil, err
	}
	a.passwords = auth.NewPasswordChecker(d.Settings.HashConcurrency, d.Settings.HashWait)
	if a.proxies, err = parseProxies(d.Settings.TrustedProxies); err != nil {
		return nil, err
	}
	if a.pages, err = parsePages(msgs); err != nil {
		return nil, err
	}
	a.renderer = newPageRenderer(d.Blobs, d.Settings)
	a.renderer.st = d.Store
	if a.renderer.parser, err = extractor.New(d.Settings.Extractor); err != nil {
		return nil, err
	}
	if d.Log != nil {
		d.Log.Info("page renderer", "parser", a.renderer.parser.Describe())
	}
	mux := http.NewServeMux()
	if d.Health != nil {
		mux.Handle("GET /healthz", d.Health)
	}
	mux.Handle("GET /static/", staticHandler())
	mux.HandleFunc("GET /lang/{lang}", a.setLanguage)
	mux.HandleFunc("GET /login", a.loginPage)
	mux.HandleFunc("POST /login", a.login)
	mux.HandleFunc("GET /login/code", a.loginCodePage)
	mux.HandleFunc("POST /login/code", a.loginCode)
	mux.HandleFunc("GET /login/sso", a.ssoStart)
	mux.HandleFunc("GET /login/sso/callback", a.ssoCallback)
	mux.Handle("POST /logout", a.signedIn("", a.logout))
	mux.Handle("POST /logout/everywhere", a.signedIn("", a.logoutEverywhere))
	mux.Handle("GET /{$}", a.signedIn("", a.home))
	mux.Handle("GET /account/mfa", a.signedIn("", a.mfaPage))
	mux.Handle("POST /account/mfa", a.signedIn("", a.mfaConfirm))

	// Advisors (and admins): the work queue, submissions, documents, decisions.
	mux.Handle("GET /queue", a.signedIn("", a.queue))
	mux.Handle("GET /submissions/{id}", a.signedIn("", a.submission))
	mux.Handle("POST /submissions/{id}/slots/{slot}/decision", a.signedIn("", a.decide))
	mux.Handle("GET /uploads/{id}/pages/{page}", a.signedIn("", a.viewer))
	mux.Handle("GET /uploads/{id}/pages/{page}/image", a.signedIn("", a.pageImage))

	// Admins: API clients, keys, permissions, webhooks, events, the audit log.
	mux.Handle("GET /clients", a.signedIn(store.RoleAdmin, a.clients))
	mux.Handle("POST /clients", a.signedIn(store.RoleAdmin, a.createClient))
	mux.Handle("GET /clients/{id}", a.signedIn(store.RoleAdmin, a.client))
	mux.Handle("POST /clients/{id}/permissions", a.signedIn(store.RoleAdmin, a.setPermissions))
	mux.Handle("POST /clients/{id}/disable", a.signedIn(store.RoleAdmin, a.setDisabled(true)))
	mux.Handle("POST /clients/{id}/enable", a.signedIn(store.RoleAdmin, a.setDisabled(false)))
	mux.Handle("POST /clients/{id}/keys", a.signedIn(store.RoleAdmin, a.issueKey))
	mux.Handle("POST /clients/{id}/keys/{key}/revoke", a.signedIn(store.RoleAdmin, a.revokeKey))
	mux.Handle("GET /clients/{id}/events", a.signedIn(store.RoleAdmin, a.events))
	mux.Handle("GET /clients/{id}/events/{event}", a.signedIn(store.RoleAdmin, a.event))
	mux.Handle("POST /clients/{id}/events/{event}/redeliver", a.signedIn(store.RoleAdmin, a.redeliver))
	mux.Handle("GET /audit", a.signedIn(store.RoleAdmin, a.audit))
	mux.Handle("/", http.HandlerFunc(a.notFound))
	return a.guard(mux), nil
}

// guard sets the headers every response carries and refuses cross-site form posts
// before any handler runs (the per-form CSRF token is checked in signedIn and login).
func (a *app) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "+
			"connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "same-origin")
		if a.secure {
			h.Set("Strict-Transport-Security", "max-age=31536000")
		}
		if err := crossOrigin.Check(r); err != nil {
			a.fail(w, r, nil, http.StatusForbidden, "error.cross_site")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// crossOrigin refuses a state-changing request a browser marks as sent from another
// site (Sec-Fetch-Site) or whose Origin names another host: the standard library's
// check, which also knows the older browsers' cases.
var crossOrigin = http.NewCrossOriginProtection()

// reqState is what a signed-in request carries.
type reqState struct {
	op   store.Operator
	sess store.ConsoleSession
	lang string
}

type ctxKey struct{}

func stateOf(ctx context.Context) *reqState {
	s, _ := ctx.Value(ctxKey{}).(*reqState)
	return s
}

// handler is a console page or action for a signed-in operator.
type handler func(w http.ResponseWriter, r *http.Request, rs *reqState) error

// Errors a handler returns to get the matching page.
var (
	errForbidden = errors.New("forbidden")
	errBadInput  = errors.New("bad input")
)

// refusalMessages are the messages of the domain's refusals a page shows, by the error
// code apierr.FromDomain gives them; that table also chooses the page's status.
var refusalMessages = map[apierr.Code]string{
	apierr.PartnerDataPurgeInProgress: "decision.purging",
	apierr.SubmissionCanceled:         "decision.canceled",
}

// signedIn runs h for a signed-in operator of the role (admin passes every check; ""
// admits every role). Without a valid session a page redirects to the sign-in page; a
// form post also needs the session's CSRF token.
func (a *app) signedIn(role string, h handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		lang := requestLang(r)
		sess, op, err := a.session(r)
		if err != nil {
			if !errors.Is(err, store.ErrNotFound) {
				a.fail(w, r, err, http.StatusServiceUnavailable, "error.unavailable")
				return
			}
			a.clearSessionCookie(w)
			if r.Method == http.MethodGet {
				http.Redirect(w, r, "/login?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
				return
			}
			a.fail(w, r, nil, http.StatusUnauthorized, "error.signed_out")
			return
		}
		rs := &reqState{op: op, sess: sess, lang: lang}
		r = r.WithContext(context.WithValue(r.Context(), ctxKey{}, rs))
		if r.Method == http.MethodPost && !validCSRF(r, sess.CSRFToken) {
			a.fail(w, r, nil, http.StatusForbidden, "error.csrf")
			return
		}
		if a.mustEnrol(r, op) {
			if r.Method == http.MethodGet {
				http.Redirect(w, r, "/account/mfa", http.StatusSeeOther)
				return
			}
			a.fail(w, r, nil, http.StatusForbidden, "mfa.required")
			return
		}
		if role != "" && op.Role != role && op.Role != store.RoleAdmin {
			a.fail(w, r, nil, http.StatusForbidden, "error.forbidden")
			return
		}
		if err := h(w, r, rs); err != nil {
			a.handleError(w, r, err)
		}
	})
}

func (a *app) handleError(w http.ResponseWriter, r *http.Request, err error) {
	switch {
	case errors.Is(err, store.ErrNotFound), errors.As(err, new(*domain.NotFoundError)):
		a.notFound(w, r)
	case errors.Is(err, errForbidden):
		a.fail(w, r, nil, http.StatusForbidden, "error.forbidden")
	case errors.Is(err, errBadInput):
		a.fail(w, r, nil, http.StatusBadRequest, "error.bad_input")
	case store.Unavailable(err):
		a.fail(w, r, err, http.StatusServiceUnavailable, "error.unavailable")
	default:
		if e, ok := apierr.FromDomain(err); ok {
			msg, known := refusalMessages[e.Code]
			if !known {
				msg = "error.bad_input"
			}
			a.fail(w, r, nil, e.Status, msg)
			return
		}
		a.fail(w, r, err, http.StatusInternalServerError, "error.internal")
	}
}

func (a *app) notFound(w http.ResponseWriter, r *http.Request) {
	a.fail(w, r, nil, http.StatusNotFound, "error.not_found")
}

// fail renders the error page with a message; err (if any) is logged, never shown.
func (a *app) fail(w http.ResponseWriter, r *http.Request, err error, status int, msg string) {
	if err != nil && status >= 500 {
		a.log.Error("console request failed", "method", r.Method, "path", r.URL.Path, "error", err)
	}
	a.render(w, r, status, "error", map[string]any{"Message": msg, "Status": status})
}

func (a *app) home(w http.ResponseWriter, r *http.Request, rs *reqState) error {
	http.Redirect(w, r, "/queue", http.StatusSeeOther)
	return nil
}

// setLanguage stores the chosen language and returns to the page it was chosen on.
func (a *app) setLanguage(w http.ResponseWriter, r *http.Request) {
	lang := r.PathValue("lang")
	if lang != "en" && lang != "de" {
		a.notFound(w, r)
		return
	}
	http.SetCookie(w, &http.Cookie{Name: langCookie, Value: lang, Path: "/", MaxAge: 365 * 24 * 3600, Secure: a.secure, HttpOnly: true, SameSite: http.SameSiteLaxMode})
	http.Redirect(w, r, localPath(r.URL.Query().Get("next"), "/"), http.StatusSeeOther)
}

// localPath returns p when it is a path on this site, else def: redirects never leave
// the console. Refused: anything with a scheme or host, a backslash (browsers read
// "/\\host" as "//host"), control characters or spaces (browsers drop tabs and newlines
// from URLs), and anything that is not a rooted path once cleaned the way http.Redirect
// cleans it.
func localPath(p, def string) string {
	if p == "" || p[0] != '/' || strings.ContainsRune(p, '\\') {
		return def
	}
	for _, c := range []byte(p) {
		if c <= 0x20 || c == 0x7f {
			return def
		}
	}
	u, err := url.Parse(p)
	if err != nil || u.Scheme != "" || u.Host != "" || u.Opaque != "" || strings.HasPrefix(u.Path, "//") {
		return def
	}
	if cleaned := path.Clean(u.Path); strings.HasPrefix(cleaned, "//") || !strings.HasPrefix(cleaned, "/") {
		return def
	}
	return p
}
