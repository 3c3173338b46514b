package partnercli

import (
	"context"
	"fmt"
	"iter"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/spf13/cobra"

	"github.com/doceval/doceval/gen/client"
	"github.com/doceval/doceval/pkg/sdk"
)

func (a *app) webhooksCommand() *cobra.Command {
	cmd := a.group("webhooks", "Manage webhook endpoints: create, list, change, rotate the secret, test; sign and verify deliveries",
		`Webhook endpoints receive events as signed POSTs (X-Service-Signature and the Standard
Webhooks headers webhook-id, webhook-timestamp, webhook-signature). The signing secret is
shown when an endpoint is created and when it is rotated, never again. 'sign' and 'verify'
work offline: they sign a body as a delivery, or check a received one.`,
		"webhook", "webhook-endpoints")
	cmd.AddCommand(a.webhooksList(), a.webhooksGet(), a.webhooksCreate(), a.webhooksUpdate(), a.webhooksDelete(),
		a.webhooksRotate(), a.webhooksTest("test", "webhooks test"), a.webhooksSign(), a.webhooksVerify())
	return cmd
}

func (a *app) webhooksList() *cobra.Command {
	var list listFlags
	cmd := &cobra.Command{
		Use:     "list",
		Short:   "List webhook endpoints",
		Example: "  doceval webhooks list\n  doceval webhooks list -q",
		Args:    exactArgs(0),
		RunE: listRunE(a, &list,
			func(ctx context.Context, _ []string, size *int) (iter.Seq2[*client.WebhookEndpoint, error], error) {
				return a.sdkClient.ListWebhookEndpoints(ctx, &client.ListWebhookEndpointsParams{Limit: size}), nil
			},
			columns[client.WebhookEndpoint]{
				id:     func(e *client.WebhookEndpoint) string { return e.Id.String() },
				header: []string{"ID", "URL", "STATUS", "EVENTS", "CREATED"},
				row: func(e *client.WebhookEndpoint) []any {
					return []any{e.Id.String(), e.Url, string(e.Status), eventsColumn(e.Events), e.CreatedAt}
				},
			}),
	}
	list.register(cmd)
	return calls(cmd, "listWebhookEndpoints")
}

func (a *app) webhooksGet() *cobra.Command {
	return calls(&cobra.Command{
		Use:     "get ENDPOINT_ID",
		Short:   "Show a webhook endpoint",
		Example: "  doceval webhooks get 0190a1b6-…",
		Args:    uuidArgs("endpoint id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id := uuidAt(args, 0)
			c := a.sdkClient
			ep, err := receive[client.WebhookEndpoint](c.API().GetWebhookEndpoint(cmd.Context(), id))
			if err != nil {
				return err
			}
			return a.printEndpoint(ep)
		},
	}, "getWebhookEndpoint")
}

func (a *app) printEndpoint(ep *client.WebhookEndpoint) error {
	return a.emit(ep, []string{ep.Id.String()}, func() error {
		return a.details("id", ep.Id.String(), "url", ep.Url, "events", eventsColumn(ep.Events), "status", string(ep.Status),
			"description", ep.Description, "created", ep.CreatedAt)
	})
}

// webhooksCreate registers an endpoint. The signing secret is shown only in this
// answer, so the table says so.
func (a *app) webhooksCreate() *cobra.Command {
	var url, events, description, data, key string
	cmd := &cobra.Command{
		Use:   "create --url URL",
		Short: "Register a webhook endpoint and show its signing secret",
		Example: `  doceval webhooks create --url https://crm.example/hooks/doceval
  doceval webhooks create --url https://crm.example/hooks --events evaluation.completed,evaluation.failed --json`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			b, err := a.newBody(cmd, data)
			if err != nil {
				return err
			}
			b.set("url", "url", url)
			b.set("description", "description", description)
			if events != "" && events != "all" {
				b.set("events", "events", splitList(events))
			}
			if err := b.require("url", "url"); err != nil {
				return err
			}
			c := a.sdkClient
			ep, err := receive[client.WebhookEndpointWithSecret](c.API().CreateWebhookEndpointWithBody(cmd.Context(),
				&client.CreateWebhookEndpointParams{IdempotencyKey: optional(key)}, jsonContentType, b.reader()))
			if err != nil {
				return err
			}
			return a.emit(ep, []string{ep.Id.String()}, func() error {
				if err := a.details("id", ep.Id.String(), "url", ep.Url, "events", eventsColumn(ep.Events), "status", string(ep.Status),
					"signing secret", ep.SigningSecret); err != nil {
					return err
				}
				a.println("\nStore the signing secret now: it is not shown again.")
				return nil
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&url, "url", "", "HTTPS URL receiving deliveries (http only for localhost)")
	f.StringVar(&events, "events", "", "comma-separated event types (default: all, also future ones)")
	f.StringVar(&description, "description", "", "a note for people")
	completeValues(cmd, "events", eventTypes...)
	dataFlag(cmd, &data)
	idempotencyFlag(cmd, &key)
	return calls(cmd, "createWebhookEndpoint")
}

func (a *app) webhooksUpdate() *cobra.Command {
	var url, events, description, status, data string
	cmd := &cobra.Command{
		Use:   "update ENDPOINT_ID",
		Short: "Change an endpoint's URL, events, description or status",
		Long: `Changes what is given; the rest stays. --events all receives every type, also future
ones. A disabled endpoint gets nothing, and events emitted meanwhile never reach it.`,
		Example: `  doceval webhooks update 0190a1b6-… --status disabled
  doceval webhooks update 0190a1b6-… --events all --url https://crm.example/hooks/v2`,
		Args: uuidArgs("endpoint id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id := uuidAt(args, 0)
			b, err := a.newBody(cmd, data)
			if err != nil {
				return err
			}
			b.set("url", "url", url)
			b.set("description", "description", description)
			b.set("status", "status", status)
			if events == "all" {
				b.set("events", "events", nil)
			} else {
				b.set("events", "events", splitList(events))
			}
			if b.empty() {
				return usagef("webhooks update: nothing to change; give a flag or --data")
			}
			c := a.sdkClient
			ep, err := receive[client.WebhookEndpoint](c.API().UpdateWebhookEndpointWithBody(cmd.Context(), id, jsonContentType, b.reader()))
			if err != nil {
				return err
			}
			return a.printEndpoint(ep)
		},
	}
	f := cmd.Flags()
	f.StringVar(&url, "url", "", "new URL (the secret stays)")
	f.StringVar(&events, "events", "", `comma-separated event types, or "all"`)
	f.StringVar(&description, "description", "", "a note for people")
	f.StringVar(&status, "status", "", "active or disabled")
	completeValues(cmd, "status", string(client.Active), string(client.Disabled))
	completeValues(cmd, "events", append([]string{"all"}, eventTypes...)...)
	dataFlag(cmd, &data)
	return calls(cmd, "updateWebhookEndpoint")
}

func (a *app) webhooksDelete() *cobra.Command {
	return calls(&cobra.Command{
		Use:     "delete ENDPOINT_ID",
		Short:   "Delete a webhook endpoint (its past deliveries stay readable)",
		Example: "  doceval webhooks delete 0190a1b6-…",
		Args:    uuidArgs("endpoint id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id := uuidAt(args, 0)
			c := a.sdkClient
			if err := c.DeleteWebhookEndpoint(cmd.Context(), id); err != nil {
				return err
			}
			return a.done(id.String(), "deleted", "webhook endpoint "+id.String()+" deleted")
		},
	}, "deleteWebhookEndpoint")
}

// webhooksRotate replaces the signing secret; the old one keeps signing alongside the
// new one until previous_secret_expires_at, so receivers can switch without gaps.
func (a *app) webhooksRotate() *cobra.Command {
	var key string
	cmd := &cobra.Command{
		Use:     "rotate-secret ENDPOINT_ID",
		Aliases: []string{"rotate"},
		Short:   "Issue a new signing secret (the old one signs too for 24 h)",
		Example: "  doceval webhooks rotate-secret 0190a1b6-…",
		Args:    uuidArgs("endpoint id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id := uuidAt(args, 0)
			c := a.sdkClient
			rot, err := receive[client.SecretRotation](c.API().RotateWebhookEndpointSecret(cmd.Context(), id,
				&client.RotateWebhookEndpointSecretParams{IdempotencyKey: optional(key)}))
			if err != nil {
				return err
			}
			return a.emit(rot, []string{id.String()}, func() error {
				return a.details("endpoint", id.String(), "signing secret", rot.SigningSecret, "previous secret expires", rot.PreviousSecretExpiresAt)
			})
		},
	}
	idempotencyFlag(cmd, &key)
	return calls(cmd, "rotateWebhookEndpointSecret")
}

// webhooksTest sends a signed webhook_endpoint.test event to one endpoint. Without an
// id it picks the account's only endpoint.
func (a *app) webhooksTest(use, path string) *cobra.Command {
	var test testFlags
	cmd := &cobra.Command{
		Use:   use + " [ENDPOINT_ID]",
		Short: "Send a signed test event (webhook_endpoint.test) to a webhook endpoint",
		Long: `Sends a webhook_endpoint.test event to one endpoint only, signed like every delivery,
to check a receiver. Without ENDPOINT_ID the account's only endpoint is used. --wait
waits for the first delivery attempt and exits 1 unless the receiver acknowledged it.`,
		Example: fmt.Sprintf(`  doceval %[1]s
  doceval %[1]s 0190a1b6-… --wait`, path),
		Args: maxArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return a.sendTestEvent(cmd.Context(), args, test) },
	}
	test.register(cmd)
	return calls(cmd, "testWebhookEndpoint")
}

// testFlags are --wait, --timeout and --idempotency-key of the commands that send a
// test event.
type testFlags struct {
	key     string
	wait    bool
	timeout time.Duration
}

func (f *testFlags) register(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&f.wait, "wait", false, "wait for the first delivery attempt and show it")
	cmd.Flags().DurationVar(&f.timeout, "timeout", time.Minute, "how long to wait with --wait")
	idempotencyFlag(cmd, &f.key)
}

// sendTestEvent sends webhook_endpoint.test to the endpoint in args, else the only one
// (testWebhookEndpoint), and shows it or, with --wait, its first delivery attempt.
func (a *app) sendTestEvent(ctx context.Context, args []string, f testFlags) error {
	c := a.sdkClient
	id, err := a.endpointArg(ctx, c, args)
	if err != nil {
		return err
	}
	ev, err := receive[client.EventDetail](c.API().TestWebhookEndpoint(ctx, id,
		&client.TestWebhookEndpointParams{IdempotencyKey: optional(f.key)}))
	if err != nil {
		return err
	}
	return a.showSent(ctx, c, ev, f)
}

// showSent prints an event just sent or, with --wait, its first delivery attempt.
func (a *app) showSent(ctx context.Context, c *sdk.Client, ev *client.EventDetail, f testFlags) error {
	if !f.wait {
		return a.printEventDetail(ev)
	}
	return a.waitForDelivery(ctx, c, ev.Id, f.timeout)
}

// endpointArg is the endpoint named on the command line, else the only one there is.
func (a *app) endpointArg(ctx context.Context, c *sdk.Client, args []string) (uuid.UUID, error) {
	if len(args) == 1 {
		return parseUUID("endpoint id", args[0])
	}
	eps, err := collect(c.ListWebhookEndpoints(ctx, nil), 2)
	if err != nil {
		return uuid.Nil, err
	}
	switch len(eps) {
	case 0:
		return uuid.Nil, usagef("no webhook endpoint yet: create one with `doceval webhooks create --url URL`")
	case 1:
		return eps[0].Id, nil
	default:
		return uuid.Nil, usagef("more than one webhook endpoint: name one (`doceval webhooks list`)")
	}
}

// waitForDelivery polls the event until its delivery was attempted, prints it and
// fails unless the receiver acknowledged it.
func (a *app) waitForDelivery(ctx context.Context, c *sdk.Client, eventID string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for {
		ev, err := receive[client.EventDetail](c.API().GetEvent(ctx, eventID))
		if err != nil {
			return err
		}
		if len(ev.Deliveries) > 0 && ev.Deliveries[0].AttemptCount > 0 {
			if err := a.printEventDetail(ev); err != nil {
				return err
			}
			if d := ev.Deliveries[0]; d.DeliveryStatus != client.DeliveryStatusSucceeded {
				return fmt.Errorf("the test delivery to %s was not acknowledged (%s)", d.EndpointUrl, d.DeliveryStatus)
			}
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("no delivery attempt of %s within %s", eventID, timeout)
		case <-time.After(time.Second):
		}
	}
}

func eventsColumn(types *[]client.EventType) string {
	if types == nil || len(*types) == 0 {
		return "all"
	}
	s := make([]string, len(*types))
	for i, t := range *types {
		s[i] = string(t)
	}
	return strings.Join(s, ",")
}
