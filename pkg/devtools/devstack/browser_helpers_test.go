package devstack_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/doceval/doceval/pkg/testkit/samplepdf"
)

// chromiumPath finds a Chromium for browser tests: DOCEVAL_CHROMIUM, else the first of
// the usual names on PATH. Without one the test fails in CI (make tools installs
// Debian's chromium there) and is skipped elsewhere.
func chromiumPath(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("DOCEVAL_CHROMIUM"); p != "" {
		found, err := exec.LookPath(p)
		if err != nil {
			t.Fatalf("DOCEVAL_CHROMIUM=%s: %v", p, err)
		}
		return found
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	const hint = "no Chromium (chromium, chromium-browser or google-chrome on PATH, or DOCEVAL_CHROMIUM): install it with `apt-get install chromium` (make tools does)"
	if os.Getenv("CI") == "true" {
		t.Fatal(hint)
	}
	t.Skip(hint)
	return ""
}

// browser is one headless Chromium tab. Every step has its own bounded timeout, and
// the tab outlives a step that timed out, so a failing test can still photograph it.
type browser struct {
	t     *testing.T
	ctx   context.Context
	shots string // where screenshots go
}

// newBrowser starts Chromium with a 1280 px wide window. When the test fails, the
// page the tab shows last is written to failure.png.
func newBrowser(t *testing.T, path, shots string) *browser {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-component-update", true), // no network here: nothing to fetch
		chromedp.WindowSize(1280, 900),
		// The defaults' list, and no back-forward cache: a page restored from it fires
		// no load event, and chromedp loses track of its document, so going back hangs.
		chromedp.Flag("disable-features", "Translate,BlinkGenPropertyTrees,BackForwardCache"),
	)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(allocCtx)
	t.Cleanup(func() {
		cancelTab()
		cancelAlloc()
	})
	b := &browser{t: t, ctx: ctx, shots: shots}
	// The first action starts the browser and binds its life to the context it runs
	// with: the tab's, until the cleanup, never a step's timeout.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 900)); err != nil {
		t.Fatalf("start %s: %v", path, err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			b.screenshot("failure")
		}
	})
	return b
}

// do runs actions within timeout and fails the test with what was being done.
func (b *browser) do(what string, timeout time.Duration, actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, timeout)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		b.t.Fatalf("browser: %s: %v", what, err)
	}
}

// eval evaluates a JavaScript expression in the page.
func eval[T any](b *browser, expression string) T {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 10*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expression))
	if err != nil {
		b.t.Fatalf("browser: evaluate %s: %v", expression, err)
	}
	return v
}

// waitFor evaluates a JavaScript predicate every 100 ms until it is true or timeout
// passes, and reports whether it became true. It outlasts navigations: an evaluation
// that a page change interrupts counts as false.
func (b *browser) waitFor(predicate string, timeout time.Duration) bool {
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		ctx, cancel := context.WithTimeout(b.ctx, 5*time.Second)
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](predicate))
		cancel()
		if err == nil && ok {
			return true
		}
	}
	return false
}

// screenshot writes the whole page as name.png; a failure to do so is only logged, so
// a failing test still reports its own cause.
func (b *browser) screenshot(name string) {
	ctx, cancel := context.WithTimeout(b.ctx, 15*time.Second)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err == nil {
		err = os.WriteFile(filepath.Join(b.shots, name+".png"), png, 0o644)
	}
	if err != nil {
		b.t.Logf("screenshot %s: %v", name, err)
		return
	}
	b.t.Logf("screenshot: %s", filepath.Join(b.shots, name+".png"))
}

// curlAPI calls the API with curl, as a partner following the README would.
type curlAPI struct {
	t        *testing.T
	base     string
	key      string
	bodyFile string // a scratch file for request bodies
}

// call runs curl with args after the common ones and returns the status and body.
func (c curlAPI) call(args ...string) (int, []byte) {
	c.t.Helper()
	full := append([]string{"-sS", "--noproxy", "*", "--max-time", "30",
		"-H", "Authorization: Bearer " + c.key, "-w", "\n%{http_code}"}, args...)
	cmd := exec.Command("curl", full...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		c.t.Fatalf("curl %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	i := bytes.LastIndexByte(out, '\n')
	status, err := strconv.Atoi(string(out[i+1:]))
	if err != nil {
		c.t.Fatalf("curl %s: no status in %q", strings.Join(args, " "), out)
	}
	return status, out[:i]
}

// json sends method path with body as JSON (nil: none), requires status want and
// decodes the answer into out (nil: ignored).
func (c curlAPI) json(method, path string, body any, want int, out any) {
	c.t.Helper()
	args := []string{"-X", method, c.base + path}
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			c.t.Fatal(err)
		}
		if err := os.WriteFile(c.bodyFile, b, 0o600); err != nil {
			c.t.Fatal(err)
		}
		args = append(args, "-H", "Content-Type: application/json", "--data-binary", "@"+c.bodyFile)
	}
	c.expect(method+" "+path, want, out, args...)
}

// upload puts a PDF into a document slot.
func (c curlAPI) upload(submission, slot, externalID, file string, out any) {
	c.t.Helper()
	path := fmt.Sprintf("/v1/submissions/%s/document-slots/%s/files", submission, slot)
	c.expect("upload "+filepath.Base(file), http.StatusAccepted, out, c.base+path,
		"-F", "external_file_id="+externalID, "-F", "file=@"+file+";type=application/pdf")
}

func (c curlAPI) expect(what string, want int, out any, args ...string) {
	c.t.Helper()
	status, body := c.call(args...)
	if status != want {
		c.t.Fatalf("curl %s: %d, want %d: %s", what, status, want, body)
	}
	if out != nil {
		if err := json.Unmarshal(body, out); err != nil {
			c.t.Fatalf("curl %s: %v: %s", what, err, body)
		}
	}
}

// delivery is one webhook request as the receiver got it.
type delivery struct {
	signature string
	body      []byte
	at        time.Time
}

// webhookReceiver records every delivery, raw, for the test to verify.
type webhookReceiver struct {
	mu         sync.Mutex
	deliveries []delivery
}

func (r *webhookReceiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, err := io.ReadAll(req.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	r.mu.Lock()
	r.deliveries = append(r.deliveries, delivery{signature: req.Header.Get("X-Service-Signature"), body: body, at: time.Now()})
	r.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

func (r *webhookReceiver) all() []delivery {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]delivery(nil), r.deliveries...)
}

// applicant is whom the sample documents are about.
const (
	applicantName = "Erika Mustermann"
	applicantIBAN = "DE89 3704 0044 0532 0130 00"
)

var germanMonths = [...]string{"Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August", "September", "Oktober", "November", "Dezember"}

// payslipPDF is a text payslip for month: employer, employee, pay period, gross and
// net pay, the payout to the applicant's account.
func payslipPDF(month time.Time) []byte {
	period := germanMonths[month.Month()-1] + " " + strconv.Itoa(month.Year())
	return samplepdf.Text([][]string{{
		"Muster Logistik GmbH, Hansaring 12, 50670 Köln",
		"Gehaltsabrechnung " + period,
		"Mitarbeiter: " + applicantName,
		"Personalnummer: 004711",
		"Eintrittsdatum: 01.04.2019",
		"Steuerklasse: 1",
		"Bruttobezug 4.800,00 EUR",
		"Lohnsteuer 748,16 EUR",
		"Sozialversicherung 801,84 EUR",
		"Nettobezug 3.250,00 EUR",
		"Auszahlung auf IBAN " + applicantIBAN,
	}})
}

// bankStatementPDF is the applicant's account statement for month, with the salary of
// payslipPDF credited and balances that reconcile.
func bankStatementPDF(month time.Time) []byte {
	first := time.Date(month.Year(), month.Month(), 1, 0, 0, 0, 0, time.UTC)
	last := first.AddDate(0, 1, -1)
	day := func(d int) string { return first.AddDate(0, 0, d-1).Format("02.01.2006") }
	return samplepdf.Text([][]string{{
		"Sparkasse KölnBonn",
		"Kontoauszug " + germanMonths[month.Month()-1] + " " + strconv.Itoa(month.Year()),
		"Kontoinhaber: " + applicantName,
		"IBAN " + applicantIBAN,
		"Kontostand alt am " + first.Format("02.01.2006") + " 1.204,17 EUR",
		day(2) + " Dauerauftrag Miete Hausverwaltung Weiß GmbH -950,00",
		day(9) + " Kartenzahlung REWE Markt GmbH -84,37",
		day(15) + " Lastschrift Stadtwerke Köln Abschlag -96,00",
		day(28) + " Gehalt Muster Logistik GmbH +3.250,00",
		"Kontostand neu am " + last.Format("02.01.2006") + " 3.323,80 EUR",
	}})
}
