package console_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/doceval/doceval/pkg/console"
	"github.com/doceval/doceval/pkg/domain/submission"
	"github.com/doceval/doceval/pkg/store"
)

func TestSignInRolesAndSignOut(t *testing.T) {
	t.Parallel()
	b := setup(t)
	adminPW := b.operator("admin@example.com", store.RoleAdmin, nil)
	advisorPW := b.operator("advisor@example.com", store.RoleAdvisor, nil)

	anon := b.browser()
	if p := anon.get("/queue"); p.status != http.StatusSeeOther || !strings.HasPrefix(p.location, "/login") {
		t.Fatalf("signed out: %d %s", p.status, p.location)
	}
	if p := anon.post("/login", url.Values{"email": {"admin@example.com"}, "password": {"wrong password!"}}, anon.csrf("/login")); p.status != http.StatusUnauthorized || !strings.Contains(p.body, "E-mail or password is wrong") {
		t.Fatalf("wrong password: %d %.200s", p.status, p.body)
	}

	admin := b.browser()
	admin.signIn("ADMIN@example.com", adminPW) // e-mail in any letter case
	if p := admin.get("/clients"); p.status != http.StatusOK {
		t.Fatalf("admin /clients: %d", p.status)
	}
	advisor := b.browser()
	advisor.signIn("advisor@example.com", advisorPW)
	if p := advisor.get("/queue"); p.status != http.StatusOK {
		t.Fatalf("advisor /queue: %d", p.status)
	}
	for _, path := range []string{"/clients", "/audit"} {
		if p := advisor.get(path); p.status != http.StatusForbidden {
			t.Fatalf("advisor %s: %d, want 403", path, p.status)
		}
	}
	csrf := advisor.csrf("/queue")
	if p := advisor.post("/clients", url.Values{"name": {"x"}}, csrf); p.status != http.StatusForbidden {
		t.Fatalf("advisor creates a client: %d", p.status)
	}

	// Signing in from a browser that still holds a session ends that session.
	first := b.browser()
	first.signIn("advisor@example.com", advisorPW)
	second := b.browser()
	token := second.csrf("/login")
	second.c.Jar.SetCookies(mustURL(b.srv.URL), first.c.Jar.Cookies(mustURL(b.srv.URL)))
	if p := second.post("/login", url.Values{"email": {"advisor@example.com"}, "password": {advisorPW}}, token); p.status != http.StatusSeeOther {
		t.Fatalf("sign in over a session: %d", p.status)
	}
	if p := first.get("/queue"); p.status != http.StatusSeeOther {
		t.Fatalf("the session replaced by a new sign-in still works: %d", p.status)
	}
	// Sign-out ends the session; sign-out everywhere ends the others too.
	other := b.browser()
	other.signIn("admin@example.com", adminPW)
	if p := admin.post("/logout/everywhere", nil, admin.csrf("/queue")); p.status != http.StatusSeeOther {
		t.Fatalf("sign out everywhere: %d", p.status)
	}
	for name, br := range map[string]*browser{"this": admin, "other": other} {
		if p := br.get("/queue"); p.status != http.StatusSeeOther {
			t.Fatalf("%s device after sign-out everywhere: %d", name, p.status)
		}
	}
	if p := advisor.post("/logout", nil, csrf); p.status != http.StatusSeeOther {
		t.Fatalf("sign out: %d", p.status)
	}
	if p := advisor.get("/queue"); p.status != http.StatusSeeOther {
		t.Fatalf("after sign-out: %d", p.status)
	}
}

func TestCSRF(t *testing.T) {
	t.Parallel()
	b := setup(t)
	pwA := b.operator("a@example.com", store.RoleAdmin, nil)
	pwB := b.operator("b@example.com", store.RoleAdmin, nil)
	a, bb := b.browser(), b.browser()
	a.signIn("a@example.com", pwA)
	bb.signIn("b@example.com", pwB)
	tokenA := a.csrf("/clients")

	for name, tc := range map[string]struct {
		br   *browser
		form url.Values
	}{
		"missing":           {a, url.Values{"name": {"n"}, "csrf": nil}},
		"empty":             {a, url.Values{"name": {"n"}, "csrf": {""}}},
		"another account's": {bb, url.Values{"name": {"n"}, "csrf": {tokenA}}},
		"made up":           {a, url.Values{"name": {"n"}, "csrf": {strings.Repeat("A", 43)}}},
	} {
		p := tc.br.do(http.MethodPost, "/clients", tc.form) // a nil csrf is left out

		if p.status != http.StatusForbidden {
			t.Errorf("%s token: %d, want 403", name, p.status)
		}
	}
	// A form posted from another site is refused before its token is looked at, whether
	// the browser says so (Sec-Fetch-Site) or only its Origin shows it.
	for _, h := range [][2]string{{"Origin", "https://evil.example"}, {"Sec-Fetch-Site", "cross-site"}, {"Sec-Fetch-Site", "same-site"}} {
		req, _ := http.NewRequest(http.MethodPost, b.srv.URL+"/clients", strings.NewReader(url.Values{"name": {"n"}, "csrf": {tokenA}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set(h[0], h[1])
		res, err := a.c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusForbidden {
			t.Fatalf("cross-origin post with %s %s: %d", h[0], h[1], res.StatusCode)
		}
	}
	clients, err := b.st.ListClients(context.Background())
	if err != nil || len(clients) != 0 {
		t.Fatalf("a refused form created clients: %v %v", clients, err)
	}
	// The sign-in form has its own token (double submit).
	anon := b.browser()
	if p := anon.post("/login", url.Values{"email": {"a@example.com"}, "password": {pwA}}, "forged"); p.status != http.StatusForbidden {
		t.Fatalf("sign-in without the form's token: %d", p.status)
	}
	// With its token, A's own form works.
	if p := a.post("/clients", url.Values{"name": {"Broker A"}, "permission": {"submissions:read"}}, tokenA); p.status != http.StatusOK || !strings.Contains(p.body, "New API key") {
		t.Fatalf("create client: %d %.300s", p.status, p.body)
	}
}

func TestLoginThrottle(t *testing.T) {
	t.Parallel()
	b := setup(t)
	pw := b.operator("x@example.com", store.RoleAdvisor, nil)
	br := b.browser()
	for i := 0; i < 5; i++ {
		if p := br.post("/login", url.Values{"email": {"x@example.com"}, "password": {"not the password"}}, br.csrf("/login")); p.status != http.StatusUnauthorized {
			t.Fatalf("failure %d: %d", i+1, p.status)
		}
	}
	// The right password no longer helps within the window.
	p := br.post("/login", url.Values{"email": {"x@example.com"}, "password": {pw}}, br.csrf("/login"))
	if p.status != http.StatusTooManyRequests || !strings.Contains(p.body, "Too many failed sign-ins") {
		t.Fatalf("throttled sign-in: %d %.300s", p.status, p.body)
	}
	// Attempts sent at once are counted before their passwords are checked: no more
	// than the limit get to try one.
	b.operator("y@example.com", store.RoleAdvisor, nil)
	var wg sync.WaitGroup
	statuses := make(chan int, 12)
	for i := 0; i < 12; i++ {
		other := b.browser()
		token := other.csrf("/login")
		wg.Go(func() {
			statuses <- other.post("/login", url.Values{"email": {"y@example.com"}, "password": {"guess number " + strconv.Itoa(i)}}, token).status
		})
	}
	wg.Wait()
	close(statuses)
	tried := 0
	for st := range statuses {
		if st == http.StatusUnauthorized {
			tried++
		} else if st != http.StatusTooManyRequests {
			t.Fatalf("parallel attempt: %d", st)
		}
	}
	if tried > 5 {
		t.Fatalf("%d parallel guesses were checked, limit 5", tried)
	}

	entries, err := b.st.AuditLog(context.Background(), store.AuditFilter{Limit: 50})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(entries); i++ { // only x@example.com's
		if entries[i].Actor != "x@example.com" {
			entries = append(entries[:i], entries[i+1:]...)
			i--
		}
	}
	counts := map[string]int{}
	for _, e := range entries {
		counts[e.Action]++
	}
	if counts["signin.failed"] != 5 || counts["signin.throttled"] != 1 || counts["signin"] != 0 {
		t.Fatalf("audit: %v", counts)
	}
}

func TestAdvisorLimitedToClients(t *testing.T) {
	t.Parallel()
	b := setup(t)
	clientA, clientB := b.client("Broker A"), b.client("Broker B")
	subA, _ := b.submission(clientA.ID, "a-1", "a.pdf", `{}`)
	subB, _ := b.submission(clientB.ID, "b-1", "b.pdf", `{}`)
	pw := b.operator("limited@example.com", store.RoleAdvisor, []uuid.UUID{clientA.ID})
	br := b.browser()
	br.signIn("limited@example.com", pw)

	if p := br.get("/submissions/" + subA.ID.String()); p.status != http.StatusOK {
		t.Fatalf("own client's submission: %d", p.status)
	}
	if p := br.get("/submissions/" + subB.ID.String()); p.status != http.StatusNotFound {
		t.Fatalf("other client's submission: %d, want 404", p.status)
	}
	q := br.get("/queue")
	if !strings.Contains(q.body, subA.DisplayID) || strings.Contains(q.body, subB.DisplayID) {
		t.Fatalf("queue shows %v / %v", strings.Contains(q.body, subA.DisplayID), strings.Contains(q.body, subB.DisplayID))
	}
	if p := br.get("/queue?client=" + clientB.ID.String()); p.status != http.StatusBadRequest {
		t.Fatalf("queue filtered to another client: %d", p.status)
	}
	csrf := br.csrf("/queue")
	slot := subB.Slots[0].ID
	if p := br.post("/submissions/"+subB.ID.String()+"/slots/"+slot.String()+"/decision", url.Values{"decision": {"accepted"}}, csrf); p.status != http.StatusNotFound {
		t.Fatalf("decision on another client's slot: %d", p.status)
	}
	d, err := b.st.Tenant(clientB.ID).Submission(context.Background(), subB.ID)
	if err != nil || d.Slots[0].Review != nil {
		t.Fatalf("slot of client B changed: %+v %v", d.Slots[0], err)
	}
}

func TestStoredValuesAreEscaped(t *testing.T) {
	t.Parallel()
	b := setup(t)
	c := b.client(`<img src=x onerror=alert(1)>`)
	sub, _ := b.submission(c.ID, `<b>ext</b>`, `<script>alert("file")</script>.pdf`, `{"note":"<script>alert('meta')</script>"}`)
	pw := b.operator("admin@example.com", store.RoleAdmin, nil)
	br := b.browser()
	br.signIn("admin@example.com", pw)
	for _, path := range []string{"/submissions/" + sub.ID.String(), "/queue", "/clients", "/clients/" + c.ID.String()} {
		p := br.get(path)
		if p.status != http.StatusOK {
			t.Fatalf("%s: %d", path, p.status)
		}
		for _, raw := range []string{"<script>", "<img src=x", "<b>ext"} {
			if strings.Contains(p.body, raw) {
				t.Errorf("%s renders %q unescaped", path, raw)
			}
		}
	}
	p := br.get("/submissions/" + sub.ID.String())
	for _, shown := range []string{"&lt;script&gt;alert(&#34;file&#34;)&lt;/script&gt;.pdf", "&lt;script&gt;alert(&#39;meta&#39;)&lt;/script&gt;"} {
		if !strings.Contains(p.body, shown) {
			t.Errorf("submission page does not show %s as text", shown)
		}
	}
}

func TestDecisions(t *testing.T) {
	t.Parallel()
	b := setup(t)
	c := b.client("Broker")
	sub, _ := b.submission(c.ID, "s-1", "payslip.pdf", `{}`)
	slot := sub.Slots[0]
	pw := b.operator("advisor@example.com", store.RoleAdvisor, nil)
	br := b.browser()
	br.signIn("advisor@example.com", pw)
	path := "/submissions/" + sub.ID.String() + "/slots/" + slot.ID.String() + "/decision"
	csrf := br.csrf("/submissions/" + sub.ID.String())

	// A rejection needs a reason.
	if p := br.post(path, url.Values{"decision": {"rejected"}, "reason": {"  "}}, csrf); p.status != http.StatusUnprocessableEntity || !strings.Contains(p.body, "Give a reason") {
		t.Fatalf("reject without reason: %d", p.status)
	}
	if p := br.post(path, url.Values{"decision": {"rejected"}, "reason": {"Payslip older than 3 months"}}, csrf); p.status != http.StatusSeeOther {
		t.Fatalf("reject: %d %.300s", p.status, p.body)
	}
	d, err := b.st.Tenant(c.ID).Submission(context.Background(), sub.ID)
	if err != nil {
		t.Fatal(err)
	}
	got := d.Slots[0]
	if got.Status != submission.DecisionRejected || got.Review == nil || got.Review.Decision != "rejected" || *got.Review.Reason != "Payslip older than 3 months" {
		t.Fatalf("slot after rejection: %+v %+v", got, got.Review)
	}
	// The partner is told, with the decision and no staff name.
	ev := lastSlotEvent(t, b.st, c.ID)
	if ev.PreviousStatus != "received" || ev.DocumentSlot.Status != "rejected" || ev.DocumentSlot.Review == nil ||
		ev.DocumentSlot.Review.Decision != "rejected" || *ev.DocumentSlot.Review.Reason != "Payslip older than 3 months" {
		t.Fatalf("event: %+v", ev)
	}
	// Text that cannot be stored is refused, not a server error.
	for _, reason := range []string{"bad \x00 byte", "bad \xff utf-8"} {
		if p := br.post(path, url.Values{"decision": {"rejected"}, "reason": {reason}}, csrf); p.status != http.StatusBadRequest {
			t.Fatalf("reason %q: %d", reason, p.status)
		}
	}
	// Clearing the decision gives the computed status back.
	if p := br.post(path, url.Values{"decision": {"clear"}}, csrf); p.status != http.StatusSeeOther {
		t.Fatalf("clear: %d", p.status)
	}
	if ev := lastSlotEvent(t, b.st, c.ID); ev.DocumentSlot.Status != "received" || ev.DocumentSlot.Review != nil || ev.PreviousStatus != "rejected" {
		t.Fatalf("event after clearing: %+v", ev)
	}
	// Canceled submissions take no decision.
	if _, err := b.st.Tenant(c.ID).CancelSubmission(context.Background(), sub.ID); err != nil {
		t.Fatal(err)
	}
	if p := br.post(path, url.Values{"decision": {"accepted"}}, csrf); p.status != http.StatusUnprocessableEntity || !strings.Contains(p.body, "canceled") {
		t.Fatalf("decision on a canceled submission: %d", p.status)
	}
	// A submission being deleted says so, and takes no decision either.
	if err := b.st.Tenant(c.ID).DeleteSubmission(context.Background(), sub.ID); err != nil {
		t.Fatal(err)
	}
	if p := br.get("/submissions/" + sub.ID.String()); p.status != http.StatusConflict || !strings.Contains(p.body, "being deleted") {
		t.Fatalf("submission being deleted: %d", p.status)
	}
	if p := br.post(path, url.Values{"decision": {"accepted"}}, csrf); p.status != http.StatusConflict || !strings.Contains(p.body, "being deleted") {
		t.Fatalf("decision on a submission being deleted: %d", p.status)
	}
	// Each decision is in the audit log with who and from where.
	entries, err := b.st.AuditLog(context.Background(), store.AuditFilter{Limit: 50})
	if err != nil {
		t.Fatal(err)
	}
	var decided int
	for _, e := range entries {
		if e.Action == "slot.decide" || e.Action == "slot.clear_decision" {
			decided++
			if e.Actor != "advisor@example.com" || e.IP == "" || e.TargetID != slot.ID.String() {
				t.Errorf("audit entry: %+v", e)
			}
		}
	}
	if decided != 2 {
		t.Fatalf("audit has %d decision entries, want 2", decided)
	}
}

// lastSlotEvent reads the newest document_slot.updated event of the client.
func lastSlotEvent(t *testing.T, st *store.Store, client uuid.UUID) submission.SlotUpdatedData {
	t.Helper()
	typ := "document_slot.updated"
	events, err := st.Tenant(client).Events(context.Background(), store.EventFilter{Type: &typ, Limit: 1})
	if err != nil || len(events) == 0 {
		t.Fatalf("no document_slot.updated event: %v", err)
	}
	var env struct {
		Data submission.SlotUpdatedData `json:"data"`
	}
	if err := json.Unmarshal(events[0].Envelope, &env); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(events[0].Envelope), "@example.com") {
		t.Fatalf("the event names staff: %s", events[0].Envelope)
	}
	return env.Data
}

func mustURL(s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		panic(err)
	}
	return u
}

// Failures count per (e-mail, source) and per source: six wrong guesses from one source
// lock that source out of the account, not the owner signing in from another; a
// source that tries many accounts (password spraying) is locked out of all of them.
// The source is the client a trusted proxy names in X-Forwarded-For.
func TestLoginThrottleBySource(t *testing.T) {
	t.Parallel()
	b := setup(t, func(d *console.Deps) { d.Settings.TrustedProxies = "127.0.0.1,::1" })
	pw := b.operator("owner@example.com", store.RoleAdvisor, nil)
	stranger := b.browser()
	stranger.forwardedFor = "203.0.113.7"
	for i := 1; i <= 6; i++ {
		p := stranger.password("owner@example.com", "a wrong guess")
		want := http.StatusUnauthorized
		if i == 6 {
			want = http.StatusTooManyRequests
		}
		if p.status != want {
			t.Fatalf("guess %d from the stranger: %d, want %d", i, p.status, want)
		}
	}
	if p := stranger.password("owner@example.com", pw); p.status != http.StatusTooManyRequests {
		t.Fatalf("the right password from the locked source: %d", p.status)
	}
	owner := b.browser()
	owner.forwardedFor = "198.51.100.20"
	owner.signIn("owner@example.com", pw)
	// The owner's sign-in forgets only the owner's source: the stranger stays locked.
	if p := stranger.password("owner@example.com", pw); p.status != http.StatusTooManyRequests {
		t.Fatalf("the stranger after the owner signed in: %d", p.status)
	}

	// Spraying: 20 failures from one source over many accounts lock that source out,
	// even of an account it never tried, with the right password.
	sprayer := b.browser()
	sprayer.forwardedFor = "192.0.2.50"
	for i := range 20 {
		if p := sprayer.password("user"+strconv.Itoa(i)+"@example.com", "Winter2026!!"); p.status != http.StatusUnauthorized {
			t.Fatalf("spray %d: %d", i, p.status)
		}
	}
	if p := sprayer.password("owner@example.com", pw); p.status != http.StatusTooManyRequests {
		t.Fatalf("the sprayer's 21st attempt: %d", p.status)
	}
	// An IPv6 source counts as its /64.
	v6 := b.browser()
	for i := range 6 {
		v6.forwardedFor = "2001:db8:1:2::" + strconv.Itoa(i+1)
		v6.password("owner@example.com", "a wrong guess")
	}
	v6.forwardedFor = "2001:db8:1:2:ffff::1"
	if p := v6.password("owner@example.com", pw); p.status != http.StatusTooManyRequests {
		t.Fatalf("another address of the same /64: %d", p.status)
	}
	other := b.browser()
	other.forwardedFor = "2001:db8:1:3::1"
	other.signIn("owner@example.com", pw)
}

// At most HashConcurrency password checks run at once; a sign-in that finds no free slot
// within HashWait is answered 429 "try again" and not counted as a failure.
func TestPasswordHashingCapped(t *testing.T) {
	t.Parallel()
	b := setup(t, func(d *console.Deps) {
		d.Settings.HashConcurrency, d.Settings.HashWait = 1, time.Millisecond
		d.Settings.TrustedProxies = "127.0.0.1,::1"
	})
	pw := b.operator("busy@example.com", store.RoleAdvisor, nil)
	const n = 8
	browsers := make([]*browser, n)
	tokens := make([]string, n)
	for i := range browsers {
		browsers[i] = b.browser()
		browsers[i].forwardedFor = "198.51.100." + strconv.Itoa(i+1)
		tokens[i] = browsers[i].csrf("/login")
	}
	pages := make([]page, n)
	var wg sync.WaitGroup
	for i, br := range browsers {
		wg.Go(func() {
			pages[i] = br.post("/login", url.Values{"email": {"busy@example.com"}, "password": {pw}}, tokens[i])
		})
	}
	wg.Wait()
	busy := 0
	for i, p := range pages {
		switch {
		case p.status == http.StatusSeeOther:
		case p.status == http.StatusTooManyRequests && strings.Contains(p.body, "checking many sign-ins"):
			busy++
			n, err := b.st.LoginFailures(context.Background(), "busy@example.com", browsers[i].forwardedFor, time.Hour)
			if err != nil || n.ByAccountSource != 0 {
				t.Errorf("a sign-in answered busy counts %d failures (%v)", n.ByAccountSource, err)
			}
		default:
			t.Fatalf("sign-in %d: %d %.200s", i, p.status, p.body)
		}
	}
	if busy == 0 {
		t.Fatalf("%d sign-ins at once with one slot and 1 ms to wait: none was turned away", n)
	}
}
