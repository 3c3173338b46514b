package partnercli

import (
	"context"
	"fmt"
	"iter"

	"github.com/spf13/cobra"

	"github.com/doceval/doceval/gen/client"
	"github.com/doceval/doceval/pkg/sdk"
)

// eventTypes are the event types the API documents (EventType in openapi.yaml), for
// completion; a test keeps them in step with the spec. The API may add more.
var eventTypes = []string{
	string(client.EventTypeFileReady), string(client.EventTypeFileFailed),
	string(client.EventTypeDocumentSlotUpdated),
	string(client.EventTypeEvaluationStarted), string(client.EventTypeEvaluationProgress),
	string(client.EventTypeEvaluationCompleted), string(client.EventTypeEvaluationFailed),
	string(client.EventTypeEvaluationCanceled),
	string(client.EventTypeWebhookEndpointTest),
}

func (a *app) eventsCommand() *cobra.Command {
	cmd := a.group("events", "List, read and redeliver events, or follow the event feed",
		`Events are what webhooks deliver, kept for 30 days: 'list' reads them newest first,
'feed' oldest first from a position on (what 'doceval listen' follows).`, "event")
	cmd.AddCommand(a.eventsList(), a.eventsGet(), a.eventsRedeliver(), a.eventsFeed())
	return cmd
}

func (a *app) eventsList() *cobra.Command {
	var (
		list            listFlags
		typ, submission string
	)
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List events, newest first",
		Example: `  doceval events list --limit 5
  doceval events list --type evaluation.completed --submission 0190a1b2-… --json`,
		Args: exactArgs(0),
		RunE: listRunE(a, &list, func(ctx context.Context, _ []string, size *int) (iter.Seq2[*client.Event, error], error) {
			params := &client.ListEventsParams{Limit: size}
			if typ != "" {
				t := client.EventType(typ)
				params.Type = &t
			}
			if submission != "" {
				id, err := parseUUID("submission id", submission)
				if err != nil {
					return nil, err
				}
				params.SubmissionId = &id
			}
			return a.sdkClient.ListEvents(ctx, params), nil
		}, columns[client.Event]{
			id:     func(e *client.Event) string { return e.Id },
			header: []string{"ID", "TYPE", "CREATED", "SUMMARY"},
			row:    func(e *client.Event) []any { return []any{e.Id, string(e.Type), e.CreatedAt, summarizeData(e.Data)} },
		}),
	}
	cmd.Flags().StringVar(&typ, "type", "", "only events of this type, e.g. evaluation.completed")
	cmd.Flags().StringVar(&submission, "submission", "", "only events of this submission id")
	completeValues(cmd, "type", eventTypes...)
	list.register(cmd)
	return calls(cmd, "listEvents")
}

func (a *app) eventsGet() *cobra.Command {
	return calls(&cobra.Command{
		Use:     "get EVENT_ID",
		Short:   "Show an event with its deliveries and their attempts",
		Example: "  doceval events get evt_0190a1b2-…",
		Args:    exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c := a.sdkClient
			ev, err := receive[client.EventDetail](c.API().GetEvent(cmd.Context(), args[0]))
			if err != nil {
				return err
			}
			return a.printEventDetail(ev)
		},
	}, "getEvent")
}

// eventsRedeliver queues the event again for every subscribed endpoint.
func (a *app) eventsRedeliver() *cobra.Command {
	var endpoint, key string
	cmd := &cobra.Command{
		Use:   "redeliver EVENT_ID",
		Short: "Queue an event's failed deliveries again (or one endpoint's, whatever its state)",
		Example: `  doceval events redeliver evt_0190a1b2-…
  doceval events redeliver evt_0190a1b2-… --endpoint 0190a1b6-…`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var req client.RedeliverEventRequest
			if endpoint != "" {
				id, err := parseUUID("endpoint id", endpoint)
				if err != nil {
					return err
				}
				req.EndpointId = &id
			}
			c := a.sdkClient
			ev, err := receive[client.EventDetail](c.API().RedeliverEvent(cmd.Context(), args[0],
				&client.RedeliverEventParams{IdempotencyKey: optional(key)}, req))
			if err != nil {
				return err
			}
			return a.printEventDetail(ev)
		},
	}
	cmd.Flags().StringVar(&endpoint, "endpoint", "", "redeliver to this endpoint id only")
	idempotencyFlag(cmd, &key)
	return calls(cmd, "redeliverEvent")
}

// eventsFeed reads one page of the feed; `doceval listen` follows it for good.
func (a *app) eventsFeed() *cobra.Command {
	var (
		cursor    string
		fromStart bool
		wait      int
		limit     int
		types     []string
	)
	cmd := &cobra.Command{
		Use:   "feed",
		Short: "Read the event feed forward from a position (one page)",
		Long: `Reads the events after --cursor, oldest first, and the position to read on from
(next_cursor, never empty: printed last, and in --json). Without --cursor the feed starts
at its end (nothing yet) or, with --from-start, at the oldest event kept. --wait holds
the request up to that many seconds (at most 30) until an event arrives.`,
		Example: `  doceval events feed --from-start --json
  doceval events feed --cursor CURSOR --wait 25 --type evaluation.completed,evaluation.failed`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if limit < 1 {
				return usagef("events feed: --limit must be at least 1")
			}
			params := &client.ListEventFeedParams{Cursor: optional(cursor), Limit: &limit}
			if fromStart {
				params.FromStart = &fromStart
			}
			if wait > 0 {
				params.Wait = &wait
			}
			params.Type = feedTypes(types)
			c := a.sdkClient
			page, err := receive[client.EventFeed](c.API().ListEventFeed(cmd.Context(), sdk.FeedParamsForEveryServer(params)))
			if err != nil {
				return err
			}
			ids := make([]string, len(page.Data))
			for i, e := range page.Data {
				ids[i] = e.Id
			}
			return a.emit(page, ids, func() error {
				t := a.table("ID", "TYPE", "CREATED", "SUMMARY")
				for _, e := range page.Data {
					t.row(e.Id, string(e.Type), e.CreatedAt, summarizeData(e.Data))
				}
				if err := t.flush(); err != nil {
					return err
				}
				a.println("\nnext cursor: " + page.NextCursor)
				return nil
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&cursor, "cursor", "", "the next_cursor of the previous read")
	// --after is the flag's former name, as after is the API parameter's (listEventFeed).
	f.StringVar(&cursor, "after", "", "the next_cursor of the previous read")
	_ = f.MarkDeprecated("after", "use --cursor")
	f.BoolVar(&fromStart, "from-start", false, "without --cursor, start at the oldest event kept")
	f.IntVar(&wait, "wait", 0, "seconds to wait for an event when there is none yet (0 to 30)")
	f.IntVar(&limit, "limit", 50, "at most this many events (the API allows 100)")
	f.StringSliceVar(&types, "type", nil, "only events of these types (comma-separated or repeated)")
	completeValues(cmd, "type", eventTypes...)
	return calls(cmd, "listEventFeed")
}

// feedTypes is the feed's type filter; nil for all types.
func feedTypes(types []string) *[]client.EventType {
	var out []client.EventType
	for _, t := range types {
		for _, part := range splitList(t) {
			out = append(out, client.EventType(part))
		}
	}
	if len(out) == 0 {
		return nil
	}
	return &out
}

func (a *app) printEventDetail(ev *client.EventDetail) error {
	return a.emit(ev, []string{ev.Id}, func() error { return a.printEventDetailTable(ev) })
}

func (a *app) printEventDetailTable(ev *client.EventDetail) error {
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
