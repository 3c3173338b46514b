package console

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/doceval/doceval/pkg/auth"
	"github.com/doceval/doceval/pkg/store"
)

// Sessions: the cookie holds 256 random bits; the database keeps their SHA-256 with the
// operator, the session's CSRF token, an idle and an absolute expiry (store.Session).
// The cookie is HttpOnly, SameSite=Lax, Secure and __Host- prefixed unless the console
// runs on plain http for development (DOCEVAL_CONSOLE_INSECURE_COOKIES).

func (a *app) sessionCookieName() string {
	if a.secure {
		return "__Host-doceval_session"
	}
	return "doceval_session"
}

// loginCookieName holds the sign-in form's token before there is a session (double
// submit): a form posted from elsewhere cannot know it.
func (a *app) loginCookieName() string {
	if a.secure {
		return "__Host-doceval_login"
	}
	return "doceval_login"
}

func randomToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

func tokenHash(token string) []byte {
	h := sha256.Sum256([]byte(token))
	return h[:]
}

// session resolves the request's session cookie; store.ErrNotFound when there is none
// or it expired.
func (a *app) session(r *http.Request) (store.ConsoleSession, store.Operator, error) {
	c, err := r.Cookie(a.sessionCookieName())
	if err != nil || c.Value == "" {
		return store.ConsoleSession{}, store.Operator{}, store.ErrNotFound
	}
	sess, err := a.st.Session(r.Context(), tokenHash(c.Value), a.cfg.SessionIdle)
	if err != nil {
		return sess, store.Operator{}, err
	}
	op, err := a.st.OperatorByID(r.Context(), sess.OperatorID)
	if err == nil && op.Disabled {
		err = store.ErrNotFound
	}
	return sess, op, err
}

func (a *app) setCookie(w http.ResponseWriter, name, value string, maxAge int) {
	http.SetCookie(w, &http.Cookie{
		Name: name, Value: value, Path: "/", MaxAge: maxAge,
		Secure: a.secure, HttpOnly: true, SameSite: http.SameSiteLaxMode,
	})
}

func (a *app) clearSessionCookie(w http.ResponseWriter) {
	a.setCookie(w, a.sessionCookieName(), "", -1)
}

// validCSRF checks a form's csrf field against the expected token in constant time.
func validCSRF(r *http.Request, want string) bool {
	got := r.PostFormValue("csrf")
	return want != "" && subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}

// clientIP is the address a request came from, for throttling and the audit log. Behind
// an ingress the peer is the proxy; X-Forwarded-For's last hop is the one our proxy
// added, so it is taken (earlier hops are the client's to forge).
func clientIP(r *http.Request) string {
	if fwd := r.Header.Get("X-Forwarded-For"); fwd != "" {
		hops := strings.Split(fwd, ",")
		if ip := net.ParseIP(strings.TrimSpace(hops[len(hops)-1])); ip != nil {
			return ip.String()
		}
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

func actorOf(r *http.Request, op store.Operator) store.Actor {
	id := op.ID
	return store.Actor{OperatorID: &id, Name: op.Email, IP: clientIP(r), UserAgent: truncate(r.UserAgent(), 300)}
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// loginPage shows the sign-in form with a fresh double-submit token.
func (a *app) loginPage(w http.ResponseWriter, r *http.Request) {
	if _, _, err := a.session(r); err == nil {
		http.Redirect(w, r, localPath(r.URL.Query().Get("next"), "/"), http.StatusSeeOther)
		return
	}
	a.renderLogin(w, r, http.StatusOK, "", r.URL.Query().Get("next"), r.URL.Query().Get("error"))
}

func (a *app) renderLogin(w http.ResponseWriter, r *http.Request, status int, email, next, msg string) {
	token := randomToken()
	a.setCookie(w, a.loginCookieName(), token, 3600)
	a.render(w, r, status, "login", map[string]any{
		"LoginToken": token, "Email": email, "Next": localPath(next, ""), "Error": msg,
		"SSO": a.oidc != nil, "SSOButton": a.cfg.OIDCButton,
	})
}

// login signs in with e-mail and password. Failed attempts are counted per e-mail and
// per address; past LoginMaxFailures for the e-mail (or four times that from one
// address) within LoginWindow, sign-in is refused until the window has passed, whether
// the password is right or not.
func (a *app) login(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	email := truncate(strings.TrimSpace(r.PostFormValue("email")), 254)
	password := r.PostFormValue("password")
	next := r.PostFormValue("next")
	c, err := r.Cookie(a.loginCookieName())
	if err != nil || c.Value == "" || subtle.ConstantTimeCompare([]byte(c.Value), []byte(r.PostFormValue("csrf"))) != 1 {
		a.renderLogin(w, r, http.StatusForbidden, email, next, "error.csrf")
		return
	}
	ctx, ip := r.Context(), clientIP(r)
	byEmail, byIP, err := a.st.LoginFailures(ctx, email, ip, a.cfg.LoginWindow)
	if err != nil {
		a.fail(w, r, err, http.StatusServiceUnavailable, "error.unavailable")
		return
	}
	if byEmail >= int64(a.cfg.LoginMaxFailures) || byIP >= 4*int64(a.cfg.LoginMaxFailures) {
		_ = a.st.RecordAudit(ctx, store.Actor{Name: truncate(email, 254), IP: ip, UserAgent: truncate(r.UserAgent(), 300)}, "signin.throttled", "operator", "", nil)
		a.signins.WithLabelValues("password", "throttled").Inc()
		w.Header().Set("Retry-After", "60")
		a.renderLogin(w, r, http.StatusTooManyRequests, email, next, "login.throttled")
		return
	}
	op, err := a.st.OperatorByEmail(ctx, email)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		a.fail(w, r, err, http.StatusServiceUnavailable, "error.unavailable")
		return
	}
	var hash *string
	if err == nil && !op.Disabled {
		hash = op.PasswordHash
	}
	if !auth.CheckPassword(hash, password) {
		a.signins.WithLabelValues("password", "failed").Inc()
		if err := a.st.RecordLoginFailure(ctx, email, ip); err != nil {
			a.log.Warn("record sign-in failure", "error", err)
		}
		target := "" // no such account
		if op.ID != uuid.Nil {
			target = op.ID.String()
		}
		_ = a.st.RecordAudit(ctx, store.Actor{Name: truncate(email, 254), IP: ip, UserAgent: truncate(r.UserAgent(), 300)}, "signin.failed", "operator", target, nil)
		a.renderLogin(w, r, http.StatusUnauthorized, email, next, "login.failed")
		return
	}
	_ = a.st.ClearLoginFailures(ctx, email)
	a.startSession(w, r, op, "password", next)
}

// startSession opens a session for op (after a password or SSO sign-in), records the
// sign-in, and goes to next.
func (a *app) startSession(w http.ResponseWriter, r *http.Request, op store.Operator, method, next string) {
	token := randomToken()
	_, err := a.st.CreateSession(r.Context(), store.NewSession{
		TokenHash: tokenHash(token), OperatorID: op.ID, CSRFToken: randomToken(), MaxAge: a.cfg.SessionMax,
		IP: clientIP(r), UserAgent: truncate(r.UserAgent(), 300),
	})
	if err != nil {
		a.fail(w, r, err, http.StatusServiceUnavailable, "error.unavailable")
		return
	}
	a.signins.WithLabelValues(method, "ok").Inc()
	if err := a.st.RecordAudit(r.Context(), actorOf(r, op), "signin", "operator", op.ID.String(), map[string]any{"method": method}); err != nil {
		a.log.Warn("audit sign-in", "error", err)
	}
	a.setCookie(w, a.sessionCookieName(), token, int(a.cfg.SessionMax/time.Second))
	a.setCookie(w, a.loginCookieName(), "", -1)
	http.Redirect(w, r, localPath(next, "/"), http.StatusSeeOther)
}

func (a *app) logout(w http.ResponseWriter, r *http.Request, rs *reqState) error {
	if err := a.st.DeleteSession(r.Context(), rs.sess.TokenHash); err != nil {
		return err
	}
	_ = a.st.RecordAudit(r.Context(), actorOf(r, rs.op), "signout", "operator", rs.op.ID.String(), nil)
	a.clearSessionCookie(w)
	http.Redirect(w, r, "/login", http.StatusSeeOther)
	return nil
}

// logoutEverywhere ends every session of the operator, on every device.
func (a *app) logoutEverywhere(w http.ResponseWriter, r *http.Request, rs *reqState) error {
	n, err := a.st.DeleteSessionsOf(r.Context(), rs.op.ID)
	if err != nil {
		return err
	}
	_ = a.st.RecordAudit(r.Context(), actorOf(r, rs.op), "signout.everywhere", "operator", rs.op.ID.String(), map[string]any{"sessions": n})
	a.clearSessionCookie(w)
	http.Redirect(w, r, "/login", http.StatusSeeOther)
	return nil
}
