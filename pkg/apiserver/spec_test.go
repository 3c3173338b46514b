package apiserver_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/doceval/doceval/gen/api"
	"github.com/doceval/doceval/pkg/apierr"
	"github.com/doceval/doceval/pkg/httpx"
)

// contractRoutes is every method and path the interface defines, with
// {family} expanded to the three catalog families.
var contractRoutes = func() []string {
	routes := []string{
		"GET /v1/templates", "POST /v1/templates",
		"GET /v1/templates/{template_id}", "PATCH /v1/templates/{template_id}", "DELETE /v1/templates/{template_id}",
		"POST /v1/templates/{template_id}/duplicate",
		"PUT /v1/templates/{template_id}/document_requirements",
		"PUT /v1/templates/{template_id}/check_items",
		"PUT /v1/templates/{template_id}/data_field_items",
		"GET /v1/submissions", "POST /v1/submissions",
		"GET /v1/submissions/{submission_id}", "PATCH /v1/submissions/{submission_id}", "DELETE /v1/submissions/{submission_id}",
		"POST /v1/submissions/{submission_id}/cancel",
		"GET /v1/submissions/{submission_id}/files", "POST /v1/submissions/{submission_id}/files",
		"POST /v1/submissions/{submission_id}/document-slots/{slot_id}/files",
		"GET /v1/submissions/{submission_id}/files/{upload_id}",
		"PATCH /v1/submissions/{submission_id}/files/{upload_id}",
		"DELETE /v1/submissions/{submission_id}/files/{upload_id}",
		"POST /v1/submissions/{submission_id}/evaluations",
		"GET /v1/submissions/{submission_id}/evaluations/{evaluation_id}",
		"GET /v1/events", "GET /v1/events/{event_id}", "POST /v1/events/{event_id}/redeliver",
		"GET /v1/webhook_endpoints", "POST /v1/webhook_endpoints",
		"GET /v1/webhook_endpoints/{endpoint_id}", "PATCH /v1/webhook_endpoints/{endpoint_id}",
		"DELETE /v1/webhook_endpoints/{endpoint_id}",
		"POST /v1/webhook_endpoints/{endpoint_id}/secret/rotations",
		// Added within /v1: the forward event feed and test events.
		"GET /v1/events/feed", "POST /v1/webhook_endpoints/{endpoint_id}/test",
		// Added within /v1: sample events of any type.
		"POST /v1/events/trigger",
	}
	for family, id := range map[string]string{"checks": "check_id", "data_fields": "data_field_id", "document_types": "document_type_id"} {
		routes = append(routes,
			"GET /v1/"+family, "POST /v1/"+family,
			"GET /v1/"+family+"/{"+id+"}", "PATCH /v1/"+family+"/{"+id+"}", "DELETE /v1/"+family+"/{"+id+"}")
	}
	return routes
}()

func loadSpec(t *testing.T) *openapi3.T {
	t.Helper()
	doc, err := api.GetSpec()
	if err != nil {
		t.Fatal(err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("the embedded OpenAPI document is not valid: %v", err)
	}
	return doc
}

// The document describes exactly the endpoints of the interface.
func TestSpecCoversTheInterface(t *testing.T) {
	doc := loadSpec(t)
	var inSpec []string
	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			inSpec = append(inSpec, method+" "+path)
		}
	}
	for _, r := range contractRoutes {
		if !slices.Contains(inSpec, r) {
			t.Errorf("interface endpoint missing from openapi.yaml: %s", r)
		}
	}
	for _, r := range inSpec {
		if !slices.Contains(contractRoutes, r) {
			t.Errorf("openapi.yaml has an endpoint the interface does not: %s", r)
		}
	}
}

// Every operation names its permission; reads need :read, every write :write
// (x-doceval-permission), and every operation documents the error envelope and x-request-id.
func TestSpecOperations(t *testing.T) {
	doc := loadSpec(t)
	if len(doc.Security) != 1 || doc.Security[0]["bearerAuth"] == nil {
		t.Errorf("global security is %v, want bearerAuth", doc.Security)
	}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			perm, err := httpx.OperationPermission(op)
			if err != nil {
				t.Error(err)
				continue
			}
			want := ":write"
			if method == http.MethodGet {
				want = ":read"
			}
			if !strings.HasSuffix(string(perm), want) {
				t.Errorf("%s %s needs %s, want a %s permission", method, path, perm, want)
			}
			for _, status := range []string{"401", "403", "429", "500", "default"} {
				if op.Responses.Value(status) == nil {
					t.Errorf("%s %s does not document %s", method, path, status)
				}
			}
			for status, ref := range op.Responses.Map() {
				if ref.Value == nil || ref.Value.Headers["x-request-id"] == nil {
					t.Errorf("%s %s %s: no x-request-id header", method, path, status)
				}
			}
			if op.Security != nil && len(*op.Security) == 0 {
				t.Errorf("%s %s: opts out of bearer authentication", method, path)
			}
		}
	}
}

// The error code enum holds every code of the interface, and the server's codes are all in
// it (so the typed client can name every code it receives).
func TestSpecErrorCodes(t *testing.T) {
	doc := loadSpec(t)
	schema := doc.Components.Schemas["ErrorCode"]
	if schema == nil || schema.Value == nil {
		t.Fatal("no ErrorCode schema")
	}
	var enum []string
	for _, v := range schema.Value.Enum {
		enum = append(enum, v.(string))
	}
	section7 := []string{
		"invalid_request", "invalid_field", "invalid_api_key", "api_client_disabled", "permission_denied",
		"not_found", "partner_data_purge_in_progress", "analysis_outdated", "revision_mismatch",
		"evaluation_in_progress", "submission_not_cancelable", "rate_limited", "authz_not_applied_yet", "internal_error",
	}
	for _, code := range section7 {
		if !slices.Contains(enum, code) {
			t.Errorf("interface error code %s missing from ErrorCode", code)
		}
	}
	for _, code := range apierr.AllCodes {
		if !slices.Contains(enum, string(code)) {
			t.Errorf("server code %s missing from ErrorCode", code)
		}
	}
}
