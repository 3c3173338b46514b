package console

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/doceval/doceval/pkg/domain/submission"
	"github.com/doceval/doceval/pkg/engine"
	"github.com/doceval/doceval/pkg/engine/evidence"
	"github.com/doceval/doceval/pkg/page"
	"github.com/doceval/doceval/pkg/store"
)

// queuePageSize is how many submissions a queue page lists.
const queuePageSize = 25

// Filter values the queue offers (the open enums' known values).
var (
	submissionStatuses = []string{submission.StatusCollecting, submission.StatusEvaluating, submission.StatusCompleted, submission.StatusFailed, submission.StatusCanceled}
	outcomes           = []string{"passed", "action_required", "critical_findings", "outcome_uncertain"}
	recommendations    = []string{"proceed", "request_documents", "manual_review", "unknown"}
	riskBands          = []string{"low", "medium", "high", "unknown"}
	ages               = []string{"1d", "3d", "7d", "30d"}
)

// queue lists the submissions the operator may see, filtered and paged; with q, those
// whose display id or external submission id is q instead (queueSearch).
func (a *app) queue(w http.ResponseWriter, r *http.Request, rs *reqState) error {
	q := r.URL.Query()
	f := store.QueueFilter{Limit: queuePageSize + 1, OldestFirst: q.Get("order") == "oldest", AllClients: rs.op.AllClients}
	if !rs.op.AllClients {
		f.Clients = append([]uuid.UUID{}, rs.op.ClientIDs...)
	}
	if q.Has("q") {
		return a.queueSearch(w, r, f, q.Get("q"))
	}
	if v := q.Get("client"); v != "" {
		id, err := uuid.Parse(v)
		if err != nil || !rs.op.Sees(id) {
			return errBadInput
		}
		f.Client = &id
	}
	pick := func(name string, allowed []string) (*string, error) {
		v := q.Get(name)
		if v == "" {
			return nil, nil
		}
		if slices.Contains(allowed, v) {
			return &v, nil
		}
		return nil, errBadInput
	}
	var err error
	if f.Status, err = pick("status", submissionStatuses); err != nil {
		return err
	}
	if f.Outcome, err = pick("outcome", outcomes); err != nil {
		return err
	}
	if f.Recommendation, err = pick("recommendation", recommendations); err != nil {
		return err
	}
	if f.RiskBand, err = pick("risk", riskBands); err != nil {
		return err
	}
	age, err := pick("older_than", ages)
	if err != nil {
		return err
	}
	if age != nil {
		days, _ := strconv.Atoi(strings.TrimSuffix(*age, "d"))
		before := a.st.Now().Add(-time.Duration(days) * 24 * time.Hour)
		f.CreatedBefore = &before
	}
	if c := q.Get("cursor"); c != "" {
		if f.After, err = page.Decode(&c); err != nil {
			return errBadInput
		}
	}
	items, err := a.st.Queue(r.Context(), f)
	if err != nil {
		return err
	}
	items, next := page.Trim(items, queuePageSize, store.QueueItem.Cursor)
	nextURL := nextPage("/queue", q, next)
	clients, err := a.visibleClients(r, rs.op)
	if err != nil {
		return err
	}
	a.render(w, r, http.StatusOK, "queue", map[string]any{
		"Items": items, "Next": nextURL, "Filter": q, "Search": "", "Clients": clients, "Statuses": submissionStatuses,
		"Outcomes": outcomes, "Recommendations": recommendations, "RiskBands": riskBands, "Ages": ages,
		"First": firstPage("/queue", q),
	})
	return nil
}

// maxSearchTerm is the longest id the search looks for, in characters: an external
// submission id has at most 255.
const maxSearchTerm = 255

// queueSearch shows the submissions the operator may see whose display id (SUB-…, in
// any case) or external submission id is term, exactly: a partner's support request
// names one or the other. The filters do not apply; there is one page.
func (a *app) queueSearch(w http.ResponseWriter, r *http.Request, f store.QueueFilter, term string) error {
	term = strings.TrimSpace(term)
	if term == "" {
		http.Redirect(w, r, "/queue", http.StatusSeeOther)
		return nil
	}
	if !validText(term) || utf8.RuneCountInString(term) > maxSearchTerm {
		return errBadInput
	}
	items, err := a.st.QueueSearch(r.Context(), f, term, queuePageSize)
	if err != nil {
		return err
	}
	a.render(w, r, http.StatusOK, "queue", map[string]any{"Items": items, "Search": term, "Filter": url.Values{}})
	return nil
}

// nextPage is the URL of a list's next page: the same filters, the next cursor; ""
// on the last page.
func nextPage(path string, q url.Values, next *string) string {
	if next == nil {
		return ""
	}
	return withCursor(path, q, *next)
}

// firstPage is the URL of a list's first page with the same filters; "" when q is
// already the first page.
func firstPage(path string, q url.Values) string {
	if q.Get("cursor") == "" {
		return ""
	}
	return withCursor(path, q, "")
}

// withCursor is path with q's filters and the cursor (none when "").
func withCursor(path string, q url.Values, cursor string) string {
	nq := url.Values{}
	for k, v := range q {
		nq[k] = v
	}
	nq.Del("cursor")
	if cursor != "" {
		nq.Set("cursor", cursor)
	}
	return path + "?" + nq.Encode()
}

// visibleClients lists the API clients the operator may see.
func (a *app) visibleClients(r *http.Request, op store.Operator) ([]store.Client, error) {
	all, err := a.st.ListClients(r.Context())
	if err != nil {
		return nil, err
	}
	var out []store.Client
	for _, c := range all {
		if op.Sees(c.ID) {
			out = append(out, c)
		}
	}
	return out, nil
}

// visibleSubmission reads a submission the operator may see. Another client's
// submission is not found, the same answer as one that does not exist; one being
// deleted is submission.ErrPurging (the page says so).
func (a *app) visibleSubmission(r *http.Request, op store.Operator, id uuid.UUID) (store.SubmissionDetail, error) {
	client, purging, err := a.st.SubmissionOwner(r.Context(), id)
	switch {
	case err != nil:
		return store.SubmissionDetail{}, err
	case !op.Sees(client):
		return store.SubmissionDetail{}, store.ErrNotFound
	case purging:
		return store.SubmissionDetail{}, submission.ErrPurging
	}
	return a.st.Tenant(client).Submission(r.Context(), id)
}

// citationView is a citation as the submission page lists it, with the document
// viewer's URL for its first cited page.
type citationView struct {
	Link    string
	File    string
	Pages   []int
	Excerpt string
}

type checkView struct {
	engine.ResultCheck
	Cites []citationView
}

type fieldView struct {
	engine.ResultField
	Display string
	Cites   []citationView
}

// citationViews links an item's citations to the viewer: the citation is named by the
// evaluation, the item ("check-3" is the fourth check) and its position, so the viewer
// reads it from the stored result rather than from the URL.
func citationViews(evaluation uuid.UUID, item string, cites []evidence.Citation, names map[uuid.UUID]string) []citationView {
	out := make([]citationView, 0, len(cites))
	for i, c := range cites {
		pg := 1
		if len(c.Pages) > 0 {
			pg = c.Pages[0]
		}
		out = append(out, citationView{
			Link: fmt.Sprintf("/uploads/%s/pages/%d?evaluation=%s&cite=%s-%d", c.UploadID, pg, evaluation, item, i),
			File: names[c.UploadID], Pages: c.Pages, Excerpt: c.Excerpt,
		})
	}
	return out
}

// displayValue renders a field's value as text: money as amount and currency, other
// objects and lists as compact JSON.
func displayValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "—"
	case string:
		return x
	case map[string]any:
		if amount, ok := x["amount"]; ok {
			return fmt.Sprintf("%v %v", amount, x["currency"])
		}
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// submission shows a submission: its slots with uploads, statuses and decisions, and
// the latest evaluation (summary, checks, fields) with links into the document viewer.
func (a *app) submission(w http.ResponseWriter, r *http.Request, rs *reqState) error {
	id, err := uuid.Parse(r.PathValue("id"))
	if err != nil {
		return store.ErrNotFound
	}
	d, err := a.visibleSubmission(r, rs.op, id)
	if err != nil {
		return err
	}
	return a.renderSubmission(w, r, http.StatusOK, d, nil)
}

// decisionForm is a decision form posted back with its error, shown on the slot.
type decisionForm struct {
	SlotID   uuid.UUID
	Decision string
	Reason   string
	Error    string
}

func (a *app) renderSubmission(w http.ResponseWriter, r *http.Request, status int, d store.SubmissionDetail, form *decisionForm) error {
	names := uploadNames(d)
	var (
		result *engine.Result
		checks []checkView
		fields []fieldView
	)
	if e := d.LatestEvaluation; e != nil && len(e.Result) > 0 {
		result = &engine.Result{}
		if err := json.Unmarshal(e.Result, result); err != nil {
			return fmt.Errorf("evaluation %s result: %w", e.ID, err)
		}
		for i, c := range result.Checks {
			checks = append(checks, checkView{ResultCheck: c, Cites: citationViews(e.ID, fmt.Sprintf("check-%d", i), c.Citations, names)})
		}
		for i, f := range result.Fields {
			fields = append(fields, fieldView{ResultField: f, Display: displayValue(f.Value), Cites: citationViews(e.ID, fmt.Sprintf("field-%d", i), f.Citations, names)})
		}
	}
	client, err := a.st.Client(r.Context(), d.ClientID)
	if err != nil {
		return err
	}
	a.render(w, r, status, "submission", map[string]any{
		"S": d, "Client": client, "Result": result, "Checks": checks, "Fields": fields,
		"Form": form, "Decidable": d.Status != submission.StatusCanceled && !d.Purging,
	})
	return nil
}

// uploadNames maps each upload of a submission to its file name, for citations.
func uploadNames(d store.SubmissionDetail) map[uuid.UUID]string {
	out := map[uuid.UUID]string{}
	for _, s := range d.Slots {
		for _, u := range s.Uploads {
			out[u.ID] = u.Filename
		}
	}
	for _, u := range d.Unassigned {
		out[u.ID] = u.Filename
	}
	return out
}

// decide sets or clears an advisor decision on a slot.
func (a *app) decide(w http.ResponseWriter, r *http.Request, rs *reqState) error {
	id, err := uuid.Parse(r.PathValue("id"))
	if err != nil {
		return store.ErrNotFound
	}
	slotID, err := uuid.Parse(r.PathValue("slot"))
	if err != nil {
		return store.ErrNotFound
	}
	sub, err := a.visibleSubmission(r, rs.op, id)
	if err != nil {
		return err
	}
	decision := r.PostFormValue("decision")
	if decision == "clear" {
		decision = ""
	}
	reason := r.PostFormValue("reason")
	if !validText(reason) || !validText(decision) {
		return errBadInput
	}
	_, err = a.st.As(a.actorOf(r, rs.op)).DecideSlot(r.Context(), submission.Decision{ClientID: sub.ClientID, SubmissionID: id, SlotID: slotID, Decision: decision, Reason: reason})
	msg := ""
	switch {
	case err == nil:
		http.Redirect(w, r, fmt.Sprintf("/submissions/%s#slot-%s", id, slotID), http.StatusSeeOther)
		return nil
	case errors.Is(err, submission.ErrReasonRequired):
		msg = "decision.reason_required"
	case errors.Is(err, submission.ErrReasonTooLong):
		msg = "decision.reason_too_long"
	case errors.Is(err, submission.ErrDecisionUnknown):
		msg = "decision.unknown"
	case errors.Is(err, submission.ErrCanceled):
		msg = "decision.canceled"
	case errors.Is(err, submission.ErrPurging):
		msg = "decision.purging"
	default:
		return err
	}
	d, err := a.visibleSubmission(r, rs.op, id)
	if err != nil {
		return err
	}
	return a.renderSubmission(w, r, http.StatusUnprocessableEntity, d, &decisionForm{SlotID: slotID, Decision: decision, Reason: reason, Error: msg})
}
