package partnercli

import (
	"context"
	"strings"

	"github.com/doceval/doceval/gen/client"
)

func init() {
	groups["webhooks"] = group{summary: "manage webhook endpoints", cmds: map[string]command{
		"create": webhooksCreate,
		"list":   webhooksList,
		"rotate": webhooksRotate,
	}}
}

// webhooksCreate registers an endpoint. The signing secret is shown only in this
// answer, so the table says so.
func webhooksCreate(ctx context.Context, a *app, args []string) error {
	fs := a.newFlagSet("webhooks create")
	url := fs.String("url", "", "HTTPS URL receiving deliveries (required)")
	eventList := fs.String("events", "", "comma-separated event types (default: all)")
	description := fs.String("description", "", "a note for people")
	if _, err := positionals(fs, args); err != nil {
		return err
	}
	if *url == "" {
		return usagef("webhooks create: --url is required")
	}
	req := client.CreateWebhookEndpointRequest{Url: *url}
	if *description != "" {
		req.Description = description
	}
	if *eventList != "" {
		var types []client.EventType
		for t := range strings.SplitSeq(*eventList, ",") {
			if t = strings.TrimSpace(t); t != "" {
				types = append(types, client.EventType(t))
			}
		}
		req.Events = &types
	}
	c, err := a.client()
	if err != nil {
		return err
	}
	ep, err := receive[client.WebhookEndpointWithSecret](c.API().CreateWebhookEndpoint(ctx, nil, req))
	if err != nil {
		return err
	}
	if a.opts.json {
		return a.printJSON(ep)
	}
	if err := a.details("id", ep.Id.String(), "url", ep.Url, "events", eventsColumn(ep.Events), "status", string(ep.Status),
		"signing secret", ep.SigningSecret); err != nil {
		return err
	}
	a.println("\nStore the signing secret now: it is not shown again.")
	return nil
}

func webhooksList(ctx context.Context, a *app, args []string) error {
	fs := a.newFlagSet("webhooks list")
	if _, err := positionals(fs, args); err != nil {
		return err
	}
	c, err := a.client()
	if err != nil {
		return err
	}
	eps, err := collect(c.ListWebhookEndpoints(ctx, nil), 0)
	if err != nil {
		return err
	}
	if a.opts.json {
		return a.printJSON(eps)
	}
	t := a.table("ID", "URL", "STATUS", "EVENTS", "CREATED")
	for _, ep := range eps {
		t.row(ep.Id.String(), ep.Url, string(ep.Status), eventsColumn(ep.Events), ep.CreatedAt)
	}
	return t.flush()
}

// webhooksRotate replaces the signing secret; the old one keeps signing alongside the
// new one until previous_secret_expires_at, so receivers can switch without gaps.
func webhooksRotate(ctx context.Context, a *app, args []string) error {
	c, id, err := a.clientForID(a.newFlagSet("webhooks rotate"), args, "endpoint_id")
	if err != nil {
		return err
	}
	rot, err := receive[client.SecretRotation](c.API().RotateWebhookEndpointSecret(ctx, id, nil))
	if err != nil {
		return err
	}
	if a.opts.json {
		return a.printJSON(rot)
	}
	return a.details("endpoint", id.String(), "signing secret", rot.SigningSecret, "previous secret expires", rot.PreviousSecretExpiresAt)
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
