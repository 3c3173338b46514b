package partnercli_test

import (
	"strings"
	"testing"

	"github.com/doceval/doceval/gen/client"
)

// The remaining submission commands, table and JSON.
func TestSubmissionsListGetCancelDelete(t *testing.T) {
	t.Parallel()
	api := newRealAPI(t)
	var a, b client.Submission
	decode(t, api.mustRun(t, "submissions", "create", "--external-id", "list-a", "--json"), &a)
	decode(t, api.mustRun(t, "submissions", "create", "--external-id", "list-b", "--json"), &b)

	table := api.mustRun(t, "submissions", "list")
	if !strings.Contains(table, "EXTERNAL ID") || !strings.Contains(table, "list-a") || !strings.Contains(table, "list-b") {
		t.Errorf("list table:\n%s", table)
	}
	var one []client.SubmissionSummary
	decode(t, api.mustRun(t, "submissions", "list", "--limit", "1", "--json"), &one)
	if len(one) != 1 {
		t.Errorf("--limit 1 printed %d", len(one))
	}

	if out := api.mustRun(t, "submissions", "get", a.Id.String()); !strings.Contains(out, "list-a") {
		t.Errorf("get:\n%s", out)
	}
	var canceled client.Submission
	decode(t, api.mustRun(t, "submissions", "cancel", a.Id.String(), "--json"), &canceled)
	if canceled.Status != client.SubmissionStatusCanceled {
		t.Errorf("cancel: %+v", canceled)
	}
	var none []client.SubmissionSummary
	decode(t, api.mustRun(t, "submissions", "list", "--status", "canceled", "--json"), &none)
	if len(none) != 1 || none[0].Id != a.Id {
		t.Errorf("--status canceled: %+v", none)
	}

	if out := api.mustRun(t, "submissions", "delete", b.Id.String()); !strings.Contains(out, "accepted") {
		t.Errorf("delete: %s", out)
	}
}

// Webhook endpoints: the secret is shown at creation and on rotation.
func TestWebhooks(t *testing.T) {
	t.Parallel()
	api := newRealAPI(t)
	var ep client.WebhookEndpointWithSecret
	decode(t, api.mustRun(t, "webhooks", "create", "--url", "https://example.com/hooks", "--events", "evaluation.completed, evaluation.failed", "--json"), &ep)
	if ep.SigningSecret == "" || ep.Events == nil || len(*ep.Events) != 2 {
		t.Fatalf("created %+v", ep)
	}
	table := api.mustRun(t, "webhooks", "create", "--url", "https://example.com/other")
	if !strings.Contains(table, "signing secret") || !strings.Contains(table, "not shown again") {
		t.Errorf("create table:\n%s", table)
	}
	if out := api.mustRun(t, "webhooks", "list"); !strings.Contains(out, "https://example.com/hooks") || !strings.Contains(out, "evaluation.completed,evaluation.failed") {
		t.Errorf("list:\n%s", out)
	}
	var rot client.SecretRotation
	decode(t, api.mustRun(t, "webhooks", "rotate", ep.Id.String(), "--json"), &rot)
	if rot.SigningSecret == "" || rot.SigningSecret == ep.SigningSecret {
		t.Errorf("rotation: %+v", rot)
	}
}

func TestTemplates(t *testing.T) {
	t.Parallel()
	api := newRealAPI(t)
	var tpls []client.Template
	decode(t, api.mustRun(t, "templates", "list", "--json"), &tpls)
	if len(tpls) == 0 {
		t.Fatal("no templates")
	}
	if out := api.mustRun(t, "templates", "list"); !strings.Contains(out, tpls[0].Id) {
		t.Errorf("list table:\n%s", out)
	}
	out := api.mustRun(t, "templates", "get", tpls[0].Id)
	if !strings.Contains(out, tpls[0].DisplayName) || !strings.Contains(out, "checks:") {
		t.Errorf("get:\n%s", out)
	}
	var detail client.TemplateDetail
	decode(t, api.mustRun(t, "templates", "get", tpls[0].Id, "--json"), &detail)
	if detail.Id != tpls[0].Id {
		t.Errorf("get --json: %+v", detail)
	}
}
