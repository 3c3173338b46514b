package console_test

import (
	"context"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/doceval/doceval/pkg/auth"
	"github.com/doceval/doceval/pkg/console"
	"github.com/doceval/doceval/pkg/store"
)

// chromeTab is one headless Chromium tab on the console.
type chromeTab struct {
	t   *testing.T
	ctx context.Context
}

// newChromeTab starts Chromium (DOCEVAL_CHROMIUM, else chromium, chromium-browser or
// google-chrome on PATH); without one the test fails in CI and is skipped elsewhere.
func newChromeTab(t *testing.T) *chromeTab {
	t.Helper()
	path := os.Getenv("DOCEVAL_CHROMIUM")
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if path != "" {
			break
		}
		path, _ = exec.LookPath(name)
	}
	if path == "" {
		const hint = "no Chromium (chromium on PATH or DOCEVAL_CHROMIUM): apt-get install chromium (make tools does)"
		if os.Getenv("CI") == "true" {
			t.Fatal(hint)
		}
		t.Skip(hint)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-component-update", true))
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(allocCtx)
	t.Cleanup(func() {
		cancelTab()
		cancelAlloc()
	})
	// The first action starts the browser and binds it to the tab's context.
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("start %s: %v", path, err)
	}
	return &chromeTab{t: t, ctx: ctx}
}

// do runs actions within 20 s and fails the test with what was being done.
func (c *chromeTab) do(what string, actions ...chromedp.Action[chromedp.Void]) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(c.ctx, 20*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		c.t.Fatalf("browser: %s: %v (at %s)", what, err, c.eval(`location.href`))
	}
}

func (c *chromeTab) eval(expression string) string {
	ctx, cancel := context.WithTimeout(c.ctx, 10*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[string](expression))
	if err != nil {
		return "(" + err.Error() + ")"
	}
	return v
}

// password fills in and sends the sign-in form.
func (c *chromeTab) password(base, email, password string) {
	c.t.Helper()
	c.do("sign in as "+email,
		chromedp.Navigate(base+"/login"),
		chromedp.WaitVisible(chromedp.ID("email")),
		chromedp.SendKeys(chromedp.ID("email"), email),
		chromedp.SendKeys(chromedp.ID("password"), password),
		chromedp.Click(chromedp.CSS(`form[action="/login"] button[type=submit]`)),
	)
}

// Staff sign-in in a real browser: an operator enrols TOTP (the QR code shows, the
// secret is read off the page, the code computed here) and signs in with password and
// code; an account bound to single sign-on is refused on the password form; a
// stranger's six wrong guesses from another source leave the owner's sign-in working.
func TestStaffSignInInBrowser(t *testing.T) {
	t.Parallel()
	tab := newChromeTab(t)
	b := setup(t, func(d *console.Deps) { d.Settings.TrustedProxies = "127.0.0.1,::1" })
	base := b.srv.URL
	pw := b.operator("advisor@example.com", store.RoleAdvisor, nil)

	// Enrolment.
	tab.password(base, "advisor@example.com", pw)
	tab.do("open the two-step sign-in page",
		chromedp.WaitVisible(chromedp.CSS(`header nav a[href="/queue"]`)),
		chromedp.Click(chromedp.CSS(`header a[href="/account/mfa"]`)),
		chromedp.WaitVisible(chromedp.ID("mfa-secret")),
	)
	if w := tab.eval(`(() => { const i = document.getElementById('mfa-qr'); return i.complete ? String(i.naturalWidth) : 'loading'; })()`); w == "0" || w == "loading" {
		t.Errorf("the QR code image does not show: %s", w)
	}
	if uri := tab.eval(`document.getElementById('mfa-uri').getAttribute('href')`); !strings.HasPrefix(uri, "otpauth://totp/") {
		t.Errorf("the otpauth link is %q", uri)
	}
	secret := strings.TrimSpace(tab.eval(`document.getElementById('mfa-secret').textContent`))
	code, err := auth.TOTPCode(secret, time.Now())
	if err != nil {
		t.Fatalf("secret %q from the page: %v", secret, err)
	}
	tab.do("confirm the enrolment",
		chromedp.SendKeys(chromedp.CSS("#mfa-confirm #code"), code),
		chromedp.Click(chromedp.CSS(`#mfa-confirm button[type=submit]`)),
		chromedp.WaitVisible(chromedp.ID("mfa-enabled")),
	)
	tab.do("sign out",
		chromedp.Click(chromedp.CSS(`form[action="/logout"] button[type=submit]`)),
		chromedp.WaitVisible(chromedp.ID("email")),
	)

	// Sign-in with password and code (of the next period: the enrolment used this one).
	tab.password(base, "advisor@example.com", pw)
	tab.do("reach the code form", chromedp.WaitVisible(chromedp.ID("code")))
	code, _ = auth.TOTPCode(secret, time.Now().Add(auth.TOTPPeriod))
	tab.do("enter the code",
		chromedp.SendKeys(chromedp.ID("code"), code),
		chromedp.Click(chromedp.CSS(`form[action="/login/code"] button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS(`header nav a[href="/queue"]`)),
	)
	tab.do("sign out again",
		chromedp.Click(chromedp.CSS(`form[action="/logout"] button[type=submit]`)),
		chromedp.WaitVisible(chromedp.ID("email")),
	)

	// An account bound to single sign-on: its right password is refused.
	ssoPW := b.operator("sso@example.com", store.RoleAdvisor, nil)
	op, err := b.st.OperatorByEmail(context.Background(), "sso@example.com")
	if err != nil {
		t.Fatal(err)
	}
	if err := b.st.BindOIDCSubject(context.Background(), op.ID, "https://idp.example.com sso-user"); err != nil {
		t.Fatal(err)
	}
	tab.password(base, "sso@example.com", ssoPW)
	tab.do("see the refusal", chromedp.WaitVisible(chromedp.ID("login-error")))
	if msg := tab.eval(`document.getElementById('login-error').textContent`); !strings.Contains(msg, "E-mail or password is wrong") {
		t.Errorf("SSO-bound account on the password form: %q", msg)
	}

	// A stranger (another source, through the trusted proxy) guesses six times …
	stranger := b.browser()
	stranger.forwardedFor = "203.0.113.66"
	for i := 1; i <= 6; i++ {
		p := stranger.post("/login", url.Values{"email": {"advisor@example.com"}, "password": {"guess " + string(rune('a'+i))}}, stranger.csrf("/login"))
		if want := map[bool]int{true: http.StatusTooManyRequests, false: http.StatusUnauthorized}[i == 6]; p.status != want {
			t.Fatalf("stranger's guess %d: %d", i, p.status)
		}
	}
	// … and the owner's right password, from the browser, still passes: the code form
	// comes, not the throttling message.
	tab.password(base, "advisor@example.com", pw)
	tab.do("reach the code form after the stranger's guesses", chromedp.WaitVisible(chromedp.ID("code")))
	if msg := tab.eval(`(document.getElementById('login-error') || {}).textContent || ''`); msg != "" {
		t.Errorf("the owner after the stranger's guesses: %q", msg)
	}
}

// An admin redelivers an abandoned webhook delivery by clicking Redeliver on the event
// page (a real form post with the session's CSRF token), and an advisor finds a
// submission by typing its display id into the review queue's search box.
func TestRedeliverAndSearchInBrowser(t *testing.T) {
	t.Parallel()
	tab := newChromeTab(t)
	b := setup(t)
	base := b.srv.URL
	c := b.client("Bank")
	hook := b.webhook(c.ID)
	ev := b.event(c.ID)
	hook.send(t)
	sub, _ := b.submission(c.ID, "LOAN-77", "a.pdf", `{}`)
	b.submission(c.ID, "LOAN-78", "b.pdf", `{}`)

	tab.password(base, "admin@example.com", b.operator("admin@example.com", store.RoleAdmin, nil))
	tab.do("open the event and click Redeliver",
		chromedp.WaitVisible(chromedp.CSS(`header nav a[href="/queue"]`)),
		chromedp.Navigate(base+"/clients/"+c.ID.String()+"/events/"+ev.String()),
		chromedp.WaitVisible(chromedp.ID("redeliver")),
		chromedp.Click(chromedp.ID("redeliver")),
		chromedp.WaitVisible(chromedp.CSS(`p.notice[role=status]`)),
	)
	if s := b.deliveryStatus(ev); s != "pending" {
		t.Errorf("after clicking Redeliver: %s, want pending", s)
	}
	if badge := tab.eval(`document.querySelector('.delivery .badge').textContent`); badge != "pending" {
		t.Errorf("the page after redelivering shows %q", badge)
	}

	tab.do("search the queue by display id",
		chromedp.Navigate(base+"/queue"),
		chromedp.WaitVisible(chromedp.ID("queue-search")),
		chromedp.SendKeys(chromedp.ID("queue-search"), strings.ToLower(sub.DisplayID)),
		chromedp.Click(chromedp.CSS(`form[role=search] button[type=submit]`)),
		chromedp.WaitVisible(chromedp.ID("search-results")),
		chromedp.WaitVisible(chromedp.CSS(`#queue a[href="/submissions/`+sub.ID.String()+`"]`)),
	)
	if n := tab.eval(`String(document.querySelectorAll('#queue tbody tr').length)`); n != "1" {
		t.Errorf("search by display id: %s rows, want 1", n)
	}
	tab.do("search the queue by external id",
		chromedp.Navigate(base+"/queue"),
		chromedp.WaitVisible(chromedp.ID("queue-search")),
		chromedp.SendKeys(chromedp.ID("queue-search"), "LOAN-78"),
		chromedp.Click(chromedp.CSS(`form[role=search] button[type=submit]`)),
		chromedp.WaitVisible(chromedp.ID("search-results")),
	)
	if ext := tab.eval(`Array.from(document.querySelectorAll('#queue .sub')).map(e => e.textContent).join(',')`); ext != "LOAN-78" {
		t.Errorf("search by external id: %q", ext)
	}
}
