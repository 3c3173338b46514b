package console

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/doceval/doceval/pkg/config"
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

// clientIP is the address a request came from, for throttling and the audit log: the
// peer, unless the peer is one of the trusted proxies (DOCEVAL_CONSOLE_TRUSTED_PROXIES);
// then X-Forwarded-For is read from the right, skipping trusted proxies, and the first
// address that is not one is the client (hops further left are the client's to forge).
func (a *app) clientIP(r *http.Request) string {
	peer, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		peer = r.RemoteAddr
	}
	addr, err := netip.ParseAddr(peer)
	if err != nil || !a.trusted(addr) {
		return cleanText(peer, 64)
	}
	hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
	for i := len(hops) - 1; i >= 0; i-- {
		hop, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			break // a malformed hop: trust nothing further left
		}
		addr = hop.Unmap()
		if !a.trusted(addr) {
			break
		}
	}
	return addr.String()
}

func (a *app) trusted(addr netip.Addr) bool {
	for _, p := range a.proxies {
		if p.Contains(addr.Unmap()) {
			return true
		}
	}
	return false
}

// parseProxies reads DOCEVAL_CONSOLE_TRUSTED_PROXIES (config.ParseProxies).
func parseProxies(s string) ([]netip.Prefix, error) {
	out, err := config.ParseProxies(s)
	if err != nil {
		return nil, fmt.Errorf("DOCEVAL_CONSOLE_TRUSTED_PROXIES: %w", err)
	}
	return out, nil
}

func (a *app) actorOf(r *http.Request, op store.Operator) store.Actor {
	id := op.ID
	return store.Actor{OperatorID: &id, Name: op.Email, IP: a.clientIP(r), UserAgent: cleanText(r.UserAgent(), 300)}
}

// anonymous is the actor of an attempt by someone not signed in: the e-mail they gave.
func (a *app) anonymous(r *http.Request, email string) store.Actor {
	return store.Actor{Name: cleanText(email, 254), IP: a.clientIP(r), UserAgent: cleanText(r.UserAgent(), 300)}
}

// cleanText makes text from a request fit to store: valid UTF-8 without NUL, cut to at
// most n bytes on a character boundary.
func cleanText(s string, n int) string {
	s = strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "")
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// validText reports whether a form field can be stored as it is: valid UTF-8, no NUL.
func validText(s string) bool { return utf8.ValidString(s) && !strings.ContainsRune(s, 0) }

// loginPage shows the sign-in form with a fresh double-submit token.
func (a *app) loginPage(w http.ResponseWriter, r *http.Request) {
	if _, _, err := a.session(r); err == nil {
		http.Redirect(w, r, localPath(r.URL.Query().Get("next"), "/"), http.StatusSeeOther)
		return
	}
	a.renderLogin(w, r, http.StatusOK, "", r.URL.Query().Get("next"), "")
}

func (a *app) renderLogin(w http.ResponseWriter, r *http.Request, status int, email, next, msg string) {
	token := randomToken()
	a.setCookie(w, a.loginCookieName(), token, 3600)
	a.render(w, r, status, "login", map[string]any{
		"LoginToken": token, "Email": email, "Next": localPath(next, ""), "Error": msg,
		"SSO": a.oidc != nil, "SSOButton": a.cfg.OIDCButton,
	})
}

// login signs in with e-mail and password. Every attempt is counted as a failure per
// (e-mail, source) before its password is checked (and forgotten when the sign-in
// completes), so attempts sent at once cannot all pass the count (admit). The password
// is checked in one of a bounded number of slots (auth.PasswordChecker); without a free
// slot the answer is 429 "try again" and the attempt is not counted.
//
// An account bound to single sign-on is refused here with the same answer as a wrong
// password, after the same work: the form tells nobody which accounts exist or how they
// sign in, and the identity provider's second factor and offboarding cannot be bypassed
// with a password the account may still have. The refusal is in the audit log as
// signin.sso_only. An account with a second factor gets the code form next (startMFA).
func (a *app) login(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	email := cleanText(strings.TrimSpace(r.PostFormValue("email")), 254)
	password := r.PostFormValue("password")
	next := r.PostFormValue("next")
	c, err := r.Cookie(a.loginCookieName())
	if err != nil || c.Value == "" || subtle.ConstantTimeCompare([]byte(c.Value), []byte(r.PostFormValue("csrf"))) != 1 {
		a.renderLogin(w, r, http.StatusForbidden, email, next, "error.csrf")
		return
	}
	ctx := r.Context()
	failure, ok := a.admit(w, r, store.FailedPassword, email, next)
	if !ok {
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
	right, err := a.passwords.Check(ctx, hash, password)
	if err != nil {
		// Not checked, so not counted: a burst of others' sign-ins must not lock anyone out.
		if err := a.st.ForgetLoginFailure(context.WithoutCancel(ctx), failure); err != nil {
			a.log.Warn("forget an unchecked sign-in attempt", "error", err)
		}
		a.signins.WithLabelValues("password", "busy").Inc()
		w.Header().Set("Retry-After", "1")
		a.renderLogin(w, r, http.StatusTooManyRequests, email, next, "login.busy")
		return
	}
	target := "" // no such account
	if op.ID != uuid.Nil {
		target = op.ID.String()
	}
	if right && op.SSOBound() {
		a.signins.WithLabelValues("password", "sso_only").Inc()
		a.recordAttempt(r, a.anonymous(r, email), "signin.sso_only", target, nil)
		a.renderLogin(w, r, http.StatusUnauthorized, email, next, "login.failed")
		return
	}
	if !right {
		a.signins.WithLabelValues("password", "failed").Inc()
		a.recordAttempt(r, a.anonymous(r, email), "signin.failed", target, nil)
		a.renderLogin(w, r, http.StatusUnauthorized, email, next, "login.failed")
		return
	}
	if op.TOTPEnabledAt != nil {
		// The password was right: not a failure, whether or not a code follows. Left
		// counted, code forms left unanswered would lock the owner out of this source.
		if err := a.st.ForgetLoginFailure(ctx, failure); err != nil {
			a.log.Warn("forget a right password's attempt", "error", err)
		}
		a.startMFA(w, r, op, next)
		return
	}
	a.forgetFailures(r, op.Email)
	a.startSession(w, r, op, "password", next)
}

// admit counts an attempt (a password or a second-factor code) for the e-mail from the
// request's source as a failure, then refuses it with 429 when the source has failed
// more than LoginMaxFailures times for that e-mail, or 4× as often for any e-mails,
// within LoginWindow; a code also when the account has had more than
// 2×LoginMaxFailures wrong codes from any sources (codeLimit). It returns the counted
// failure's id.
func (a *app) admit(w http.ResponseWriter, r *http.Request, kind store.LoginFailureKind, email, next string) (int64, bool) {
	ctx, source := r.Context(), a.throttleSource(r)
	id, err := a.st.RecordLoginFailure(ctx, email, source, kind)
	if err != nil {
		a.fail(w, r, err, http.StatusServiceUnavailable, "error.unavailable")
		return 0, false
	}
	n, err := a.st.LoginFailures(ctx, email, source, a.cfg.LoginWindow)
	if err != nil {
		a.fail(w, r, err, http.StatusServiceUnavailable, "error.unavailable")
		return 0, false
	}
	limit, codes := int64(a.cfg.LoginMaxFailures), a.codeLimit()
	codesLocked := kind == store.FailedCode && n.CodesByAccount > codes
	if n.ByAccountSource <= limit && n.BySource <= 4*limit && !codesLocked {
		return id, true
	}
	// One entry when a lock begins, not one per refused attempt.
	switch {
	case n.ByAccountSource == limit+1 || n.BySource == 4*limit+1:
		a.recordAttempt(r, a.anonymous(r, email), "signin.throttled", "", map[string]any{"source": source})
	case codesLocked && n.CodesByAccount == codes+1:
		a.recordAttempt(r, a.anonymous(r, email), "signin.throttled", "", map[string]any{"source": source, "codes": n.CodesByAccount})
	}
	method := "password"
	if kind == store.FailedCode {
		method = "totp"
	}
	a.signins.WithLabelValues(method, "throttled").Inc()
	w.Header().Set("Retry-After", strconv.Itoa(int(a.cfg.LoginWindow/time.Second)))
	a.renderLogin(w, r, http.StatusTooManyRequests, email, next, "login.throttled")
	return 0, false
}

// codeLimit is how many wrong second-factor codes an account may have within
// LoginWindow from all sources together before further codes are refused: codes are
// few (10⁶), and someone holding the password could otherwise guess them from many
// addresses at LoginMaxFailures each. Only someone with the right password reaches
// the code form, so a stranger cannot use this limit to lock the owner out.
func (a *app) codeLimit() int64 { return 2 * int64(a.cfg.LoginMaxFailures) }

// forgetFailures forgets the e-mail's failures from the request's source once a
// sign-in from there completed.
func (a *app) forgetFailures(r *http.Request, email string) {
	if err := a.st.ClearLoginFailures(r.Context(), email, a.throttleSource(r)); err != nil {
		a.log.Warn("forget sign-in attempts", "error", err)
	}
}

// throttleSource is the source sign-in failures are counted against: the client's
// address (clientIP), an IPv6 one cut to its /64, which one subscriber usually holds
// whole.
func (a *app) throttleSource(r *http.Request) string {
	ip := a.clientIP(r)
	addr, err := netip.ParseAddr(ip)
	if err != nil || addr.Unmap().Is4() {
		return ip
	}
	p, err := addr.Prefix(64)
	if err != nil {
		return ip
	}
	return p.String()
}

// recordAttempt records an attempt that changes nothing else (a refused sign-in); a failure to
// record it is logged, since the answer to the attempt does not depend on it.
func (a *app) recordAttempt(r *http.Request, actor store.Actor, action, target string, details any) {
	if err := a.st.RecordAudit(r.Context(), actor, action, "operator", target, details); err != nil {
		a.log.Error("audit", "action", action, "error", err)
	}
}

// startSession opens a session for op (after a password or SSO sign-in), in the same
// transaction as its audit entry, ends the session the browser presented (if any), and
// goes to next.
func (a *app) startSession(w http.ResponseWriter, r *http.Request, op store.Operator, method, next string) {
	if c, err := r.Cookie(a.sessionCookieName()); err == nil && c.Value != "" {
		if err := a.st.DeleteSession(r.Context(), tokenHash(c.Value)); err != nil {
			a.log.Warn("end the previous session", "error", err)
		}
	}
	token := randomToken()
	_, err := a.st.As(a.actorOf(r, op)).CreateSession(r.Context(), store.NewSession{
		TokenHash: tokenHash(token), OperatorID: op.ID, CSRFToken: randomToken(), MaxAge: a.cfg.SessionMax,
		IP: a.clientIP(r), UserAgent: cleanText(r.UserAgent(), 300), Method: method,
	})
	if err != nil {
		a.fail(w, r, err, http.StatusServiceUnavailable, "error.unavailable")
		return
	}
	a.signins.WithLabelValues(method, "ok").Inc()
	a.setCookie(w, a.sessionCookieName(), token, int(a.cfg.SessionMax/time.Second))
	a.setCookie(w, a.loginCookieName(), "", -1)
	http.Redirect(w, r, localPath(next, "/"), http.StatusSeeOther)
}

func (a *app) logout(w http.ResponseWriter, r *http.Request, rs *reqState) error {
	if err := a.st.DeleteSession(r.Context(), rs.sess.TokenHash); err != nil {
		return err
	}
	a.recordAttempt(r, a.actorOf(r, rs.op), "signout", rs.op.ID.String(), nil)
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
	a.recordAttempt(r, a.actorOf(r, rs.op), "signout.everywhere", rs.op.ID.String(), map[string]any{"sessions": n})
	a.clearSessionCookie(w)
	http.Redirect(w, r, "/login", http.StatusSeeOther)
	return nil
}
