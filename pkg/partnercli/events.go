package partnercli

import (
	"context"
	"fmt"

	"github.com/doceval/doceval/gen/client"
)

func init() {
	groups["events"] = group{summary: "list, inspect and redeliver webhook events", cmds: map[string]command{
		"list":      eventsList,
		"get":       eventsGet,
		"redeliver": eventsRedeliver,
	}}
}

func eventsList(ctx context.Context, a *app, args []string) error {
	fs := a.newFlagSet("events list")
	typ := fs.String("type", "", "only events of this type, e.g. evaluation.completed")
	submission := fs.String("submission", "", "only events of this submission id")
	limit := fs.Int("limit", 50, "print at most this many (0: all)")
	if _, err := positionals(fs, args); err != nil {
		return err
	}
	if *limit < 0 {
		return usagef("events list: --limit must not be negative")
	}
	params := &client.ListEventsParams{Limit: pageSize(*limit)}
	if *typ != "" {
		t := client.EventType(*typ)
		params.Type = &t
	}
	if *submission != "" {
		id, err := parseUUID("submission id", *submission)
		if err != nil {
			return err
		}
		params.SubmissionId = &id
	}
	c, err := a.client()
	if err != nil {
		return err
	}
	evs, err := collect(c.ListEvents(ctx, params), *limit)
	if err != nil {
		return err
	}
	if a.opts.json {
		return a.printJSON(evs)
	}
	t := a.table("ID", "TYPE", "CREATED", "SUMMARY")
	for _, ev := range evs {
		t.row(ev.Id, string(ev.Type), ev.CreatedAt, summarizeData(ev.Data))
	}
	return t.flush()
}

func eventsGet(ctx context.Context, a *app, args []string) error {
	fs := a.newFlagSet("events get")
	pos, err := positionals(fs, args, "event_id")
	if err != nil {
		return err
	}
	c, err := a.client()
	if err != nil {
		return err
	}
	ev, err := receive[client.EventDetail](c.API().GetEvent(ctx, pos[0]))
	if err != nil {
		return err
	}
	return a.printEventDetail(ev)
}

// eventsRedeliver queues the event again for every subscribed endpoint.
func eventsRedeliver(ctx context.Context, a *app, args []string) error {
	fs := a.newFlagSet("events redeliver")
	endpoint := fs.String("endpoint", "", "redeliver to this endpoint id only")
	pos, err := positionals(fs, args, "event_id")
	if err != nil {
		return err
	}
	var body client.RedeliverEventRequest
	if *endpoint != "" {
		id, err := parseUUID("endpoint id", *endpoint)
		if err != nil {
			return err
		}
		body.EndpointId = &id
	}
	c, err := a.client()
	if err != nil {
		return err
	}
	ev, err := receive[client.EventDetail](c.API().RedeliverEvent(ctx, pos[0], nil, body))
	if err != nil {
		return err
	}
	return a.printEventDetail(ev)
}

func (a *app) printEventDetail(ev *client.EventDetail) error {
	if a.opts.json {
		return a.printJSON(ev)
	}
	if err := a.details("id", ev.Id, "type", string(ev.Type), "created", ev.CreatedAt, "summary", summarizeData(ev.Data)); err != nil {
		return err
	}
	a.println("\ndeliveries:")
	t := a.table("ENDPOINT", "URL", "STATUS", "ATTEMPTS", "LAST ATTEMPT", "NEXT RETRY")
	for _, d := range ev.Deliveries {
		t.row(d.EndpointId.String(), d.EndpointUrl, string(d.DeliveryStatus), d.AttemptCount, d.LastAttemptedAt, d.NextRetryAt)
	}
	return t.flush()
}

// summarizeData is the one line a person needs to recognise an event: the
// submission, evaluation or upload it is about and its state.
func summarizeData(data map[string]any) string {
	if ev, ok := data["evaluation"].(map[string]any); ok {
		return fmt.Sprintf("evaluation %v %v %v%% (submission %v)", ev["id"], ev["status"], ev["progress_percent"], firstOf(ev, "external_submission_id", "submission_id"))
	}
	if up, ok := data["upload"].(map[string]any); ok {
		return fmt.Sprintf("upload %v %v %v", up["external_file_id"], up["filename"], up["upload_status"])
	}
	if slot, ok := data["document_slot"].(map[string]any); ok {
		return fmt.Sprintf("document slot %v %v", slot["id"], slot["status"])
	}
	return ""
}

func firstOf(m map[string]any, keys ...string) any {
	for _, k := range keys {
		if v, ok := m[k]; ok && v != nil && v != "" {
			return v
		}
	}
	return "-"
}
