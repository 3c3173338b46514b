package console_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/doceval/doceval/pkg/auth"
	"github.com/doceval/doceval/pkg/console"
	"github.com/doceval/doceval/pkg/store"
)

var secretShown = regexp.MustCompile(`id="mfa-secret">([A-Z2-7]+)<`)

// enrol sets up TOTP for the signed-in browser's account through the enrolment page and
// returns the secret it showed.
func (br *browser) enrol() string {
	br.t.Helper()
	p := br.get("/account/mfa")
	m := secretShown.FindStringSubmatch(p.body)
	if p.status != http.StatusOK || m == nil {
		br.t.Fatalf("enrolment page: %d %.400s", p.status, p.body)
	}
	code := totpCode(br.t, m[1], time.Now())
	if p := br.post("/account/mfa", url.Values{"code": {code}}, br.csrf("/account/mfa")); p.status != http.StatusSeeOther {
		br.t.Fatalf("confirm enrolment: %d %.300s", p.status, p.body)
	}
	return m[1]
}

func totpCode(t testing.TB, secret string, at time.Time) string {
	t.Helper()
	code, err := auth.TOTPCode(secret, at)
	if err != nil {
		t.Fatal(err)
	}
	return code
}

// password posts the sign-in form and returns the answer.
func (br *browser) password(email, password string) page {
	br.t.Helper()
	return br.post("/login", url.Values{"email": {email}, "password": {password}}, br.csrf("/login"))
}

// code posts the code form of a pending sign-in.
func (br *browser) code(code string) page {
	br.t.Helper()
	return br.post("/login/code", url.Values{"code": {code}}, br.csrf("/login/code"))
}

func auditCounts(t testing.TB, st *store.Store, actor string) map[string]int {
	t.Helper()
	entries, err := st.AuditLog(context.Background(), store.AuditFilter{Limit: 200})
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	for _, e := range entries {
		if e.Actor == actor {
			counts[e.Action]++
			if e.Action == "signin" {
				counts["signin "+strings.ReplaceAll(strings.Trim(string(e.Details), "{}"), " ", "")]++
			}
		}
	}
	return counts
}

// An operator enrols a TOTP second factor (QR code, otpauth URI and secret shown,
// confirmed with a code); from then on a right password leads to the code form, not
// into the console, a wrong code is refused, a right one signs in, and the same code
// does not sign in twice.
func TestTOTPEnrolmentAndSignIn(t *testing.T) {
	t.Parallel()
	b := setup(t)
	pw := b.operator("mfa@example.com", store.RoleAdmin, nil)
	br := b.browser()
	br.signIn("mfa@example.com", pw)
	p := br.get("/account/mfa")
	for _, want := range []string{`src="data:image/png;base64,`, `href="otpauth://totp/doceval%20test:mfa@example.com?`, `id="mfa-secret"`} {
		if !strings.Contains(p.body, want) {
			t.Errorf("enrolment page lacks %s: %.600s", want, p.body)
		}
	}
	// Reloading shows the same pending secret, which does nothing until confirmed.
	secret := secretShown.FindStringSubmatch(p.body)[1]
	if again := secretShown.FindStringSubmatch(br.get("/account/mfa").body); again == nil || again[1] != secret {
		t.Fatalf("the pending secret changed on reload")
	}
	if p := br.post("/account/mfa", url.Values{"code": {"000000"}}, br.csrf("/account/mfa")); p.status != http.StatusUnprocessableEntity {
		t.Fatalf("wrong confirmation code: %d", p.status)
	}
	if op, _ := b.st.OperatorByEmail(context.Background(), "mfa@example.com"); op.TOTPEnabledAt != nil {
		t.Fatal("a wrong code enabled the second factor")
	}
	if got := br.enrol(); got != secret {
		t.Fatalf("enrolled %s, shown %s", got, secret)
	}
	if p := br.get("/account/mfa"); !strings.Contains(p.body, `id="mfa-enabled"`) || strings.Contains(p.body, secret) {
		t.Fatalf("enabled page: %.400s", p.body)
	}
	// The secret is stored sealed, not in clear.
	var sealed []byte
	if err := b.st.Pool().QueryRow(context.Background(), `SELECT totp_secret FROM operators WHERE email = 'mfa@example.com'`).Scan(&sealed); err != nil {
		t.Fatal(err)
	}
	if len(sealed) == 0 || strings.Contains(string(sealed), secret) {
		t.Fatalf("stored TOTP secret %q", sealed)
	}

	// Password, then code. The code is of the next period (allowed skew): the
	// enrolment used this one.
	other := b.browser()
	if p := other.password("mfa@example.com", pw); p.status != http.StatusSeeOther || p.location != "/login/code" {
		t.Fatalf("right password: %d %s", p.status, p.location)
	}
	if p := other.get("/queue"); p.status != http.StatusSeeOther || !strings.HasPrefix(p.location, "/login") {
		t.Fatalf("the console before the code: %d %s", p.status, p.location)
	}
	if p := other.code("123456"); p.status != http.StatusUnauthorized || !strings.Contains(p.body, "The code is wrong") {
		t.Fatalf("wrong code: %d %.300s", p.status, p.body)
	}
	code := totpCode(t, secret, time.Now().Add(auth.TOTPPeriod))
	if p := other.code(code); p.status != http.StatusSeeOther || p.location != "/" {
		t.Fatalf("right code: %d %s %.300s", p.status, p.location, p.body)
	}
	if p := other.get("/queue"); p.status != http.StatusOK {
		t.Fatalf("signed in with the code: %d", p.status)
	}
	// The same code again, from another browser with the password: refused.
	third := b.browser()
	if p := third.password("mfa@example.com", pw); p.status != http.StatusSeeOther {
		t.Fatalf("password: %d", p.status)
	}
	if p := third.code(code); p.status != http.StatusUnauthorized {
		t.Fatalf("replayed code: %d", p.status)
	}
	// Without a pending sign-in the code form sends back to the password.
	if p := b.browser().get("/login/code"); p.status != http.StatusSeeOther || p.location != "/login" {
		t.Fatalf("code form without a password: %d %s", p.status, p.location)
	}

	counts := auditCounts(t, b.st, "mfa@example.com")
	if counts["operator.totp_enable"] != 1 || counts["signin.totp_failed"] != 2 || counts[`signin "method":"password+totp"`] != 1 {
		t.Fatalf("audit: %v", counts)
	}
}

// With DOCEVAL_CONSOLE_REQUIRE_MFA a password account without a second factor reaches
// nothing but the enrolment page (and sign-out) until it has enrolled.
func TestRequireMFA(t *testing.T) {
	t.Parallel()
	b := setup(t, func(d *console.Deps) { d.Settings.RequireMFA = true })
	pw := b.operator("new@example.com", store.RoleAdmin, nil)
	br := b.browser()
	br.signIn("new@example.com", pw)
	for _, path := range []string{"/queue", "/clients", "/audit", "/"} {
		if p := br.get(path); p.status != http.StatusSeeOther || p.location != "/account/mfa" {
			t.Fatalf("%s before enrolling: %d %s", path, p.status, p.location)
		}
	}
	csrf := br.csrf("/account/mfa")
	if p := br.post("/clients", url.Values{"name": {"x"}}, csrf); p.status != http.StatusForbidden {
		t.Fatalf("a form before enrolling: %d", p.status)
	}
	if p := br.get("/account/mfa"); !strings.Contains(p.body, `id="mfa-required"`) {
		t.Fatalf("the enrolment page does not say it is required: %.300s", p.body)
	}
	br.enrol()
	if p := br.get("/queue"); p.status != http.StatusOK {
		t.Fatalf("/queue after enrolling: %d", p.status)
	}
}

// A password account bound to single sign-on is refused on the password form with the
// answer of a wrong password, even with its right password; the refusal is audited.
func TestSSOBoundAccountRefusedOnPasswordForm(t *testing.T) {
	t.Parallel()
	b := setup(t)
	pw := b.operator("bound@example.com", store.RoleAdmin, nil)
	op, err := b.st.OperatorByEmail(context.Background(), "bound@example.com")
	if err != nil {
		t.Fatal(err)
	}
	if err := b.st.BindOIDCSubject(context.Background(), op.ID, "https://idp.example.com 1234"); err != nil {
		t.Fatal(err)
	}
	br := b.browser()
	p := br.password("bound@example.com", pw)
	if p.status != http.StatusUnauthorized || !strings.Contains(p.body, "E-mail or password is wrong") {
		t.Fatalf("right password of an SSO-bound account: %d %.300s", p.status, p.body)
	}
	if p := br.get("/queue"); p.status != http.StatusSeeOther {
		t.Fatalf("signed in after all: %d", p.status)
	}
	if counts := auditCounts(t, b.st, "bound@example.com"); counts["signin.sso_only"] != 1 || counts["signin"] != 0 {
		t.Fatalf("audit: %v", counts)
	}
}

// An account that signs in through single sign-on is not held on the enrolment page
// by DOCEVAL_CONSOLE_REQUIRE_MFA (the provider's factors apply), and once bound to its
// identity its password no longer opens the console.
func TestRequireMFAExemptsSSO(t *testing.T) {
	t.Parallel()
	p := newTestProvider(t)
	b := setup(t, withSSO(p), func(d *console.Deps) { d.Settings.RequireMFA = true })
	pw := b.operator("advisor@example.com", store.RoleAdvisor, nil)
	p.signsIn("user-1", "advisor@example.com", true)
	br := b.browser()
	br.ssoSignIn("", "/") // reaches /queue
	if pg := br.get("/account/mfa"); !strings.Contains(pg.body, `id="mfa-sso"`) {
		t.Fatalf("the enrolment page of an SSO account: %.300s", pg.body)
	}
	if pg := b.browser().password("advisor@example.com", pw); pg.status != http.StatusUnauthorized {
		t.Fatalf("the password of the now SSO-bound account: %d", pg.status)
	}
}

// A right password on an account with a second factor is not a failure, even when
// its code form is left unanswered: the owner who abandons it more often than
// LoginMaxFailures is still let in from the same source.
func TestAbandonedCodeFormsDoNotLockTheOwnerOut(t *testing.T) {
	t.Parallel()
	b := setup(t)
	pw := b.operator("leaves@example.com", store.RoleAdmin, nil)
	first := b.browser()
	first.signIn("leaves@example.com", pw)
	secret := first.enrol()
	for i := 1; i <= 7; i++ {
		if p := b.browser().password("leaves@example.com", pw); p.status != http.StatusSeeOther || p.location != "/login/code" {
			t.Fatalf("right password %d, its code form then left: %d %s", i, p.status, p.location)
		}
	}
	br := b.browser()
	if p := br.password("leaves@example.com", pw); p.status != http.StatusSeeOther || p.location != "/login/code" {
		t.Fatalf("right password after abandoned code forms: %d %s", p.status, p.location)
	}
	if p := br.code(totpCode(t, secret, time.Now().Add(auth.TOTPPeriod))); p.status != http.StatusSeeOther || p.location != "/" {
		t.Fatalf("right code: %d %s", p.status, p.location)
	}
}

// Wrong codes are also counted per account across all sources: someone holding the
// password cannot guess codes from many addresses at LoginMaxFailures each. Past
// 2×LoginMaxFailures wrong codes within the window a code, even the right one, is
// refused with 429, the pending sign-in ends, and the lock is audited once.
func TestCodeGuessesLimitedPerAccountAcrossSources(t *testing.T) {
	t.Parallel()
	b := setup(t, func(d *console.Deps) { d.Settings.TrustedProxies = "127.0.0.1,::1" })
	pw := b.operator("guessed@example.com", store.RoleAdmin, nil)
	owner := b.browser()
	owner.forwardedFor = "198.51.100.1"
	owner.signIn("guessed@example.com", pw)
	secret := owner.enrol()
	source := func(i int) *browser {
		br := b.browser()
		br.forwardedFor = "203.0.113." + strconv.Itoa(i)
		if p := br.password("guessed@example.com", pw); p.status != http.StatusSeeOther || p.location != "/login/code" {
			t.Fatalf("right password from source %d: %d %s", i, p.status, p.location)
		}
		return br
	}
	for i := 1; i <= 10; i++ { // one wrong code from each of ten sources
		if p := source(i).code("123456"); p.status != http.StatusUnauthorized {
			t.Fatalf("wrong code from source %d: %d", i, p.status)
		}
	}
	br := source(11)
	p := br.code(totpCode(t, secret, time.Now().Add(auth.TOTPPeriod)))
	if p.status != http.StatusTooManyRequests || !strings.Contains(p.body, "Too many failed sign-ins") {
		t.Fatalf("a code after ten wrong ones from other sources: %d %.300s", p.status, p.body)
	}
	if p := br.get("/login/code"); p.status != http.StatusSeeOther || p.location != "/login" {
		t.Fatalf("the pending sign-in after the lock: %d %s", p.status, p.location)
	}
	if p := source(12).code("123456"); p.status != http.StatusTooManyRequests {
		t.Fatalf("another source after the lock: %d", p.status)
	}
	if counts := auditCounts(t, b.st, "guessed@example.com"); counts["signin.throttled"] != 1 || counts["signin.totp_failed"] != 10 {
		t.Fatalf("audit: %v", counts)
	}
}
