package console_test

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/doceval/doceval/pkg/store"
)

// Whatever a signed-in admin's browser sends — any method, path, query and form, with
// the session's own form token — the console answers with a page, never a server error.
func FuzzConsoleRequests(f *testing.F) {
	b := setup(f)
	c := b.client("Broker")
	sub, up := b.submission(c.ID, "s-1", "a.pdf", `{}`)
	slot := sub.Slots[0].ID.String()
	hook := b.webhook(c.ID)
	ev := b.event(c.ID)
	hook.send(f)
	pw := b.operator("admin@example.com", store.RoleAdmin, nil)
	br := b.browser()
	br.signIn("admin@example.com", pw)
	csrf := br.csrf("/queue")
	for _, seed := range []struct{ method, path, query, form string }{
		{"GET", "/queue", "status=completed&outcome=passed&order=oldest&older_than=7d", ""},
		{"GET", "/queue", "cursor=eyJ0IjoiMjAyNi0wMS0wMVQwMDowMDowMFoiLCJpIjoiMDAwMDAwMDAtMDAwMC0wMDAwLTAwMDAtMDAwMDAwMDAwMDAxIn0", ""},
		{"GET", "/queue", "older_than=d&risk=%00", ""},
		{"GET", "/submissions/" + sub.ID.String(), "", ""},
		{"GET", "/submissions/not-a-uuid", "", ""},
		{"POST", "/submissions/" + sub.ID.String() + "/slots/" + slot + "/decision", "", "decision=rejected&reason=%F0%9F%98%80"},
		{"POST", "/submissions/" + sub.ID.String() + "/slots/" + slot + "/decision", "", "decision=approved"},
		{"GET", "/uploads/" + up.ID.String() + "/pages/1", "evaluation=x&cite=check-99-99", ""},
		{"GET", "/uploads/" + up.ID.String() + "/pages/-1/image", "", ""},
		{"GET", "/clients/" + c.ID.String() + "/events", "type=%ff&submission=1", ""},
		{"GET", "/queue", "q=" + strings.ToLower(sub.DisplayID), ""},
		{"GET", "/queue", "q=%ff%00&status=nope", ""},
		{"POST", "/clients/" + c.ID.String() + "/events/" + ev.String() + "/redeliver", "", ""},
		{"POST", "/clients/" + c.ID.String() + "/events/" + ev.String() + "/redeliver", "", "endpoint_id=" + hook.endpoint.String()},
		{"POST", "/clients/" + c.ID.String() + "/events/" + ev.String() + "/redeliver", "", "endpoint_id=%00"},
		{"POST", "/clients", "", "name=" + strings.Repeat("n", 300) + "&permission=nope"},
		{"POST", "/clients/" + c.ID.String() + "/permissions", "", "permission=events:read&permission=events:read"},
		{"GET", "/audit", "action=signin&cursor=%%%", ""},
		{"GET", "/lang/xx", "next=//evil", ""},
	} {
		f.Add(seed.method, seed.path, seed.query, seed.form)
	}
	f.Fuzz(func(t *testing.T, method, path, query, form string) {
		if method != http.MethodGet && method != http.MethodPost {
			method = http.MethodGet
		}
		if !strings.HasPrefix(path, "/") || strings.ContainsAny(path, " \r\n\t#?") || strings.Contains(path, "/logout") {
			return // not a request a browser sends, or one that ends the session
		}
		u := path
		if query != "" {
			u += "?" + url.PathEscape(query)
		}
		var body io.Reader
		if method == http.MethodPost {
			values, _ := url.ParseQuery(form)
			if values == nil {
				values = url.Values{}
			}
			values.Set("csrf", csrf)
			body = strings.NewReader(values.Encode())
		}
		req, err := http.NewRequest(method, br.base+u, body)
		if err != nil {
			return // not a URL a browser would send
		}
		if body != nil {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		res, err := br.c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(res.Body)
		res.Body.Close()
		p := page{status: res.StatusCode, body: string(raw)}
		if p.status >= 500 {
			t.Fatalf("%s %s: %d %.300s", method, u, p.status, p.body)
		}
	})
}
