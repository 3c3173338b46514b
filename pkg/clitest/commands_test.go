package partnercli_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/doceval/doceval/gen/client"
	"github.com/doceval/doceval/pkg/document"
	"github.com/doceval/doceval/pkg/testkit/samplepdf"
	"github.com/doceval/doceval/services/doceval/partnercli"
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

// idsOf runs a command with -q and returns the ids it printed.
func idsOf(t *testing.T, api *realAPI, args ...string) []string {
	t.Helper()
	return strings.Fields(api.mustRun(t, append(args, "-q")...))
}

// The catalog: checks, data fields and document types share one set of commands.
func TestCatalogCommands(t *testing.T) {
	t.Parallel()
	api := newRealAPI(t)

	var check client.Check
	decode(t, api.mustRun(t, "checks", "create", "--title", "Employer named", "--prompt", "Does the payslip name the employer?",
		"--product-type", "personal_loan", "--json"), &check)
	if check.Key != "employer_named" || check.Builtin || len(check.ProductTypes) != 1 {
		t.Fatalf("created %+v", check)
	}
	if out := api.mustRun(t, "checks", "get", check.Id); !strings.Contains(out, "Employer named") || !strings.Contains(out, "prompt:") {
		t.Errorf("checks get:\n%s", out)
	}
	// --data is the body; a flag beside it sets its field over it.
	var updated client.Check
	decode(t, api.mustRun(t, "checks", "update", check.Id, "--data", `{"title":"ignored","description":"from data"}`, "--title", "Employer stated", "--json"), &updated)
	if updated.Title != "Employer stated" || updated.Description != "from data" || updated.Key != check.Key {
		t.Errorf("updated %+v", updated)
	}
	if ids := idsOf(t, api, "checks", "list", "--all"); !slices.Contains(ids, check.Id) || len(ids) < 2 {
		t.Errorf("checks list -q: %v", ids)
	}
	if out := api.mustRun(t, "checks", "delete", check.Id); !strings.Contains(out, "archived") {
		t.Errorf("checks delete: %s", out)
	}
	if ids := idsOf(t, api, "checks", "list", "--all"); slices.Contains(ids, check.Id) {
		t.Errorf("an archived check is still listed")
	}

	var field client.DataField
	decode(t, api.mustRun(t, "data-fields", "create", "--name", "Employer", "--prompt", "The employer", "--value-format", "date", "--json"), &field)
	var freeText client.DataField
	decode(t, api.mustRun(t, "data-fields", "update", field.Id, "--value-format", "", "--json"), &freeText)
	if field.ValueFormat == nil || freeText.ValueFormat != nil {
		t.Errorf("value format %v, then %v after --value-format \"\"", field.ValueFormat, freeText.ValueFormat)
	}
	if out := api.mustRun(t, "fields", "list", "--limit", "200"); !strings.Contains(out, "Employer") {
		t.Errorf("data-fields list (by its alias):\n%s", out)
	}

	created := strings.TrimSpace(api.mustRun(t, "document-types", "create", "--name", "Leasing contract", "--description", "signed", "-q"))
	var doc client.DocumentType
	decode(t, api.mustRun(t, "document-types", "get", created, "--json"), &doc)
	if doc.DisplayName != "Leasing contract" || doc.Description != "signed" {
		t.Errorf("document type %+v", doc)
	}
	// A builtin entry is read-only: the API's error, exit 1.
	builtin := idsOf(t, api, "document-types", "list", "--limit", "1")[0]
	if r := api.run(t, "document-types", "update", builtin, "--name", "x"); r.code != partnercli.ExitError || !strings.Contains(r.stderr, "422") {
		t.Errorf("updating a builtin: exit %d, %s", r.code, r.stderr)
	}
}

// Templates: create from catalog ids, rename (the revision read first), replace items,
// duplicate a builtin, archive.
func TestTemplateCommands(t *testing.T) {
	t.Parallel()
	api := newRealAPI(t)
	checks := idsOf(t, api, "checks", "list", "--limit", "2")
	fields := idsOf(t, api, "data-fields", "list", "--limit", "1")
	docs := idsOf(t, api, "document-types", "list", "--limit", "2")

	var tpl client.TemplateDetail
	decode(t, api.mustRun(t, "templates", "create", "--name", "Car loan", "--check", checks[0], "--data-field", fields[0],
		"--document-type", docs[0], "--document-type", docs[1], "--json"), &tpl)
	if tpl.Revision != 1 || len(tpl.CheckItems) != 1 || len(tpl.DataFieldItems) != 1 || len(tpl.DocumentRequirements) != 2 {
		t.Fatalf("created %+v", tpl)
	}
	var renamed client.TemplateDetail
	decode(t, api.mustRun(t, "templates", "update", tpl.Id, "--name", "Car loan v2", "--default", "--json"), &renamed)
	if renamed.DisplayName != "Car loan v2" || !renamed.IsDefault || renamed.Revision != 2 {
		t.Errorf("renamed %+v", renamed)
	}
	// A stale --revision is the API's 409 revision_mismatch.
	if r := api.run(t, "templates", "update", tpl.Id, "--name", "x", "--revision", "1"); r.code != partnercli.ExitError || !strings.Contains(r.stderr, "revision_mismatch") {
		t.Errorf("stale revision: exit %d, %s", r.code, r.stderr)
	}
	var replaced client.TemplateDetail
	decode(t, api.mustRun(t, "templates", "replace-checks", tpl.Id, "--check", checks[1], "--check", checks[0], "--json"), &replaced)
	if len(replaced.CheckItems) != 2 || replaced.CheckItems[0].CheckId != checks[1] {
		t.Errorf("replace-checks: %+v", replaced.CheckItems)
	}
	items := `[{"document_type_id":"` + docs[0] + `","required":false,"label":"Any ID"}]`
	decode(t, api.mustRun(t, "templates", "replace-documents", tpl.Id, "--items", items, "--json"), &replaced)
	if len(replaced.DocumentRequirements) != 1 || replaced.DocumentRequirements[0].Label != "Any ID" || replaced.DocumentRequirements[0].Required {
		t.Errorf("replace-documents: %+v", replaced.DocumentRequirements)
	}
	decode(t, api.mustRun(t, "templates", "replace-fields", tpl.Id, "--json"), &replaced)
	if len(replaced.DataFieldItems) != 0 {
		t.Errorf("replace-fields with no ids: %+v", replaced.DataFieldItems)
	}
	out := api.mustRun(t, "templates", "get", tpl.Id)
	for _, want := range []string{"Car loan v2", "document requirements:", "Any ID", "checks:", "data fields:"} {
		if !strings.Contains(out, want) {
			t.Errorf("templates get lacks %q:\n%s", want, out)
		}
	}

	builtin := idsOf(t, api, "templates", "list", "--limit", "1")[0]
	copied := strings.TrimSpace(api.mustRun(t, "templates", "duplicate", builtin, "--name", "Ours", "-q"))
	if copied == "" || copied == builtin {
		t.Fatalf("duplicate printed %q", copied)
	}
	if out := api.mustRun(t, "templates", "delete", copied); !strings.Contains(out, "archived") {
		t.Errorf("templates delete: %s", out)
	}
	if ids := idsOf(t, api, "templates", "list", "--all"); slices.Contains(ids, copied) || !slices.Contains(ids, tpl.Id) {
		t.Errorf("templates after delete: %v", ids)
	}
}

// Uploads: list, get, move into a slot and back, delete; upload --wait waits for
// processing and prints the ready upload.
func TestFileCommands(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	api := newRealAPI(t)
	var sub client.SubmissionDetail
	decode(t, api.mustRun(t, "submissions", "create", "--external-id", "files-1", "--json"), &sub)
	decode(t, api.mustRun(t, "submissions", "get", sub.Id.String(), "--json"), &sub)
	if len(sub.DocumentSlots) == 0 {
		t.Fatal("the default template has no document slots")
	}
	slot := sub.DocumentSlots[0].Id.String()
	pdf := filepath.Join(t.TempDir(), "payslip.pdf")
	if err := os.WriteFile(pdf, samplepdf.Text([][]string{{"Lohnabrechnung"}}), 0o600); err != nil {
		t.Fatal(err)
	}

	// --wait: the test plays the ingest worker while the command polls.
	stdout, stderr := &syncBuffer{}, &syncBuffer{}
	done := make(chan int, 1)
	go func() {
		done <- partnercli.Run(ctx, []string{"uploads", "upload", sub.Id.String(), pdf, "--slot", slot, "--wait", "--interval", "20ms", "--json"},
			partnercli.Streams{Stdout: stdout, Stderr: stderr}, api.env())
	}()
	var uploadID uuid.UUID
	waitFor(t, "the upload", func() bool {
		ids := idsOf(t, api, "files", "list", sub.Id.String())
		if len(ids) == 1 {
			uploadID = uuid.MustParse(ids[0])
		}
		return len(ids) == 1
	})
	if err := api.store.FinishIngest(ctx, uploadID, []document.Page{{Number: 1, Text: "Lohnabrechnung", Chars: 14}}, nil, nil); err != nil {
		t.Fatal(err)
	}
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("upload --wait: exit %d, stderr %s", code, stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("upload --wait did not return")
	}
	var up client.Upload
	decode(t, stdout.String(), &up)
	if up.UploadStatus != client.UploadStatusReady || up.DocumentSlotId == nil || up.DocumentSlotId.String() != slot {
		t.Errorf("upload --wait printed %+v", up)
	}
	// Not a terminal: plain status lines, no carriage returns.
	if !strings.Contains(stderr.String(), "payslip.pdf: ready") || strings.Contains(stderr.String(), "\r") {
		t.Errorf("upload --wait stderr %q", stderr.String())
	}

	if out := api.mustRun(t, "files", "get", sub.Id.String(), up.Id.String()); !strings.Contains(out, "ready") || !strings.Contains(out, slot) {
		t.Errorf("files get:\n%s", out)
	}
	var moved client.Upload
	decode(t, api.mustRun(t, "files", "move", sub.Id.String(), up.Id.String(), "--unassign", "--json"), &moved)
	if moved.DocumentSlotId != nil {
		t.Errorf("--unassign left slot %v", moved.DocumentSlotId)
	}
	if out := api.mustRun(t, "files", "get", sub.Id.String(), up.Id.String()); !regexp.MustCompile(`slot:\s+-`).MatchString(out) {
		t.Errorf("an unassigned upload's table:\n%s", out)
	}
	decode(t, api.mustRun(t, "files", "move", sub.Id.String(), up.Id.String(), "--slot", slot, "--json"), &moved)
	if moved.DocumentSlotId == nil || moved.DocumentSlotId.String() != slot {
		t.Errorf("--slot: %v", moved.DocumentSlotId)
	}
	if out := api.mustRun(t, "files", "delete", sub.Id.String(), up.Id.String()); !strings.Contains(out, "deleted") {
		t.Errorf("files delete: %s", out)
	}
	if ids := idsOf(t, api, "files", "list", sub.Id.String()); len(ids) != 0 {
		t.Errorf("files after delete: %v", ids)
	}
}

// Submission update replaces the metadata; list filters reach the API.
func TestSubmissionUpdateAndFilters(t *testing.T) {
	t.Parallel()
	api := newRealAPI(t)
	id := strings.TrimSpace(api.mustRun(t, "submissions", "create", "--external-id", "filter-a", "--metadata", `{"crm":"A-1"}`, "-q"))
	api.mustRun(t, "submissions", "create", "--external-id", "filter-b")
	var sub client.Submission
	decode(t, api.mustRun(t, "submissions", "update", id, "--metadata", `{"crm":"A-2","branch":"north"}`, "--json"), &sub)
	if sub.Metadata["crm"] != "A-2" || sub.Metadata["branch"] != "north" {
		t.Errorf("metadata %v", sub.Metadata)
	}
	if ids := idsOf(t, api, "submissions", "list", "--external-id", "filter-a"); len(ids) != 1 || ids[0] != id {
		t.Errorf("--external-id filter: %v", ids)
	}
	if ids := idsOf(t, api, "submissions", "list", "--created-after", "2000-01-01", "--created-before", time.Now().Add(time.Hour).Format(time.RFC3339)); len(ids) != 2 {
		t.Errorf("created range: %v", ids)
	}
	if ids := idsOf(t, api, "submissions", "list", "--created-after", time.Now().Add(time.Hour).Format(time.RFC3339)); len(ids) != 0 {
		t.Errorf("created in the future: %v", ids)
	}
	// The same --idempotency-key and body replays the first answer.
	first := api.mustRun(t, "checks", "create", "--title", "Once", "--prompt", "p", "--idempotency-key", "k-1", "-q")
	again := api.mustRun(t, "checks", "create", "--title", "Once", "--prompt", "p", "--idempotency-key", "k-1", "-q")
	if first != again {
		t.Errorf("idempotency key: %q then %q", first, again)
	}
}

// Webhook endpoints beyond create: get, update, test (and trigger), delete.
func TestWebhookEndpointCommands(t *testing.T) {
	t.Parallel()
	api := newRealAPI(t)
	// trigger without an endpoint says how to make one.
	if r := api.run(t, "trigger"); r.code != partnercli.ExitUsage || !strings.Contains(r.stderr, "webhooks create") {
		t.Errorf("trigger without endpoints: exit %d, %s", r.code, r.stderr)
	}
	id := strings.TrimSpace(api.mustRun(t, "webhooks", "create", "--url", "https://example.com/a", "--events", "file.ready", "-q"))
	var ep client.WebhookEndpoint
	decode(t, api.mustRun(t, "webhooks", "update", id, "--events", "all", "--status", "disabled", "--description", "paused", "--json"), &ep)
	if ep.Events != nil || ep.Status != client.Disabled || ep.Description != "paused" {
		t.Errorf("updated %+v", ep)
	}
	if out := api.mustRun(t, "webhooks", "get", id); !strings.Contains(out, "disabled") || !strings.Contains(out, "all") {
		t.Errorf("webhooks get:\n%s", out)
	}
	// A disabled endpoint gets no test event: the API's 422.
	if r := api.run(t, "webhooks", "test", id); r.code != partnercli.ExitError || !strings.Contains(r.stderr, "endpoint_id") {
		t.Errorf("test of a disabled endpoint: exit %d, %s", r.code, r.stderr)
	}
	api.mustRun(t, "webhooks", "update", id, "--status", "active")
	var ev client.EventDetail
	decode(t, api.mustRun(t, "trigger", "--json"), &ev)
	if ev.Type != client.EventTypeWebhookEndpointTest || len(ev.Deliveries) != 1 || ev.Deliveries[0].EndpointId.String() != id {
		t.Errorf("trigger (the only endpoint): %+v", ev)
	}
	if out := api.mustRun(t, "webhooks", "test", id); !strings.Contains(out, "webhook_endpoint.test") || !strings.Contains(out, "https://example.com/a") {
		t.Errorf("webhooks test:\n%s", out)
	}
	api.mustRun(t, "webhooks", "create", "--url", "https://example.com/b")
	if r := api.run(t, "trigger"); r.code != partnercli.ExitUsage || !strings.Contains(r.stderr, "more than one") {
		t.Errorf("trigger with two endpoints: exit %d, %s", r.code, r.stderr)
	}
	if out := api.mustRun(t, "webhooks", "delete", id, "--json"); !strings.Contains(out, `"deleted": true`) {
		t.Errorf("webhooks delete --json: %s", out)
	}
	if ids := idsOf(t, api, "webhooks", "list"); len(ids) != 1 || ids[0] == id {
		t.Errorf("endpoints after delete: %v", ids)
	}
}

// `events feed` reads forward page by page (--limit at most, --wait long polling, since
// an event shows once every older transaction ended) and prints where to continue.
func TestEventsFeedCommand(t *testing.T) {
	t.Parallel()
	api := newRealAPI(t)
	if ids := idsOf(t, api, "events", "feed"); len(ids) != 0 {
		t.Errorf("a feed read without --after starts at the end, not at %v", ids)
	}
	api.emit(t, "file.ready", 3)
	var seen []string
	cursor := ""
	for len(seen) < 3 {
		args := []string{"events", "feed", "--limit", "2", "--wait", "10", "--json", "--from-start"}
		if cursor != "" {
			args = append(args[:len(args)-1], "--cursor", cursor)
		}
		var page client.EventFeed
		decode(t, api.mustRun(t, args...), &page)
		if len(page.Data) == 0 || len(page.Data) > 2 || page.NextCursor == "" {
			t.Fatalf("page after %q: %+v", cursor, page)
		}
		for _, e := range page.Data {
			seen = append(seen, e.Id)
		}
		cursor = page.NextCursor
	}
	if len(seen) != 3 {
		t.Errorf("read %v", seen)
	}
	api.emit(t, "file.ready", 1)
	api.emit(t, "file.failed", 1)
	out := api.mustRun(t, "events", "feed", "--after", cursor, "--type", "file.failed,evaluation.failed", "--wait", "10")
	if strings.Count(out, "file.failed") != 1 || strings.Contains(out, "file.ready") || !strings.Contains(out, "next cursor: ") {
		t.Errorf("filtered page:\n%s", out)
	}
}

// `api` sends any request with the credentials and prints the answer.
func TestAPICommand(t *testing.T) {
	t.Parallel()
	api := newRealAPI(t)
	var list struct {
		Data []client.Template `json:"data"`
	}
	decode(t, api.mustRun(t, "api", "GET", "/v1/templates", "--query", "limit=1"), &list)
	if len(list.Data) != 1 {
		t.Errorf("GET /v1/templates?limit=1: %+v", list)
	}
	var sub client.Submission
	decode(t, runCLI(api.env(), `{"external_submission_id":"via-api"}`, "api", "post", "v1/submissions", "--data", "-").stdout, &sub)
	if sub.ExternalSubmissionId != "via-api" {
		t.Errorf("POST from stdin: %+v", sub)
	}
	r := api.run(t, "api", "GET", "/v1/submissions/"+uuid.NewString(), "--include")
	if r.code != partnercli.ExitError || !strings.Contains(r.stdout, "404 Not Found") || !strings.Contains(r.stdout, `"not_found"`) {
		t.Errorf("a 404: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}
