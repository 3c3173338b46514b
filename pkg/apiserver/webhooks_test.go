package apiserver_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/oapi-codegen/nullable"

	"github.com/doceval/doceval/gen/client"
)

func TestWebhookEndpointLifecycle(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	_, key := e.newClient()
	c := e.client(key)

	created, err := c.CreateWebhookEndpointWithResponse(ctx, nil, client.CreateWebhookEndpointRequest{
		Url: "https://partner.example/hooks/doceval", Description: ptr("CRM"),
		Events: &[]client.EventType{"file.ready", "evaluation.completed"},
	})
	expect(t, err, created.StatusCode(), created.Body, 201)
	ep := created.JSON201
	if ep.Status != "active" || ep.Description != "CRM" || ep.Events == nil || len(*ep.Events) != 2 ||
		!strings.HasPrefix(ep.SigningSecret, "whsec_") || len(ep.SigningSecret) < 40 {
		t.Fatalf("created: %+v", ep)
	}
	// 256 random bits in standard base64 with padding, which the Standard Webhooks
	// libraries decode as is (strictly: Go's reference library's StdEncoding).
	if key, err := base64.StdEncoding.Strict().DecodeString(strings.TrimPrefix(ep.SigningSecret, "whsec_")); err != nil || len(key) != 32 {
		t.Errorf("signing_secret %q is not whsec_ and the standard base64 of 32 bytes: %v", ep.SigningSecret, err)
	}
	// The secret is stored sealed, never in clear.
	var sealed []byte
	if err := e.store.Pool().QueryRow(ctx, "SELECT secret FROM webhook_endpoints WHERE id = $1", ep.Id).Scan(&sealed); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(sealed, []byte(ep.SigningSecret)) || bytes.Contains(sealed, []byte(strings.TrimPrefix(ep.SigningSecret, "whsec_"))) {
		t.Fatal("signing secret stored in clear")
	}
	// Reads never carry the secret.
	got, err := c.GetWebhookEndpointWithResponse(ctx, ep.Id)
	expect(t, err, got.StatusCode(), got.Body, 200)
	list, err := c.ListWebhookEndpointsWithResponse(ctx, nil)
	expect(t, err, list.StatusCode(), list.Body, 200)
	if strings.Contains(string(got.Body)+string(list.Body), "signing_secret") || strings.Contains(string(got.Body)+string(list.Body), ep.SigningSecret) {
		t.Error("a read returned the secret")
	}
	allTypes, err := c.CreateWebhookEndpointWithResponse(ctx, nil, client.CreateWebhookEndpointRequest{Url: "http://localhost:9000/hook"})
	expect(t, err, allTypes.StatusCode(), allTypes.Body, 201)
	if allTypes.JSON201.Events != nil || allTypes.JSON201.Description != "" {
		t.Errorf("events omitted must mean all types (null): %+v", allTypes.JSON201)
	}

	// PATCH: omitted fields stay, events null means all, the URL changes and the secret does not.
	upd, err := c.UpdateWebhookEndpointWithResponse(ctx, ep.Id, client.UpdateWebhookEndpointRequest{
		Url: ptr("https://partner.example/v2/hooks"), Events: nullable.NewNullNullable[[]client.EventType](),
	})
	expect(t, err, upd.StatusCode(), upd.Body, 200)
	if upd.JSON200.Url != "https://partner.example/v2/hooks" || upd.JSON200.Events != nil || upd.JSON200.Description != "CRM" {
		t.Errorf("patched: %+v", upd.JSON200)
	}
	var sealedAfter []byte
	e.store.Pool().QueryRow(ctx, "SELECT secret FROM webhook_endpoints WHERE id = $1", ep.Id).Scan(&sealedAfter)
	if !bytes.Equal(sealed, sealedAfter) {
		t.Error("changing the URL changed the secret")
	}
	disabled, err := c.UpdateWebhookEndpointWithResponse(ctx, ep.Id, client.UpdateWebhookEndpointRequest{Status: ptr(client.WebhookEndpointStatus("disabled"))})
	expect(t, err, disabled.StatusCode(), disabled.Body, 200)
	if disabled.JSON200.Status != "disabled" || disabled.JSON200.Url != "https://partner.example/v2/hooks" {
		t.Errorf("disabled: %+v", disabled.JSON200)
	}

	// Rotation: a new secret; the previous stays valid for the grace period; rotating
	// again inside it drops the oldest at once.
	before := time.Now()
	rot, err := c.RotateWebhookEndpointSecretWithResponse(ctx, ep.Id, nil)
	expect(t, err, rot.StatusCode(), rot.Body, 201)
	if rot.JSON201.SigningSecret == ep.SigningSecret || !strings.HasPrefix(rot.JSON201.SigningSecret, "whsec_") ||
		rot.JSON201.PreviousSecretExpiresAt.Before(before.Add(23*time.Hour)) || rot.JSON201.PreviousSecretExpiresAt.After(time.Now().Add(25*time.Hour)) {
		t.Fatalf("rotation: %+v", rot.JSON201)
	}
	var previous []byte
	e.store.Pool().QueryRow(ctx, "SELECT previous_secret FROM webhook_endpoints WHERE id = $1", ep.Id).Scan(&previous)
	if !bytes.Equal(previous, sealed) {
		t.Error("the rotated-out secret is not kept as the previous one")
	}
	rot2, err := c.RotateWebhookEndpointSecretWithResponse(ctx, ep.Id, nil)
	expect(t, err, rot2.StatusCode(), rot2.Body, 201)
	e.store.Pool().QueryRow(ctx, "SELECT previous_secret FROM webhook_endpoints WHERE id = $1", ep.Id).Scan(&previous)
	if bytes.Equal(previous, sealed) {
		t.Error("rotating twice kept the oldest secret")
	}

	// DELETE: gone from listings and reads; the second time 404.
	del, err := c.DeleteWebhookEndpointWithResponse(ctx, ep.Id)
	expect(t, err, del.StatusCode(), del.Body, 204)
	del, err = c.DeleteWebhookEndpointWithResponse(ctx, ep.Id)
	expect(t, err, del.StatusCode(), del.Body, 404)
	gone, err := c.GetWebhookEndpointWithResponse(ctx, ep.Id)
	expect(t, err, gone.StatusCode(), gone.Body, 404)
	list, err = c.ListWebhookEndpointsWithResponse(ctx, nil)
	expect(t, err, list.StatusCode(), list.Body, 200)
	if len(list.JSON200.Data) != 1 || list.JSON200.Data[0].Id != allTypes.JSON201.Id {
		t.Errorf("list after delete: %+v", list.JSON200.Data)
	}
	rotGone, err := c.RotateWebhookEndpointSecretWithResponse(ctx, ep.Id, nil)
	expect(t, err, rotGone.StatusCode(), rotGone.Body, 404)
}

func TestWebhookURLRules(t *testing.T) {
	e := newEnv(t)
	_, key := e.newClient()
	for _, tc := range []struct {
		url string
		ok  bool
	}{
		{"https://partner.example/hook", true},
		{"https://partner.example:8443/hook?x=1", true},
		{"http://127.0.0.1:8000/hook", true},
		{"http://[::1]:8000/hook", true},
		{"http://localhost/hook", true},
		{"http://partner.example/hook", false},
		{"http://10.0.0.1/hook", false},
		{"ftp://partner.example/hook", false},
		{"https://user:pw@partner.example/hook", false},
		{"partner.example/hook", false},
		{"https:///nohost", false},
		{"", false},
	} {
		body := fmt.Sprintf(`{"url": %q}`, tc.url)
		res, b := e.raw("POST", "/v1/webhook_endpoints", key, "application/json", strings.NewReader(body))
		if tc.ok {
			if res.StatusCode != 201 {
				t.Errorf("%q: %d %s", tc.url, res.StatusCode, b)
			}
			continue
		}
		if d := wantError(t, res, b, 422, client.ErrorCodeInvalidField); deref(d.Param) != "url" {
			t.Errorf("%q: param %q", tc.url, deref(d.Param))
		}
	}
	// A PATCH to a bad URL is refused the same way.
	res, b := e.raw("POST", "/v1/webhook_endpoints", key, "application/json", strings.NewReader(`{"url": "https://a.example/h"}`))
	if res.StatusCode != 201 {
		t.Fatal(string(b))
	}
	id := strings.Split(strings.Split(string(b), `"id":"`)[1], `"`)[0]
	res, b = e.raw("PATCH", "/v1/webhook_endpoints/"+id, key, "application/json", strings.NewReader(`{"url": "http://a.example/h"}`))
	if d := wantError(t, res, b, 422, client.ErrorCodeInvalidField); deref(d.Param) != "url" {
		t.Errorf("patch param %q", deref(d.Param))
	}
}

// At most 20 active endpoints per client: the 21st is refused on create and on
// re-activation; disabled and deleted ones do not count.
func TestWebhookEndpointLimit(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	_, key := e.newClient()
	_, otherKey := e.newClient()
	c := e.client(key)
	var ids []uuid.UUID
	for i := range 20 {
		res, err := c.CreateWebhookEndpointWithResponse(ctx, nil, client.CreateWebhookEndpointRequest{Url: fmt.Sprintf("https://p.example/%d", i)})
		expect(t, err, res.StatusCode(), res.Body, 201)
		ids = append(ids, res.JSON201.Id)
	}
	over, err := c.CreateWebhookEndpointWithResponse(ctx, nil, client.CreateWebhookEndpointRequest{Url: "https://p.example/21"})
	expect(t, err, over.StatusCode(), over.Body, 422)
	if d := wantError(t, over.HTTPResponse, over.Body, 422, client.ErrorCodeInvalidField); deref(d.Param) != "url" || !strings.Contains(d.Message, "20") {
		t.Errorf("21st: %+v", d)
	}
	// Another client has its own 20.
	theirs, err := e.client(otherKey).CreateWebhookEndpointWithResponse(ctx, nil, client.CreateWebhookEndpointRequest{Url: "https://p.example/x"})
	expect(t, err, theirs.StatusCode(), theirs.Body, 201)
	// Disabling one makes room; re-activating it when full is refused on status.
	dis, err := c.UpdateWebhookEndpointWithResponse(ctx, ids[0], client.UpdateWebhookEndpointRequest{Status: ptr(client.WebhookEndpointStatus("disabled"))})
	expect(t, err, dis.StatusCode(), dis.Body, 200)
	again, err := c.CreateWebhookEndpointWithResponse(ctx, nil, client.CreateWebhookEndpointRequest{Url: "https://p.example/21"})
	expect(t, err, again.StatusCode(), again.Body, 201)
	react, err := c.UpdateWebhookEndpointWithResponse(ctx, ids[0], client.UpdateWebhookEndpointRequest{Status: ptr(client.WebhookEndpointStatus("active"))})
	expect(t, err, react.StatusCode(), react.Body, 422)
	if d := wantError(t, react.HTTPResponse, react.Body, 422, client.ErrorCodeInvalidField); deref(d.Param) != "status" {
		t.Errorf("param %q", deref(d.Param))
	}
	del, err := c.DeleteWebhookEndpointWithResponse(ctx, ids[1])
	expect(t, err, del.StatusCode(), del.Body, 204)
	react, err = c.UpdateWebhookEndpointWithResponse(ctx, ids[0], client.UpdateWebhookEndpointRequest{Status: ptr(client.WebhookEndpointStatus("active"))})
	expect(t, err, react.StatusCode(), react.Body, 200)
	// Other clients' endpoints are not found.
	// The list takes limit and cursor like every list (Limit, Cursor): newest first, every
	// live endpoint once.
	limit := client.Limit(8)
	params := &client.ListWebhookEndpointsParams{Limit: &limit}
	listed := map[uuid.UUID]bool{}
	for page := 0; ; page++ {
		res, err := c.ListWebhookEndpointsWithResponse(ctx, params)
		expect(t, err, res.StatusCode(), res.Body, 200)
		for _, w := range res.JSON200.Data {
			listed[w.Id] = true
		}
		if res.JSON200.NextCursor == nil || page > 5 {
			break
		}
		params.Cursor = res.JSON200.NextCursor
	}
	if len(listed) != 20 || listed[ids[1]] { // 21 created, one deleted
		t.Errorf("listed %d endpoints (deleted one listed: %v)", len(listed), listed[ids[1]])
	}
	cross, err := e.client(otherKey).GetWebhookEndpointWithResponse(ctx, ids[0])
	expect(t, err, cross.StatusCode(), cross.Body, 404)
	crossRot, err := e.client(otherKey).RotateWebhookEndpointSecretWithResponse(ctx, ids[0], nil)
	expect(t, err, crossRot.StatusCode(), crossRot.Body, 404)
}
