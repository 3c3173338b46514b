package console

import (
	"net/http"
	"slices"

	"github.com/google/uuid"

	"github.com/doceval/doceval/pkg/store"
)

// redeliverable are the delivery statuses the Redeliver button requeues without an
// endpoint: redeliverEvent's "every non-succeeded delivery".
var redeliverable = []string{"failed_retryable", "failed_permanent", "abandoned"}

// renderEvent shows client's event eventID with its deliveries, and problem (a message
// key) above them when a redelivery found nothing to requeue.
func (a *app) renderEvent(w http.ResponseWriter, r *http.Request, status int, client, eventID uuid.UUID, problem string) error {
	c, err := a.st.Client(r.Context(), client)
	if err != nil {
		return err
	}
	e, err := a.st.Tenant(client).Event(r.Context(), eventID)
	if err != nil {
		return err
	}
	deliveries, err := a.st.EventDeliveries(r.Context(), eventID)
	if err != nil {
		return err
	}
	failed := slices.ContainsFunc(deliveries, func(d store.Delivery) bool { return slices.Contains(redeliverable, d.Status) })
	notice := ""
	if r.URL.Query().Get("done") == "redelivered" {
		notice = "redelivered"
	}
	a.render(w, r, status, "event", map[string]any{
		"Client": c, "Event": eventViewOf(e), "Envelope": e.Envelope, "Deliveries": deliveries,
		"Redeliverable": failed, "Notice": notice, "Problem": problem,
	})
	return nil
}

// redeliver requeues an event's deliveries as the API's redeliverEvent does, through
// the same store call: without endpoint_id every failed, permanently failed or
// abandoned one, with it that endpoint's whatever its state. The console's events are
// the admins' (the API asks for events:write); the requeue is written to the audit log
// (event.redeliver). Nothing to requeue answers 422 with the event page, as
// redeliverEvent answers invalid_field.
func (a *app) redeliver(w http.ResponseWriter, r *http.Request, rs *reqState) error {
	id, eventID, err := eventPath(r)
	if err != nil {
		return err
	}
	var endpoint *uuid.UUID
	if v := r.PostFormValue("endpoint_id"); v != "" {
		ep, err := uuid.Parse(v)
		if err != nil {
			return errBadInput
		}
		endpoint = &ep
	}
	// The event must be the client's: another client's event is not found.
	if _, err := a.st.Tenant(id).Event(r.Context(), eventID); err != nil {
		return err
	}
	n, err := a.st.As(a.actorOf(r, rs.op)).Redeliver(r.Context(), eventID, endpoint)
	if err != nil {
		return err
	}
	if n == 0 {
		problem := "events.nothing_to_redeliver"
		if endpoint != nil {
			problem = "events.no_delivery_to_endpoint"
		}
		return a.renderEvent(w, r, http.StatusUnprocessableEntity, id, eventID, problem)
	}
	http.Redirect(w, r, "/clients/"+id.String()+"/events/"+eventID.String()+"?done=redelivered", http.StatusSeeOther)
	return nil
}
