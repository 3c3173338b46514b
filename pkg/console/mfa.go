package console

import (
	"context"
	"crypto/subtle"
	"errors"
	"html/template"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/doceval/doceval/pkg/auth"
	"github.com/doceval/doceval/pkg/store"
)

// The second factor of password accounts: a TOTP code (auth.MatchTOTP) after the
// password. Between the two, the browser holds a pending session (its own cookie, a
// few minutes long) that opens only the code form; the full session is a new one, made
// when the code is right. Each code signs in once (store.UseTOTPStep), and wrong codes
// count against the same (e-mail, source) limit as wrong passwords and, across all
// sources, against the account's own limit (codeLimit), whose tripping also ends the
// pending session.

// mfaPendingAge is how long the code form waits after a right password.
const mfaPendingAge = 5 * time.Minute

func (a *app) mfaCookieName() string {
	if a.secure {
		return "__Host-doceval_mfa"
	}
	return "doceval_mfa"
}

// startMFA follows a right password on an account with a second factor: a pending
// session, then the code form.
func (a *app) startMFA(w http.ResponseWriter, r *http.Request, op store.Operator, next string) {
	token := randomToken()
	_, err := a.st.CreateSession(r.Context(), store.NewSession{
		TokenHash: tokenHash(token), OperatorID: op.ID, CSRFToken: randomToken(), MaxAge: mfaPendingAge,
		IP: a.clientIP(r), UserAgent: cleanText(r.UserAgent(), 300), Method: "password", MFAPending: true,
	})
	if err != nil {
		a.fail(w, r, err, http.StatusServiceUnavailable, "error.unavailable")
		return
	}
	a.setCookie(w, a.mfaCookieName(), token, int(mfaPendingAge/time.Second))
	a.setCookie(w, a.loginCookieName(), "", -1)
	target := "/login/code"
	if next = localPath(next, ""); next != "" {
		target += "?next=" + url.QueryEscape(next)
	}
	http.Redirect(w, r, target, http.StatusSeeOther)
}

// pendingSession resolves the request's pending-session cookie and its operator;
// store.ErrNotFound when there is none, it expired, or the operator was disabled.
func (a *app) pendingSession(r *http.Request) (store.ConsoleSession, store.Operator, error) {
	c, err := r.Cookie(a.mfaCookieName())
	if err != nil || c.Value == "" {
		return store.ConsoleSession{}, store.Operator{}, store.ErrNotFound
	}
	sess, err := a.st.PendingSession(r.Context(), tokenHash(c.Value))
	if err != nil {
		return sess, store.Operator{}, err
	}
	op, err := a.st.OperatorByID(r.Context(), sess.OperatorID)
	if err == nil && (op.Disabled || op.TOTPEnabledAt == nil) {
		err = store.ErrNotFound
	}
	return sess, op, err
}

func (a *app) renderCode(w http.ResponseWriter, r *http.Request, status int, sess store.ConsoleSession, next, msg string) {
	a.render(w, r, status, "login_code", map[string]any{"CSRF": sess.CSRFToken, "Next": localPath(next, ""), "Error": msg})
}

// loginCodePage asks for the code; without a pending session, back to the password.
func (a *app) loginCodePage(w http.ResponseWriter, r *http.Request) {
	sess, _, err := a.pendingSession(r)
	if err != nil {
		a.restartLogin(w, r, err)
		return
	}
	a.renderCode(w, r, http.StatusOK, sess, r.URL.Query().Get("next"), "")
}

func (a *app) restartLogin(w http.ResponseWriter, r *http.Request, err error) {
	if !errors.Is(err, store.ErrNotFound) {
		a.fail(w, r, err, http.StatusServiceUnavailable, "error.unavailable")
		return
	}
	a.setCookie(w, a.mfaCookieName(), "", -1)
	http.Redirect(w, r, "/login", http.StatusSeeOther)
}

// loginCode checks the code of a pending session and, when right and not used before,
// replaces the pending session with a full one.
func (a *app) loginCode(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 16<<10)
	sess, op, err := a.pendingSession(r)
	if err != nil {
		a.restartLogin(w, r, err)
		return
	}
	next := r.PostFormValue("next")
	if subtle.ConstantTimeCompare([]byte(r.PostFormValue("csrf")), []byte(sess.CSRFToken)) != 1 {
		a.renderCode(w, r, http.StatusForbidden, sess, next, "error.csrf")
		return
	}
	ctx := r.Context()
	if _, ok := a.admit(w, r, store.FailedCode, op.Email, next); !ok {
		if err := a.st.DeleteSession(ctx, sess.TokenHash); err != nil {
			a.log.Warn("end a pending session", "error", err)
		}
		a.setCookie(w, a.mfaCookieName(), "", -1)
		return
	}
	secret, err := a.box.Open(op.SealedTOTP, store.TOTPOwner(op.ID))
	if err != nil {
		a.fail(w, r, err, http.StatusInternalServerError, "error.internal")
		return
	}
	step, right := auth.MatchTOTP(string(secret), r.PostFormValue("code"), a.st.Now())
	if right {
		switch err := a.st.UseTOTPStep(ctx, op.ID, step); {
		case errors.Is(err, store.ErrTOTPReplayed):
			right = false
		case err != nil:
			a.fail(w, r, err, http.StatusServiceUnavailable, "error.unavailable")
			return
		}
	}
	if !right {
		a.signins.WithLabelValues("totp", "failed").Inc()
		a.recordAttempt(r, a.anonymous(r, op.Email), "signin.totp_failed", op.ID.String(), nil)
		a.renderCode(w, r, http.StatusUnauthorized, sess, next, "login.code_failed")
		return
	}
	if err := a.st.DeleteSession(ctx, sess.TokenHash); err != nil {
		a.fail(w, r, err, http.StatusServiceUnavailable, "error.unavailable")
		return
	}
	a.setCookie(w, a.mfaCookieName(), "", -1)
	a.forgetFailures(r, op.Email)
	a.startSession(w, r, op, "password+totp", next)
}

// mfaExempt are the pages an operator who must enrol a second factor may still reach.
var mfaExempt = map[string]bool{"/account/mfa": true, "/logout": true, "/logout/everywhere": true}

// mustEnrol says whether the request is held until the operator has enrolled a second
// factor (DOCEVAL_CONSOLE_REQUIRE_MFA and a password account without one).
func (a *app) mustEnrol(r *http.Request, op store.Operator) bool {
	return a.cfg.RequireMFA && op.NeedsTOTP() && !mfaExempt[r.URL.Path]
}

// mfaPage shows the second-factor state of the operator's account and, for a password
// account without one, the enrolment: a secret (kept pending until confirmed) as QR
// code, otpauth URI and text, and the form for a code that confirms it.
func (a *app) mfaPage(w http.ResponseWriter, r *http.Request, rs *reqState) error {
	return a.renderMFA(w, r, rs, http.StatusOK, "")
}

func (a *app) renderMFA(w http.ResponseWriter, r *http.Request, rs *reqState, status int, msg string) error {
	op := rs.op
	data := map[string]any{"SSO": op.SSOBound(), "Enabled": op.TOTPEnabledAt, "Required": a.cfg.RequireMFA, "Error": msg}
	if op.SSOBound() || op.TOTPEnabledAt != nil || op.PasswordHash == nil {
		a.render(w, r, status, "mfa", data)
		return nil
	}
	pending, err := a.pendingSecret(r.Context(), &op)
	if err != nil {
		return err
	}
	e, err := auth.TOTPEnrolmentOf(a.cfg.MFAIssuer, op.Email, pending)
	if err != nil {
		return err
	}
	// data: and otpauth: URLs of our own making, which html/template would otherwise refuse.
	data["Enrolment"], data["QR"], data["URI"] = e, template.URL(e.QR), template.URL(e.URI)
	a.render(w, r, status, "mfa", data)
	return nil
}

// pendingSecret opens the operator's pending secret, making one first if there is none.
func (a *app) pendingSecret(ctx context.Context, op *store.Operator) (string, error) {
	if op.SealedTOTPPending == nil {
		secret, err := auth.NewTOTPSecret()
		if err != nil {
			return "", err
		}
		sealed := a.box.Seal([]byte(secret), store.TOTPOwner(op.ID))
		if err := a.st.SetTOTPPending(ctx, op.ID, sealed); err != nil {
			return "", err
		}
		op.SealedTOTPPending = sealed
	}
	secret, err := a.box.Open(op.SealedTOTPPending, store.TOTPOwner(op.ID))
	return string(secret), err
}

// mfaConfirm enables the pending secret when the code is one of its codes.
func (a *app) mfaConfirm(w http.ResponseWriter, r *http.Request, rs *reqState) error {
	op := rs.op
	if op.SSOBound() || op.TOTPEnabledAt != nil || op.PasswordHash == nil || op.SealedTOTPPending == nil {
		http.Redirect(w, r, "/account/mfa", http.StatusSeeOther)
		return nil
	}
	secret, err := a.box.Open(op.SealedTOTPPending, store.TOTPOwner(op.ID))
	if err != nil {
		return err
	}
	step, ok := auth.MatchTOTP(string(secret), strings.TrimSpace(r.PostFormValue("code")), a.st.Now())
	if !ok {
		return a.renderMFA(w, r, rs, http.StatusUnprocessableEntity, "mfa.code_wrong")
	}
	switch err := a.st.As(a.actorOf(r, op)).EnableTOTP(r.Context(), op.ID, op.SealedTOTPPending, step); {
	case errors.Is(err, store.ErrConflict):
		http.Redirect(w, r, "/account/mfa", http.StatusSeeOther) // another enrolment got there first
		return nil
	case err != nil:
		return err
	}
	http.Redirect(w, r, "/account/mfa?enabled=1", http.StatusSeeOther)
	return nil
}
