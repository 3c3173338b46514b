package console_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/doceval/doceval/pkg/store"
)

// The review queue finds a submission by its display id (in any case) or its external
// submission id (exactly), among the clients the operator sees only; an empty search is
// the queue, a search no id can match is refused as bad input.
func TestQueueSearch(t *testing.T) {
	t.Parallel()
	b := setup(t)
	mine, theirs := b.client("Bank"), b.client("Other bank")
	a, _ := b.submission(mine.ID, "ORDER-1", "a.pdf", `{}`)
	other, _ := b.submission(theirs.ID, "ORDER-1", "b.pdf", `{}`)
	b.submission(mine.ID, "ORDER-10", "c.pdf", `{}`)

	advisor := b.browser()
	advisor.signIn("advisor@example.com", b.operator("advisor@example.com", store.RoleAdvisor, []uuid.UUID{mine.ID}))
	admin := b.browser()
	admin.signIn("admin@example.com", b.operator("admin@example.com", store.RoleAdmin, nil))
	rows := func(p page) int { return strings.Count(p.body, `<a href="/submissions/`) }

	for _, tc := range []struct {
		who   *browser
		q     string
		found []string
	}{
		{advisor, "ORDER-1", []string{a.DisplayID}},
		{admin, "ORDER-1", []string{a.DisplayID, other.DisplayID}},
		{advisor, a.DisplayID, []string{a.DisplayID}},
		{advisor, strings.ToLower(a.DisplayID), []string{a.DisplayID}},
		{advisor, "  " + a.DisplayID + " ", []string{a.DisplayID}},
		{advisor, other.DisplayID, nil},
		{advisor, "order-1", nil},
		{advisor, "ORDER", nil},
		{admin, other.DisplayID, []string{other.DisplayID}},
	} {
		p := tc.who.get("/queue?q=" + url.QueryEscape(tc.q))
		if p.status != http.StatusOK || rows(p) != len(tc.found) {
			t.Errorf("search %q: %d, %d rows, want %v: %.3000s", tc.q, p.status, rows(p), tc.found, p.body)
			continue
		}
		for _, id := range tc.found {
			if !strings.Contains(p.body, ">"+id+"</a>") {
				t.Errorf("search %q: %s missing", tc.q, id)
			}
		}
		if len(tc.found) == 0 && !strings.Contains(p.body, "No submission you may see has this id") {
			t.Errorf("search %q: no empty-result message", tc.q)
		}
	}
	// 255 characters is the longest external id, whatever their bytes.
	if p := advisor.get("/queue?q=" + url.QueryEscape(strings.Repeat("ä", 255))); p.status != http.StatusOK {
		t.Errorf("a search of 255 two-byte characters: %d", p.status)
	}
	if p := advisor.get("/queue?q=+"); p.status != http.StatusSeeOther || p.location != "/queue" {
		t.Errorf("an empty search: %d %s", p.status, p.location)
	}
	for _, bad := range []string{strings.Repeat("x", 256), "a\x00b", "\xff"} {
		if p := advisor.get("/queue?q=" + url.QueryEscape(bad)); p.status != http.StatusBadRequest {
			t.Errorf("search %q: %d, want 400", bad, p.status)
		}
	}
	if p := advisor.get("/queue"); p.status != http.StatusOK || !strings.Contains(p.body, `id="queue-search"`) || rows(p) != 2 {
		t.Errorf("the queue without a search: %d, %d rows", p.status, rows(p))
	}
}
