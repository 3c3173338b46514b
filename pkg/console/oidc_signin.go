package console

import (
	"context"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/google/uuid"
	"golang.org/x/oauth2"

	"github.com/doceval/doceval/pkg/store"
)

// ssoFlow is what the browser keeps between ssoStart and ssoCallback, in a cookie that
// lives ssoFlowMaxAge: the state (ties the callback to this browser: no sign-in CSRF),
// the nonce (ties the ID token to this flow: no replayed token), the PKCE verifier (ties
// the code to this flow: a stolen code is useless) and where to go afterwards. It needs
// no signature: a browser that edits it only spoils its own sign-in.
type ssoFlow struct {
	State    string `json:"state"`
	Nonce    string `json:"nonce"`
	Verifier string `json:"verifier"`
	Next     string `json:"next"`
}

const ssoFlowMaxAge = 10 * time.Minute

func (a *app) ssoCookieName() string {
	if a.secure {
		return "__Host-doceval_sso"
	}
	return "doceval_sso"
}

// ssoStart sends the browser to the provider's sign-in page.
func (a *app) ssoStart(w http.ResponseWriter, r *http.Request) {
	if a.oidc == nil {
		a.notFound(w, r)
		return
	}
	next := localPath(r.URL.Query().Get("next"), "/")
	if _, _, err := a.session(r); err == nil {
		http.Redirect(w, r, next, http.StatusSeeOther)
		return
	}
	f := ssoFlow{State: randomToken(), Nonce: randomToken(), Verifier: oauth2.GenerateVerifier(), Next: next}
	b, _ := json.Marshal(f)
	a.setCookie(w, a.ssoCookieName(), base64.RawURLEncoding.EncodeToString(b), int(ssoFlowMaxAge/time.Second))
	http.Redirect(w, r, a.oidc.authCodeURL(a.oidc.redirectURL(r, a.secure), f), http.StatusSeeOther)
}

// takeSSOFlow reads this browser's flow and ends it: a callback is accepted once.
func (a *app) takeSSOFlow(w http.ResponseWriter, r *http.Request) (ssoFlow, bool) {
	c, err := r.Cookie(a.ssoCookieName())
	if err != nil {
		return ssoFlow{}, false
	}
	a.setCookie(w, a.ssoCookieName(), "", -1)
	var f ssoFlow
	b, err := base64.RawURLEncoding.DecodeString(c.Value)
	if err != nil || json.Unmarshal(b, &f) != nil || f.State == "" {
		return ssoFlow{}, false
	}
	f.Next = localPath(f.Next, "/")
	return f, true
}

// ssoCallback is where the provider sends the browser back: the state must be this
// browser's, the code is redeemed, the ID token verified, and the identity signs in to
// the operator bound to it (or, at its first sign-in, to the operator with its verified
// e-mail).
func (a *app) ssoCallback(w http.ResponseWriter, r *http.Request) {
	if a.oidc == nil {
		a.notFound(w, r)
		return
	}
	q := r.URL.Query()
	f, ok := a.takeSSOFlow(w, r)
	if e := q.Get("error"); e != "" {
		a.log.Info("single sign-on: the provider refused", "error", cleanText(e, 100), "description", cleanText(q.Get("error_description"), 300))
		a.renderLogin(w, r, http.StatusUnauthorized, "", f.Next, "login.sso_failed")
		return
	}
	if !ok || subtle.ConstantTimeCompare([]byte(q.Get("state")), []byte(f.State)) != 1 {
		a.log.Info("single sign-on: the callback's state is not this browser's", "flow_cookie", ok)
		a.recordAttempt(r, a.anonymous(r, ""), "signin.sso_failed", "", map[string]any{"error": "state mismatch"})
		a.renderLogin(w, r, http.StatusUnauthorized, "", f.Next, "login.sso_failed")
		return
	}
	id, err := a.oidc.identify(r.Context(), a.oidc.redirectURL(r, a.secure), q.Get("code"), f)
	if err != nil {
		status := http.StatusUnauthorized
		if errors.Is(err, errProvider) {
			status = http.StatusBadGateway
		}
		a.log.Warn("single sign-on failed", "error", err)
		a.recordAttempt(r, a.anonymous(r, ""), "signin.sso_failed", "", map[string]any{"error": cleanText(err.Error(), 300)})
		a.renderLogin(w, r, status, "", f.Next, "login.sso_failed")
		return
	}
	op, refusal, err := a.ssoOperator(r.Context(), r, id)
	if err != nil {
		a.handleError(w, r, err)
		return
	}
	if refusal != "" {
		a.refuseSSO(w, r, id, op, refusal, f.Next)
		return
	}
	a.startSession(w, r, op, "oidc", f.Next)
}

// Why an identity is refused (the audit entry's reason).
const (
	ssoUnknown      = "unknown"          // no operator has its e-mail
	ssoDisabled     = "disabled"         // the operator is disabled
	ssoUnverified   = "email_unverified" // no e-mail, or the provider does not vouch for it
	ssoBoundToOther = "bound_to_other"   // the operator signs in with another identity
)

// ssoOperator finds the operator an identity signs in as; refusal says why there is
// none. An identity seen before finds its operator by subject whatever its e-mail is
// now. A new one is bound to the operator with its e-mail, if the provider vouches for
// the e-mail and the operator has no identity yet: an account bound once cannot be
// taken over by another identity that claims the same e-mail.
func (a *app) ssoOperator(ctx context.Context, r *http.Request, id identity) (op store.Operator, refusal string, err error) {
	op, err = a.st.OperatorByOIDCSubject(ctx, id.key())
	if err == nil {
		if op.Disabled {
			return op, ssoDisabled, nil
		}
		return op, "", nil
	}
	if !errors.Is(err, store.ErrNotFound) {
		return op, "", err
	}
	if id.Email == "" || !id.EmailVerified {
		return store.Operator{}, ssoUnverified, nil
	}
	op, err = a.st.OperatorByEmail(ctx, id.Email)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return store.Operator{}, ssoUnknown, nil
	case err != nil:
		return op, "", err
	case op.Disabled:
		return op, ssoDisabled, nil
	case op.OIDCSubject != nil:
		return op, ssoBoundToOther, nil
	}
	if err := a.st.BindOIDCSubject(ctx, op.ID, id.key()); errors.Is(err, store.ErrConflict) {
		return op, ssoBoundToOther, nil // another identity was bound a moment ago
	} else if err != nil {
		return op, "", err
	}
	key := id.key()
	op.OIDCSubject = &key
	if err := a.st.RecordAudit(ctx, a.actorOf(r, op), "operator.sso_bound", "operator", op.ID.String(), map[string]any{"issuer": id.Issuer, "subject": id.Sub}); err != nil {
		a.log.Warn("audit single sign-on binding", "error", err)
	}
	return op, "", nil
}

// refuseSSO shows the sign-in page with why the identity cannot sign in, and records it.
func (a *app) refuseSSO(w http.ResponseWriter, r *http.Request, id identity, op store.Operator, refusal, next string) {
	name := id.Email
	if name == "" {
		name = id.Sub
	}
	target := ""
	if op.ID != uuid.Nil {
		target = op.ID.String()
	}
	details := map[string]any{"issuer": id.Issuer, "subject": id.Sub, "reason": refusal}
	a.recordAttempt(r, a.anonymous(r, name), "signin.sso_refused", target, details)
	msg := "login.sso_unknown"
	switch refusal {
	case ssoUnverified:
		msg = "login.sso_unverified"
	case ssoBoundToOther:
		msg = "login.sso_bound_to_other"
	}
	a.renderLogin(w, r, http.StatusForbidden, id.Email, next, msg)
}
