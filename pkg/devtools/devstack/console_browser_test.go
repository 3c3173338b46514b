package devstack_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/doceval/doceval/pkg/extract"
	"github.com/doceval/doceval/pkg/sdk/webhook"
)

// The staff console in a real browser, end to end on make run's stack: the dev admin
// signs in and issues an API key; a partner uses that key with curl to submit a
// payslip and a bank statement and to evaluate them; the advisor opens the queue and
// the submission, follows a citation into the document viewer, and rejects a slot
// with a reason; the partner's webhook receiver gets that decision, signed.
//
// Screenshots of the queue, the submission and the viewer go to DOCEVAL_SCREENSHOTS
// (an absolute path; default: a directory under the test's temporary one), and the
// page last shown to failure.png when the test fails.
func TestConsoleInBrowser(t *testing.T) {
	chromium := chromiumPath(t)
	if _, err := exec.LookPath("curl"); err != nil {
		t.Fatal("the console test uses the API with curl: install curl (make tools does)")
	}
	if err := extract.CheckTools(); err != nil {
		t.Skip(err)
	}
	t.Parallel()
	shots := os.Getenv("DOCEVAL_SCREENSHOTS")
	if shots == "" {
		shots = filepath.Join(t.TempDir(), "screenshots")
	}
	if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshots go to %s", shots)
	_, env := startDevStack(t)
	console := env["DOCEVAL_CONSOLE_URL"]
	b := newBrowser(t, chromium, shots)

	// The dev admin signs in.
	b.do("sign in", 20*time.Second,
		chromedp.Navigate(console+"/login"),
		chromedp.WaitVisible(chromedp.ID("email")),
		chromedp.SendKeys(chromedp.ID("email"), env["DOCEVAL_CONSOLE_EMAIL"]),
		chromedp.SendKeys(chromedp.ID("password"), env["DOCEVAL_CONSOLE_PASSWORD"]),
		chromedp.Click(chromedp.CSS(`form[action="/login"] button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS(`header nav a[href="/clients"]`)),
	)

	// … creates an API client with every permission and reads its first key.
	b.do("create a client", 20*time.Second,
		chromedp.Navigate(console+"/clients"),
		chromedp.WaitVisible(chromedp.ID("new-client")),
		chromedp.SendKeys(chromedp.CSS("#new-client #name"), "Browser test partner"),
	)
	if n := eval[int](b, `(() => { const boxes = document.querySelectorAll('#new-client input[name=permission]');
		boxes.forEach(c => { c.checked = true; }); return boxes.length; })()`); n == 0 {
		t.Fatal("the new-client form offers no permissions")
	}
	b.do("issue the key", 20*time.Second,
		chromedp.Click(chromedp.CSS(`#new-client button[type=submit]`)),
		chromedp.WaitVisible(chromedp.ID("new-key")),
	)
	key := strings.TrimSpace(eval[string](b, `document.getElementById('new-key').textContent`))
	if !strings.HasPrefix(key, "dek_") {
		t.Fatalf("the issued key is %q", key)
	}

	// The partner uses the key with curl: a webhook endpoint that this test receives …
	api := curlAPI{t: t, base: env["DOCEVAL_BASE_URL"], key: key, bodyFile: filepath.Join(t.TempDir(), "body.json")}
	receiver := &webhookReceiver{}
	hooks := httptest.NewServer(receiver)
	t.Cleanup(hooks.Close)
	var endpoint struct {
		SigningSecret string `json:"signing_secret"`
	}
	api.json("POST", "/v1/webhook_endpoints", map[string]any{"url": hooks.URL + "/doceval"}, http.StatusCreated, &endpoint)
	if endpoint.SigningSecret == "" {
		t.Fatal("the new webhook endpoint has no signing secret")
	}

	// … and a submission with a payslip and a bank statement, evaluated.
	sub, evaluation := submitAndEvaluate(t, api)
	bankSlot := sub.slot(t, "bank_statement")

	// The advisor finds the submission in the queue …
	b.do("open the queue", 20*time.Second,
		chromedp.Navigate(console+"/queue"),
		chromedp.WaitVisible(chromedp.ID("queue")),
	)
	b.screenshot("queue")
	link := fmt.Sprintf(`#queue a[href="/submissions/%s"]`, sub.ID)
	if shown := eval[string](b, `(document.querySelector('`+link+`') || {}).textContent || ''`); shown != sub.DisplayID {
		t.Fatalf("the queue links the submission as %q, want %s", shown, sub.DisplayID)
	}
	// … opens it …
	b.do("open the submission from the queue", 20*time.Second,
		chromedp.Click(chromedp.CSS(link)),
		chromedp.WaitVisible(chromedp.CSS("article.slot#slot-"+bankSlot)),
	)
	b.screenshot("submission")
	// … and sees the evaluation: every check and every field, with citations.
	if got := eval[[]string](b, `[...document.querySelectorAll('ul.checks li.check strong')].map(e => e.textContent)`); len(got) != len(evaluation.Result.Checks) {
		t.Errorf("the page shows %d checks, the evaluation has %d: %q", len(got), len(evaluation.Result.Checks), got)
	} else {
		for _, c := range evaluation.Result.Checks {
			if !slices.Contains(got, c.Title) {
				t.Errorf("the page lacks the check %q: %q", c.Title, got)
			}
		}
	}
	rows := eval[[]string](b, `[...document.querySelectorAll('table.fields tbody tr')].map(r => r.cells[0].textContent.trim())`)
	if len(rows) != len(evaluation.Result.Fields) {
		t.Errorf("the page shows %d fields, the evaluation has %d: %q", len(rows), len(evaluation.Result.Fields), rows)
	}
	citations := 0
	for _, f := range evaluation.Result.Fields {
		if !slices.Contains(rows, f.Label) {
			t.Errorf("the page lacks the field %q: %q", f.Label, rows)
		}
		citations += len(f.Citations)
	}
	for _, c := range evaluation.Result.Checks {
		citations += len(c.Citations)
	}
	if links := eval[int](b, `document.querySelectorAll('a.citation').length`); links != citations {
		t.Errorf("the page links %d citations, the evaluation has %d", links, citations)
	}

	// A citation opens the document viewer on its page with the cited text highlighted.
	citation := `table.fields a.citation`
	if eval[int](b, `document.querySelectorAll('table.fields a.citation').length`) == 0 {
		t.Fatal("the submission page links no field citation")
	}
	href := eval[string](b, `document.querySelector('table.fields a.citation').getAttribute('href')`)
	if !strings.Contains(href, "evaluation="+evaluation.ID) || !strings.Contains(href, "cite=") {
		t.Errorf("the citation links %s", href)
	}
	b.do("follow a citation", 20*time.Second, chromedp.Click(chromedp.CSS(citation)))
	shown := b.waitFor(`(() => { const img = document.getElementById('page-image');
		return !!img && img.complete && img.naturalWidth > 0 && document.querySelectorAll('.highlight').length > 0; })()`, 20*time.Second)
	b.screenshot("viewer")
	if !shown {
		t.Fatalf("the viewer (%s, from %s) shows %s", eval[string](b, `location.href`), href, eval[string](b, `(() => {
			const img = document.getElementById('page-image');
			const image = img ? 'the page image ' + img.currentSrc + ' of natural width ' + img.naturalWidth : 'no #page-image';
			return image + ' and ' + document.querySelectorAll('.highlight').length + ' .highlight elements';
		})()`))
	}

	// Back on the submission the advisor rejects the bank statement with a reason.
	const reason = "Der Kontoauszug deckt nur einen Monat ab; bitte die letzten drei Monate nachreichen."
	form := "#slot-" + bankSlot + " form.decision"
	b.do("go back to the submission", 20*time.Second,
		chromedp.NavigateBack(),
		chromedp.WaitVisible(chromedp.CSS(form)),
	)
	b.do("fill in the rejection", 20*time.Second,
		chromedp.Click(chromedp.CSS(form+` input[name=decision][value=rejected]`)),
		chromedp.SendKeys(chromedp.CSS(form+` textarea[name=reason]`), reason),
	)
	b.do("save the rejection", 20*time.Second,
		chromedp.Click(chromedp.CSS(form+` button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS(`#slot-`+bankSlot+` [data-slot-status="rejected"]`)),
	)
	if review := eval[string](b, `document.querySelector('#slot-`+bankSlot+` p.review').textContent`); !strings.Contains(review, reason) {
		t.Errorf("the slot's review reads %q, want the reason %q", review, reason)
	}

	// The partner's receiver gets the decision as document_slot.updated, signed with
	// the endpoint's secret.
	var decided *delivery
	waitUntil(t, "a document_slot.updated delivery of the rejection", 30*time.Second, func() bool {
		for _, d := range receiver.all() {
			var e struct {
				Type string `json:"type"`
				Data struct {
					DocumentSlot struct {
						ID     string `json:"id"`
						Status string `json:"status"`
						Review *struct {
							Decision string `json:"decision"`
							Reason   string `json:"reason"`
						} `json:"review"`
					} `json:"document_slot"`
				} `json:"data"`
			}
			if json.Unmarshal(d.body, &e) != nil || e.Type != "document_slot.updated" || e.Data.DocumentSlot.ID != bankSlot || e.Data.DocumentSlot.Status != "rejected" {
				continue
			}
			if r := e.Data.DocumentSlot.Review; r == nil || r.Decision != "rejected" || r.Reason != reason {
				t.Fatalf("the rejection's delivery carries the review %+v:\n%s", r, d.body)
			}
			decided = &d
			return true
		}
		return false
	})
	if err := webhook.Verify(decided.signature, decided.body, []string{endpoint.SigningSecret}, 0, decided.at); err != nil {
		t.Errorf("the rejection's delivery: %v (%s: %s)", err, webhook.SignatureHeader, decided.signature)
	}
}

// apiSubmission is what the test reads of a submission.
type apiSubmission struct {
	ID            string `json:"id"`
	DisplayID     string `json:"display_id"`
	DocumentSlots []struct {
		ID  string `json:"id"`
		Key string `json:"key"`
	} `json:"document_slots"`
}

// slot returns the id of the submission's slot for a document type.
func (s apiSubmission) slot(t *testing.T, key string) string {
	t.Helper()
	for _, sl := range s.DocumentSlots {
		if sl.Key == key {
			return sl.ID
		}
	}
	t.Fatalf("submission %s has no %s slot: %+v", s.ID, key, s.DocumentSlots)
	return ""
}

// apiEvaluation is what the test reads of an evaluation.
type apiEvaluation struct {
	ID      string          `json:"id"`
	Status  string          `json:"status"`
	Failure json.RawMessage `json:"failure"`
	Result  *struct {
		Checks []struct {
			Title     string            `json:"title"`
			Citations []json.RawMessage `json:"citations"`
		} `json:"checks"`
		Fields []struct {
			Key       string            `json:"key"`
			Label     string            `json:"label"`
			Citations []json.RawMessage `json:"citations"`
		} `json:"fields"`
	} `json:"result"`
}

// submitAndEvaluate does with curl what a partner does: a submission from a template
// that asks for a payslip and a bank statement, last month's of both uploaded into
// their slots, and an evaluation once they are ready, which it waits for. The engine
// must find the net income and the IBAN, with citations.
func submitAndEvaluate(t *testing.T, api curlAPI) (apiSubmission, apiEvaluation) {
	t.Helper()
	templateID := templateWithSlots(api, "salary_statement", "bank_statement")
	var sub apiSubmission
	api.json("POST", "/v1/submissions", map[string]any{
		"external_submission_id": "crm-browser-4711", "template_id": templateID,
		"metadata": map[string]any{"broker": "Example Finanz"},
	}, http.StatusCreated, &sub)
	api.json("GET", "/v1/submissions/"+sub.ID, nil, http.StatusOK, &sub)
	now := time.Now()
	lastMonth := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC).AddDate(0, -1, 0)
	docs := t.TempDir()
	for _, f := range []struct {
		slot, name string
		pdf        []byte
	}{
		{sub.slot(t, "salary_statement"), "gehaltsabrechnung.pdf", payslipPDF(lastMonth)},
		{sub.slot(t, "bank_statement"), "kontoauszug.pdf", bankStatementPDF(lastMonth)},
	} {
		path := filepath.Join(docs, f.name)
		if err := os.WriteFile(path, f.pdf, 0o644); err != nil {
			t.Fatal(err)
		}
		api.upload(sub.ID, f.slot, strings.TrimSuffix(f.name, ".pdf"), path, nil)
	}
	waitUntil(t, "both uploads ready", 60*time.Second, func() bool {
		var detail struct {
			DocumentSlots []struct {
				Uploads []struct {
					Filename string          `json:"filename"`
					Status   string          `json:"upload_status"`
					Failure  json.RawMessage `json:"failure"`
				} `json:"uploads"`
			} `json:"document_slots"`
		}
		api.json("GET", "/v1/submissions/"+sub.ID, nil, http.StatusOK, &detail)
		ready := 0
		for _, s := range detail.DocumentSlots {
			for _, u := range s.Uploads {
				switch u.Status {
				case "ready":
					ready++
				case "failed":
					t.Fatalf("upload %s failed: %s", u.Filename, u.Failure)
				}
			}
		}
		return ready == 2
	})

	var evaluation apiEvaluation
	api.json("POST", "/v1/submissions/"+sub.ID+"/evaluations", nil, http.StatusAccepted, &evaluation)
	waitUntil(t, "the evaluation completed", 60*time.Second, func() bool {
		api.json("GET", "/v1/submissions/"+sub.ID+"/evaluations/"+evaluation.ID, nil, http.StatusOK, &evaluation)
		if evaluation.Status == "failed" || evaluation.Status == "canceled" {
			t.Fatalf("the evaluation %s: %s", evaluation.Status, evaluation.Failure)
		}
		return evaluation.Status == "completed"
	})
	cited := map[string]bool{}
	for _, f := range evaluation.Result.Fields {
		cited[f.Key] = len(f.Citations) > 0
	}
	for _, want := range []string{"net_monthly_income", "iban"} {
		if !cited[want] {
			t.Errorf("the engine found no cited %s in the documents: %+v", want, evaluation.Result.Fields)
		}
	}
	return sub, evaluation
}

// templateWithSlots returns the first template (the default one first) whose document
// requirements include every one of types.
func templateWithSlots(api curlAPI, types ...string) string {
	api.t.Helper()
	type template struct {
		ID        string `json:"id"`
		IsDefault bool   `json:"is_default"`
	}
	var list struct {
		Data []template `json:"data"`
	}
	api.json("GET", "/v1/templates?limit=100", nil, http.StatusOK, &list)
	slices.SortStableFunc(list.Data, func(a, b template) int {
		switch {
		case a.IsDefault == b.IsDefault:
			return 0
		case a.IsDefault:
			return -1
		default:
			return 1
		}
	})
	for _, tmpl := range list.Data {
		var detail struct {
			DocumentRequirements []struct {
				DocumentTypeID string `json:"document_type_id"`
			} `json:"document_requirements"`
		}
		api.json("GET", "/v1/templates/"+tmpl.ID, nil, http.StatusOK, &detail)
		asked := map[string]bool{}
		for _, r := range detail.DocumentRequirements {
			asked[r.DocumentTypeID] = true
		}
		if !slices.ContainsFunc(types, func(want string) bool { return !asked[want] }) {
			return tmpl.ID
		}
	}
	api.t.Fatalf("no template asks for %v", types)
	return ""
}

// waitUntil polls cond every 300 ms until it holds, failing the test after timeout.
func waitUntil(t *testing.T, what string, timeout time.Duration, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(timeout); !cond(); time.Sleep(300 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", timeout, what)
		}
	}
}
