package console

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"
)

// Single sign-on is the OpenID Connect authorization code flow with PKCE (S256), a
// state and a nonce (oidc_signin.go). go-oidc does discovery, the provider's key set
// (fetched and refreshed as keys rotate) and the ID token's signature, issuer, audience
// and expiry; x/oauth2 builds the authorization URL and redeems the code. Only the ID
// token is read, not the userinfo endpoint: to bind an identity to an account at its
// first sign-in the ID token must carry email and email_verified true. A provider that
// leaves email_verified out (some do unless told to) binds no account: missing counts
// as unverified, since binding by an unverified e-mail would let anyone who can name
// an address at the provider take over that account.

const (
	// discoveryWait bounds how long start-up waits for the provider's discovery
	// document: a provider started alongside the console (a Keycloak in the same
	// deployment) gets this long to come up; after that the console refuses to start,
	// since a wrong issuer is a configuration error better seen at once than at the
	// first sign-in.
	discoveryWait = time.Minute
	// providerTimeout bounds each request to the provider (discovery, keys, token).
	providerTimeout = 10 * time.Second
)

// OIDC is single sign-on through an OpenID Connect provider.
type OIDC struct {
	issuer    string
	verifier  *oidc.IDTokenVerifier
	oauth     oauth2.Config // RedirectURL is set per request (redirectURL)
	publicURL string
	client    *http.Client
}

// NewOIDC discovers the provider named by DOCEVAL_CONSOLE_OIDC_ISSUER; nil when none is
// set. A provider that does not answer is asked again, with growing pauses, for up to
// discoveryWait (or until ctx ends); an issuer whose discovery document names another
// issuer fails at once.
func NewOIDC(ctx context.Context, s Settings) (*OIDC, error) {
	if s.OIDCIssuer == "" {
		return nil, nil
	}
	if s.OIDCClientID == "" {
		return nil, errors.New("single sign-on: DOCEVAL_CONSOLE_OIDC_ISSUER is set but DOCEVAL_CONSOLE_OIDC_CLIENT_ID is not")
	}
	if s.PublicURL != "" {
		u, err := url.Parse(s.PublicURL)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return nil, fmt.Errorf("single sign-on: DOCEVAL_CONSOLE_PUBLIC_URL %q is not an http(s) URL", s.PublicURL)
		}
	}
	client := &http.Client{Timeout: providerTimeout}
	provider, err := discover(oidc.ClientContext(ctx, client), s.OIDCIssuer)
	if err != nil {
		return nil, err
	}
	scopes := strings.Fields(s.OIDCScopes)
	if !slices.Contains(scopes, oidc.ScopeOpenID) {
		scopes = append([]string{oidc.ScopeOpenID}, scopes...)
	}
	return &OIDC{
		issuer:   s.OIDCIssuer,
		verifier: provider.Verifier(&oidc.Config{ClientID: s.OIDCClientID}),
		oauth: oauth2.Config{
			ClientID: s.OIDCClientID, ClientSecret: s.OIDCClientSecret,
			Endpoint: provider.Endpoint(), Scopes: scopes,
		},
		publicURL: strings.TrimSuffix(s.PublicURL, "/"),
		client:    client,
	}, nil
}

func discover(ctx context.Context, issuer string) (*oidc.Provider, error) {
	ctx, cancel := context.WithTimeout(ctx, discoveryWait)
	defer cancel()
	pause := 250 * time.Millisecond
	for {
		provider, err := oidc.NewProvider(ctx, issuer)
		var mismatch *oidc.IssuerMismatchError
		if err == nil || errors.As(err, &mismatch) {
			if err != nil {
				err = fmt.Errorf("single sign-on: discover %s: %w", issuer, err)
			}
			return provider, err
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("single sign-on: the provider %s did not answer discovery: %w", issuer, err)
		case <-time.After(pause):
		}
		pause = min(2*pause, 5*time.Second)
	}
}

// redirectURL is where the provider sends the browser back to; it must be registered
// with the provider exactly. Production sets DOCEVAL_CONSOLE_PUBLIC_URL: without it the
// URL is derived from the request's Host, which is only as trustworthy as the proxy in
// front (the provider still refuses a redirect URL it does not know). The derived
// scheme is https whenever cookies are Secure, since the console is then served over
// https even when a proxy terminates TLS before it.
func (o *OIDC) redirectURL(r *http.Request, secure bool) string {
	base := o.publicURL
	if base == "" {
		scheme := "http"
		if secure || r.TLS != nil {
			scheme = "https"
		}
		base = scheme + "://" + r.Host
	}
	return base + "/login/sso/callback"
}

func (o *OIDC) config(redirectURL string) *oauth2.Config {
	c := o.oauth
	c.RedirectURL = redirectURL
	return &c
}

// authCodeURL is the provider's sign-in page for this flow.
func (o *OIDC) authCodeURL(redirectURL string, f ssoFlow) string {
	return o.config(redirectURL).AuthCodeURL(f.State, oidc.Nonce(f.Nonce), oauth2.S256ChallengeOption(f.Verifier))
}

// identity is who the provider says signed in.
type identity struct {
	Issuer        string
	Sub           string
	Email         string
	EmailVerified bool
}

// key is what binds the identity to an operator: sub is unique only at its issuer.
func (i identity) key() string { return i.Issuer + " " + i.Sub }

// errProvider is a failure to reach or redeem the code at the provider (as opposed to
// a token that fails verification).
var errProvider = errors.New("provider")

// identify redeems the code (with the flow's PKCE verifier) and verifies the ID token:
// signature, issuer, audience (and azp), expiry, and the flow's nonce.
func (o *OIDC) identify(ctx context.Context, redirectURL, code string, f ssoFlow) (identity, error) {
	ctx = context.WithValue(ctx, oauth2.HTTPClient, o.client)
	tok, err := o.config(redirectURL).Exchange(ctx, code, oauth2.VerifierOption(f.Verifier))
	if err != nil {
		return identity{}, fmt.Errorf("%w: redeem the code: %w", errProvider, err)
	}
	raw, _ := tok.Extra("id_token").(string)
	if raw == "" {
		return identity{}, errors.New("the token response has no id_token")
	}
	idt, err := o.verifier.Verify(ctx, raw)
	if err != nil {
		return identity{}, err
	}
	if subtle.ConstantTimeCompare([]byte(idt.Nonce), []byte(f.Nonce)) != 1 {
		return identity{}, errors.New("the ID token's nonce is not this flow's")
	}
	var claims struct {
		AuthorizedParty string          `json:"azp"`
		Email           string          `json:"email"`
		EmailVerified   json.RawMessage `json:"email_verified"`
	}
	if err := idt.Claims(&claims); err != nil {
		return identity{}, err
	}
	// OpenID Connect Core 3.1.3.7: with several audiences azp must name us.
	if len(idt.Audience) > 1 && claims.AuthorizedParty == "" {
		return identity{}, fmt.Errorf("the ID token has audiences %q and no azp", idt.Audience)
	}
	if claims.AuthorizedParty != "" && claims.AuthorizedParty != o.oauth.ClientID {
		return identity{}, fmt.Errorf("the ID token was issued to %q, not to this client", claims.AuthorizedParty)
	}
	if idt.Subject == "" {
		return identity{}, errors.New("the ID token has no subject")
	}
	// Missing email_verified counts as unverified. A few providers send the string
	// "true" rather than the boolean.
	verified := string(claims.EmailVerified) == "true" || string(claims.EmailVerified) == `"true"`
	return identity{Issuer: o.issuer, Sub: idt.Subject, Email: strings.TrimSpace(claims.Email), EmailVerified: verified}, nil
}
