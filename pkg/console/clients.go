package console

import (
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/doceval/doceval/pkg/auth"
	"github.com/doceval/doceval/pkg/domain/webhook"
	"github.com/doceval/doceval/pkg/page"
	"github.com/doceval/doceval/pkg/store"
)

// Admin pages: API clients, their keys and permissions, their webhook endpoints with
// delivery health, their event log, and the audit log. Every change goes through
// Store.As, so it is in the audit log with who, when and from where.

func (a *app) clients(w http.ResponseWriter, r *http.Request, rs *reqState) error {
	list, err := a.st.ListClients(r.Context())
	if err != nil {
		return err
	}
	a.render(w, r, http.StatusOK, "clients", map[string]any{"Clients": list, "Permissions": auth.Strings(auth.AllPermissions)})
	return nil
}

// permissionsFrom reads the permission checkboxes of a form; unknown values are refused.
func permissionsFrom(r *http.Request) ([]auth.Permission, error) {
	if err := r.ParseForm(); err != nil {
		return nil, errBadInput
	}
	var out []auth.Permission
	for _, v := range r.PostForm["permission"] {
		p := auth.Permission(v)
		if !p.IsKnown() {
			return nil, errBadInput
		}
		out = append(out, p)
	}
	return out, nil
}

// createClient creates an API client with its first key and shows the key once.
func (a *app) createClient(w http.ResponseWriter, r *http.Request, rs *reqState) error {
	name := strings.TrimSpace(r.PostFormValue("name"))
	perms, err := permissionsFrom(r)
	if err != nil {
		return err
	}
	if !validText(name) {
		return errBadInput
	}
	if name == "" || len([]rune(name)) > 200 {
		list, err := a.st.ListClients(r.Context())
		if err != nil {
			return err
		}
		a.render(w, r, http.StatusUnprocessableEntity, "clients", map[string]any{
			"Clients": list, "Permissions": auth.Strings(auth.AllPermissions), "Error": "clients.name_required", "Name": name,
		})
		return nil
	}
	c, key, secret, err := a.st.As(a.actorOf(r, rs.op)).CreateClient(r.Context(), name, perms)
	if err != nil {
		return err
	}
	return a.renderClient(w, r, c.ID, &issuedKey{Key: key, Secret: secret})
}

// issuedKey is a key just issued: its secret is shown on this one page and never again.
type issuedKey struct {
	Key    store.Key
	Secret string
}

func (a *app) client(w http.ResponseWriter, r *http.Request, rs *reqState) error {
	id, err := uuid.Parse(r.PathValue("id"))
	if err != nil {
		return store.ErrNotFound
	}
	return a.renderClient(w, r, id, nil)
}

// endpointView is a webhook endpoint with how its deliveries of the last day ended.
type endpointView struct {
	webhook.Endpoint
	Health store.EndpointHealth
}

func (a *app) renderClient(w http.ResponseWriter, r *http.Request, id uuid.UUID, issued *issuedKey) error {
	ctx := r.Context()
	c, err := a.st.Client(ctx, id)
	if err != nil {
		return err
	}
	keys, err := a.st.ListKeys(ctx, id)
	if err != nil {
		return err
	}
	endpoints, err := a.st.Tenant(id).WebhookEndpoints(ctx, nil, page.MaxLimit)
	if err != nil {
		return err
	}
	health, err := a.st.EndpointsHealth(ctx, id, time.Now().Add(-24*time.Hour))
	if err != nil {
		return err
	}
	views := make([]endpointView, len(endpoints))
	for i, e := range endpoints {
		views[i] = endpointView{Endpoint: e, Health: health[e.ID]}
	}
	a.render(w, r, http.StatusOK, "client", map[string]any{
		"Client": c, "Keys": keys, "Issued": issued, "Endpoints": views,
		"Permissions": auth.Strings(auth.AllPermissions), "Granted": auth.Strings(c.Permissions),
		"Notice": doneNotice(r.URL.Query().Get("done")),
	})
	return nil
}

// doneNotice is the notice a redirect after a change asks for, when it is one of ours.
func doneNotice(done string) string {
	switch done {
	case "permissions", "disabled", "enabled", "revoked":
		return done
	}
	return ""
}

func (a *app) setPermissions(w http.ResponseWriter, r *http.Request, rs *reqState) error {
	id, err := uuid.Parse(r.PathValue("id"))
	if err != nil {
		return store.ErrNotFound
	}
	perms, err := permissionsFrom(r)
	if err != nil {
		return err
	}
	if _, err := a.st.As(a.actorOf(r, rs.op)).SetClientPermissions(r.Context(), id, perms); err != nil {
		return err
	}
	http.Redirect(w, r, "/clients/"+id.String()+"?done=permissions", http.StatusSeeOther)
	return nil
}

func (a *app) setDisabled(disabled bool) handler {
	return func(w http.ResponseWriter, r *http.Request, rs *reqState) error {
		id, err := uuid.Parse(r.PathValue("id"))
		if err != nil {
			return store.ErrNotFound
		}
		if _, err := a.st.As(a.actorOf(r, rs.op)).SetClientDisabled(r.Context(), id, disabled); err != nil {
			return err
		}
		done := "enabled"
		if disabled {
			done = "disabled"
		}
		http.Redirect(w, r, "/clients/"+id.String()+"?done="+done, http.StatusSeeOther)
		return nil
	}
}

// issueKey issues another key and shows its secret once (the response is not cached
// and the secret never appears in a URL).
func (a *app) issueKey(w http.ResponseWriter, r *http.Request, rs *reqState) error {
	id, err := uuid.Parse(r.PathValue("id"))
	if err != nil {
		return store.ErrNotFound
	}
	key, secret, err := a.st.As(a.actorOf(r, rs.op)).CreateKey(r.Context(), id)
	if err != nil {
		return err
	}
	return a.renderClient(w, r, id, &issuedKey{Key: key, Secret: secret})
}

func (a *app) revokeKey(w http.ResponseWriter, r *http.Request, rs *reqState) error {
	id, err := uuid.Parse(r.PathValue("id"))
	if err != nil {
		return store.ErrNotFound
	}
	keyID, err := uuid.Parse(r.PathValue("key"))
	if err != nil {
		return store.ErrNotFound
	}
	keys, err := a.st.ListKeys(r.Context(), id)
	if err != nil {
		return err
	}
	found := false
	for _, k := range keys {
		found = found || k.ID == keyID
	}
	if !found {
		return store.ErrNotFound
	}
	if _, err := a.st.As(a.actorOf(r, rs.op)).RevokeKey(r.Context(), keyID); err != nil {
		return err
	}
	http.Redirect(w, r, "/clients/"+id.String()+"?done=revoked", http.StatusSeeOther)
	return nil
}

const eventsPageSize = 50

// events is a client's event log, newest first, filterable by type and submission.
func (a *app) events(w http.ResponseWriter, r *http.Request, rs *reqState) error {
	id, err := uuid.Parse(r.PathValue("id"))
	if err != nil {
		return store.ErrNotFound
	}
	c, err := a.st.Client(r.Context(), id)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	f := store.EventFilter{Limit: eventsPageSize}
	if v := q.Get("type"); v != "" {
		f.Type = &v
	}
	if v := q.Get("submission"); v != "" {
		sid, err := uuid.Parse(v)
		if err != nil {
			return errBadInput
		}
		f.SubmissionID = &sid
	}
	if v := q.Get("cursor"); v != "" {
		if f.After, err = page.Decode(&v); err != nil {
			return errBadInput
		}
	}
	rows, err := a.st.Tenant(id).Events(r.Context(), f)
	if err != nil {
		return err
	}
	rows, next := page.Trim(rows, eventsPageSize, store.StoredEvent.Cursor)
	list := make([]eventView, 0, len(rows))
	for _, e := range rows {
		list = append(list, eventViewOf(e))
	}
	nextURL := nextPage("/clients/"+id.String()+"/events", q, next)
	a.render(w, r, http.StatusOK, "events", map[string]any{"Client": c, "Events": list, "Next": nextURL, "Filter": q})
	return nil
}

func (a *app) event(w http.ResponseWriter, r *http.Request, rs *reqState) error {
	client, event, err := eventPath(r)
	if err != nil {
		return err
	}
	return a.renderEvent(w, r, http.StatusOK, client, event, "")
}

// eventPath reads the client and event ids of /clients/{id}/events/{event}/…; a
// malformed one is not found.
func eventPath(r *http.Request) (client, event uuid.UUID, err error) {
	if client, err = uuid.Parse(r.PathValue("id")); err != nil {
		return client, event, store.ErrNotFound
	}
	if event, err = uuid.Parse(r.PathValue("event")); err != nil {
		return client, event, store.ErrNotFound
	}
	return client, event, nil
}

const auditPageSize = 50

// audit shows the audit log, newest first. It is read-only here and append-only in the
// database.
func (a *app) audit(w http.ResponseWriter, r *http.Request, rs *reqState) error {
	q := r.URL.Query()
	f := store.AuditFilter{Limit: auditPageSize + 1}
	if v := q.Get("action"); v != "" {
		f.Action = &v
	}
	if v := q.Get("cursor"); v != "" {
		var err error
		if f.After, err = page.Decode(&v); err != nil {
			return errBadInput
		}
	}
	entries, err := a.st.AuditLog(r.Context(), f)
	if err != nil {
		return err
	}
	entries, next := page.Trim(entries, auditPageSize, store.AuditEntry.Cursor)
	a.render(w, r, http.StatusOK, "audit", map[string]any{"Entries": entries, "Next": nextPage("/audit", q, next), "Filter": q})
	return nil
}
