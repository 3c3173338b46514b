package apiserver_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/oapi-codegen/nullable"

	"github.com/doceval/doceval/gen/client"
	"github.com/doceval/doceval/pkg/catalog/builtin"
)

// expect fails the test unless the call succeeded with status.
func expect(t *testing.T, err error, status int, body []byte, want int) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	if status != want {
		t.Fatalf("status %d, want %d: %s", status, want, body)
	}
}

func ptr[T any](v T) *T { return &v }

func TestBuiltinCatalog(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	_, key := e.newClient()
	c := e.client(key)

	checks, err := c.ListChecksWithResponse(ctx, nil)
	expect(t, err, checks.StatusCode(), checks.Body, 200)
	builtins := builtin.MustLoad()
	if n := len(checks.JSON200.Data); n != len(builtins.Checks) {
		t.Fatalf("%d builtin checks, want %d", n, len(builtins.Checks))
	}
	first := checks.JSON200.Data[0]
	if first.Id != "documents_readable" || first.Key != first.Id || !first.Builtin || first.Prompt != nil ||
		first.Category != "completeness" || first.Description == "" || len(first.ProductTypes) != 2 {
		t.Errorf("first builtin check: %+v", first)
	}
	if last := checks.JSON200.Data[len(builtins.Checks)-1]; last.Id != "additional_risk_notes" || last.Category != "additional_risk_notes" {
		t.Errorf("last builtin check: %+v", last)
	}
	ltv, err := c.GetCheckWithResponse(ctx, "loan_to_value_within_limit")
	expect(t, err, ltv.StatusCode(), ltv.Body, 200)
	if !slices.Equal(ltv.JSON200.ProductTypes, []client.ProductType{"personal_real_estate_financing"}) {
		t.Errorf("LTV product types %v", ltv.JSON200.ProductTypes)
	}

	// Pages of 5 over the builtin data fields, in catalog order.
	var fields []client.DataField
	limit := client.Limit(5)
	params := &client.ListDataFieldsParams{Limit: &limit}
	for range 10 {
		res, err := c.ListDataFieldsWithResponse(ctx, params)
		expect(t, err, res.StatusCode(), res.Body, 200)
		fields = append(fields, res.JSON200.Data...)
		if res.JSON200.NextCursor == nil {
			break
		}
		params.Cursor = res.JSON200.NextCursor
	}
	var ids []string
	for _, f := range fields {
		ids = append(ids, f.Id)
	}
	if !slices.Equal(ids, builtins.DataFieldKeys()) {
		t.Fatalf("data fields: %v", ids)
	}
	for _, f := range fields {
		if f.Id == "living_area" && (f.ValueFormat == nil || *f.ValueFormat != "square_meters") {
			t.Errorf("living_area value_format %v", f.ValueFormat)
		}
		if f.Id == "iban" && f.ValueFormat != nil {
			t.Errorf("iban is free text, got %v", *f.ValueFormat)
		}
	}
	docs, err := c.ListDocumentTypesWithResponse(ctx, nil)
	expect(t, err, docs.StatusCode(), docs.Body, 200)
	if n := len(docs.JSON200.Data); n != len(builtins.DocumentTypes) || docs.JSON200.Data[0].Id != "id_card" || docs.JSON200.Data[n-1].Id != "other" {
		t.Errorf("%d document types", n)
	}

	missing, err := c.GetDocumentTypeWithResponse(ctx, "no_such_type")
	expect(t, err, missing.StatusCode(), missing.Body, 404)
	missing, err = c.GetDocumentTypeWithResponse(ctx, uuid.NewString())
	expect(t, err, missing.StatusCode(), missing.Body, 404)

	// Builtins are read-only.
	patch, err := c.UpdateCheckWithResponse(ctx, "documents_readable", client.UpdateCheckRequest{Title: ptr("Mine now")})
	expect(t, err, patch.StatusCode(), patch.Body, 422)
	if d := wantError(t, patch.HTTPResponse, patch.Body, 422, client.ErrorCodeInvalidField); deref(d.Param) != "check_id" {
		t.Errorf("param %q", deref(d.Param))
	}
	del, err := c.DeleteDataFieldWithResponse(ctx, "iban")
	expect(t, err, del.StatusCode(), del.Body, 422)
	delDoc, err := c.DeleteDocumentTypeWithResponse(ctx, "id_card")
	expect(t, err, delDoc.StatusCode(), delDoc.Body, 422)
}

func TestCustomCheckLifecycle(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	_, key := e.newClient()
	c := e.client(key)

	created, err := c.CreateCheckWithResponse(ctx, nil, client.CreateCheckRequest{Title: "Schufa score ≥ 95 %", Prompt: "Find the SCHUFA score; fail below 95."})
	expect(t, err, created.StatusCode(), created.Body, 201)
	chk := *created.JSON201
	if _, err := uuid.Parse(chk.Id); err != nil || chk.Builtin || chk.Key != "schufa_score_95" ||
		deref(chk.Prompt) != "Find the SCHUFA score; fail below 95." || chk.Category != "other" || chk.ProductTypes == nil || chk.Archived {
		t.Fatalf("created: %+v", chk)
	}
	// Same title: next key. A title that slugs to a builtin key avoids it.
	again, err := c.CreateCheckWithResponse(ctx, nil, client.CreateCheckRequest{Title: "Schufa score 95", Prompt: "p", Category: ptr(client.CheckCategory("financing"))})
	expect(t, err, again.StatusCode(), again.Body, 201)
	if again.JSON201.Key != "schufa_score_95_2" || again.JSON201.Category != "financing" {
		t.Errorf("second key %q category %q", again.JSON201.Key, again.JSON201.Category)
	}
	clash, err := c.CreateDocumentTypeWithResponse(ctx, nil, client.CreateDocumentTypeRequest{DisplayName: "ID card"})
	expect(t, err, clash.StatusCode(), clash.Body, 201)
	if clash.JSON201.Key != "id_card_2" || clash.JSON201.Description != "" {
		t.Errorf("document type key %q", clash.JSON201.Key)
	}

	// Readable by UUID and by key; listed after the builtins.
	for _, ref := range []string{chk.Id, chk.Key} {
		got, err := c.GetCheckWithResponse(ctx, ref)
		expect(t, err, got.StatusCode(), got.Body, 200)
		if got.JSON200.Id != chk.Id {
			t.Errorf("GET %s: id %s", ref, got.JSON200.Id)
		}
	}
	list, err := c.ListChecksWithResponse(ctx, nil)
	expect(t, err, list.StatusCode(), list.Body, 200)
	if n := len(list.JSON200.Data); n != 12 || list.JSON200.Data[10].Id != chk.Id {
		t.Fatalf("list: %d entries", n)
	}

	// PATCH: omitted fields stay; the id and key never change.
	upd, err := c.UpdateCheckWithResponse(ctx, chk.Id, client.UpdateCheckRequest{Title: ptr("SCHUFA score at least 95 %"), ProductTypes: &[]client.ProductType{"personal_loan"}})
	expect(t, err, upd.StatusCode(), upd.Body, 200)
	u := upd.JSON200
	if u.Id != chk.Id || u.Key != chk.Key || u.Title != "SCHUFA score at least 95 %" || deref(u.Prompt) != deref(chk.Prompt) ||
		u.Category != chk.Category || len(u.ProductTypes) != 1 || !u.UpdatedAt.After(chk.UpdatedAt) || !u.CreatedAt.Equal(chk.CreatedAt) {
		t.Errorf("updated: %+v", u)
	}

	// DELETE archives: readable by id, gone from lists, frozen; a second DELETE is a no-op.
	del, err := c.DeleteCheckWithResponse(ctx, chk.Id)
	expect(t, err, del.StatusCode(), del.Body, 204)
	got, err := c.GetCheckWithResponse(ctx, chk.Id)
	expect(t, err, got.StatusCode(), got.Body, 200)
	if !got.JSON200.Archived {
		t.Error("not archived")
	}
	list, err = c.ListChecksWithResponse(ctx, nil)
	expect(t, err, list.StatusCode(), list.Body, 200)
	for _, x := range list.JSON200.Data {
		if x.Id == chk.Id {
			t.Error("archived check still listed")
		}
	}
	frozen, err := c.UpdateCheckWithResponse(ctx, chk.Id, client.UpdateCheckRequest{Title: ptr("x")})
	expect(t, err, frozen.StatusCode(), frozen.Body, 422)
	if d := wantError(t, frozen.HTTPResponse, frozen.Body, 422, client.ErrorCodeInvalidField); deref(d.Param) != "check_id" {
		t.Errorf("param %q", deref(d.Param))
	}
	del, err = c.DeleteCheckWithResponse(ctx, chk.Id)
	expect(t, err, del.StatusCode(), del.Body, 204)
}

func TestCustomDataFieldValueFormat(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	_, key := e.newClient()
	c := e.client(key)
	vf := client.ValueFormat("currency")
	created, err := c.CreateDataFieldWithResponse(ctx, nil, client.CreateDataFieldRequest{DisplayName: "Monatliche Rate", Prompt: "Monthly instalment", ValueFormat: &vf})
	expect(t, err, created.StatusCode(), created.Body, 201)
	f := created.JSON201
	if f.Key != "monatliche_rate" || f.ValueFormat == nil || *f.ValueFormat != "currency" || f.Category != "other" {
		t.Fatalf("created: %+v", f)
	}
	// value_format null resets to free text; other fields stay.
	upd, err := c.UpdateDataFieldWithResponse(ctx, f.Id, client.UpdateDataFieldRequest{ValueFormat: nullable.NewNullNullable[client.ValueFormat]()})
	expect(t, err, upd.StatusCode(), upd.Body, 200)
	if upd.JSON200.ValueFormat != nil || upd.JSON200.DisplayName != "Monatliche Rate" || deref(upd.JSON200.Prompt) != "Monthly instalment" {
		t.Errorf("after reset: %+v", upd.JSON200)
	}
	// Omitted value_format stays as it is.
	upd, err = c.UpdateDataFieldWithResponse(ctx, f.Id, client.UpdateDataFieldRequest{ValueFormat: nullable.NewNullableWithValue[client.ValueFormat]("years")})
	expect(t, err, upd.StatusCode(), upd.Body, 200)
	upd, err = c.UpdateDataFieldWithResponse(ctx, f.Id, client.UpdateDataFieldRequest{Category: ptr(client.DataFieldCategory("financing"))})
	expect(t, err, upd.StatusCode(), upd.Body, 200)
	if upd.JSON200.ValueFormat == nil || *upd.JSON200.ValueFormat != "years" || upd.JSON200.Category != "financing" {
		t.Errorf("after category edit: %+v", upd.JSON200)
	}
}

// Bad input answers 422 invalid_field naming the field, never 500.
func TestCatalogBadInput(t *testing.T) {
	e := newEnv(t)
	_, key := e.newClient()
	long := strings.Repeat("x", 201)
	for _, tc := range []struct {
		method, path, body, param string
	}{
		{"POST", "/v1/checks", `{"prompt": "p"}`, "title"},
		{"POST", "/v1/checks", `{"title": "t"}`, "prompt"},
		{"POST", "/v1/checks", `{"title": 5, "prompt": "p"}`, "title"},
		{"POST", "/v1/checks", `{"title": "` + long + `", "prompt": "p"}`, "title"},
		{"POST", "/v1/checks", `{"title": "", "prompt": "p"}`, "title"},
		{"POST", "/v1/checks", `{"title": "t", "prompt": "p", "category": "astrology"}`, "category"},
		{"POST", "/v1/checks", `{"title": "t", "prompt": "p", "product_types": ["yacht"]}`, "product_types[0]"},
		{"POST", "/v1/data_fields", `{"display_name": "d", "prompt": "p", "value_format": "furlongs"}`, "value_format"},
		{"POST", "/v1/data_fields", `{"display_name": "d"}`, "prompt"},
		{"POST", "/v1/document_types", `{"description": "d"}`, "display_name"},
		{"POST", "/v1/document_types", `{"display_name": "a\u0000b"}`, "display_name"},
		{"POST", "/v1/templates", `{"display_name": "T", "document_requirements": [{"document_type_id": "id_card", "label": "x\u0000"}]}`, "document_requirements[0].label"},
		{"POST", "/v1/document_types", `{"display_name": "d", "description": "` + strings.Repeat("y", 2001) + `"}`, "description"},
		{"PATCH", "/v1/data_fields/iban", `{"value_format": "furlongs"}`, "value_format"},
		{"PATCH", "/v1/checks/documents_readable", `{"title": ""}`, "title"},
		{"POST", "/v1/templates", `{"display_name": "T", "data_field_items": [{"data_field_id": "iban", "confidence_threshold": 1.5}]}`, "data_field_items[0].confidence_threshold"},
		{"PATCH", "/v1/templates/personal_loan", `{"display_name": "x"}`, "expected_revision"},
		{"PATCH", "/v1/templates/personal_loan", `{"expected_revision": "one"}`, "expected_revision"},
		{"PATCH", "/v1/templates/personal_loan", `{"expected_revision": 4294967297}`, "expected_revision"},
		{"PATCH", "/v1/templates/personal_loan", `{"expected_revision": 0}`, "expected_revision"},
		{"PUT", "/v1/templates/personal_loan/check_items", `{"items": []}`, "expected_revision"},
		{"PUT", "/v1/templates/personal_loan/check_items", `{"expected_revision": 1}`, "items"},
		{"PUT", "/v1/templates/personal_loan/check_items", `{"expected_revision": 1, "items": [{"check_id": ""}]}`, "items[0].check_id"},
	} {
		t.Run(tc.method+" "+tc.path+" "+tc.param, func(t *testing.T) {
			res, body := e.raw(tc.method, tc.path, key, "application/json", strings.NewReader(tc.body))
			d := wantError(t, res, body, 422, client.ErrorCodeInvalidField)
			if deref(d.Param) != tc.param {
				t.Errorf("param %q, want %q (%s)", deref(d.Param), tc.param, d.Message)
			}
		})
	}
}

// Another client's custom entries and templates do not exist for a client: 404 on
// read, absent from lists, refused as template items.
func TestCatalogTenantIsolation(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	_, aliceKey := e.newClient()
	_, bobKey := e.newClient()
	alice, bob := e.client(aliceKey), e.client(bobKey)

	chk, err := alice.CreateCheckWithResponse(ctx, nil, client.CreateCheckRequest{Title: "Alice's check", Prompt: "p"})
	expect(t, err, chk.StatusCode(), chk.Body, 201)
	tpl, err := alice.CreateTemplateWithResponse(ctx, nil, client.CreateTemplateRequest{DisplayName: "Alice's template"})
	expect(t, err, tpl.StatusCode(), tpl.Body, 201)

	get, err := bob.GetCheckWithResponse(ctx, chk.JSON201.Id)
	expect(t, err, get.StatusCode(), get.Body, 404)
	byKey, err := bob.GetCheckWithResponse(ctx, chk.JSON201.Key)
	expect(t, err, byKey.StatusCode(), byKey.Body, 404)
	patch, err := bob.UpdateCheckWithResponse(ctx, chk.JSON201.Id, client.UpdateCheckRequest{Title: ptr("mine")})
	expect(t, err, patch.StatusCode(), patch.Body, 404)
	del, err := bob.DeleteCheckWithResponse(ctx, chk.JSON201.Id)
	expect(t, err, del.StatusCode(), del.Body, 404)
	getTpl, err := bob.GetTemplateWithResponse(ctx, tpl.JSON201.Id)
	expect(t, err, getTpl.StatusCode(), getTpl.Body, 404)
	dup, err := bob.DuplicateTemplateWithResponse(ctx, tpl.JSON201.Id, nil, client.DuplicateTemplateRequest{})
	expect(t, err, dup.StatusCode(), dup.Body, 404)

	// Writes to Alice's template and use of her entries by key, from Bob: not found.
	tplID := tpl.JSON201.Id
	patchTpl, err := bob.UpdateTemplateWithResponse(ctx, tplID, client.UpdateTemplateRequest{ExpectedRevision: 1, DisplayName: ptr("x")})
	expect(t, err, patchTpl.StatusCode(), patchTpl.Body, 404)
	putTpl, err := bob.ReplaceTemplateCheckItemsWithResponse(ctx, tplID, client.ReplaceTemplateCheckItemsRequest{ExpectedRevision: 1, Items: []client.CheckItemInput{}})
	expect(t, err, putTpl.StatusCode(), putTpl.Body, 404)
	delTpl, err := bob.DeleteTemplateWithResponse(ctx, tplID)
	expect(t, err, delTpl.StatusCode(), delTpl.Body, 404)
	field, err := alice.CreateDataFieldWithResponse(ctx, nil, client.CreateDataFieldRequest{DisplayName: "Alice field", Prompt: "p"})
	expect(t, err, field.StatusCode(), field.Body, 201)
	doc, err := alice.CreateDocumentTypeWithResponse(ctx, nil, client.CreateDocumentTypeRequest{DisplayName: "Alice doc"})
	expect(t, err, doc.StatusCode(), doc.Body, 201)
	for _, ref := range []string{field.JSON201.Id, field.JSON201.Key} {
		r, err := bob.GetDataFieldWithResponse(ctx, ref)
		expect(t, err, r.StatusCode(), r.Body, 404)
	}
	for _, ref := range []string{doc.JSON201.Id, doc.JSON201.Key} {
		r, err := bob.GetDocumentTypeWithResponse(ctx, ref)
		expect(t, err, r.StatusCode(), r.Body, 404)
	}
	sub, err := bob.CreateSubmissionWithResponse(ctx, nil, client.CreateSubmissionRequest{ExternalSubmissionId: "b1", TemplateId: &tplID})
	expect(t, err, sub.StatusCode(), sub.Body, 422)
	withDoc, err := bob.CreateTemplateWithResponse(ctx, nil, client.CreateTemplateRequest{DisplayName: "B", DocumentRequirements: &[]client.DocumentRequirementInput{{DocumentTypeId: doc.JSON201.Key}}})
	expect(t, err, withDoc.StatusCode(), withDoc.Body, 422)
	if d := wantError(t, withDoc.HTTPResponse, withDoc.Body, 422, client.ErrorCodeInvalidField); deref(d.Param) != "document_requirements[0].document_type_id" {
		t.Errorf("param %q", deref(d.Param))
	}

	checks, err := bob.ListChecksWithResponse(ctx, nil)
	expect(t, err, checks.StatusCode(), checks.Body, 200)
	templates, err := bob.ListTemplatesWithResponse(ctx, nil)
	expect(t, err, templates.StatusCode(), templates.Body, 200)
	if len(checks.JSON200.Data) != len(builtin.MustLoad().Checks) || len(templates.JSON200.Data) != len(builtin.MustLoad().Templates) {
		t.Errorf("bob sees %d checks and %d templates, want the builtins only", len(checks.JSON200.Data), len(templates.JSON200.Data))
	}

	mine, err := bob.CreateTemplateWithResponse(ctx, nil, client.CreateTemplateRequest{
		DisplayName: "Bob's", CheckItems: &[]client.CheckItemInput{{CheckId: "documents_readable"}, {CheckId: chk.JSON201.Id}},
	})
	expect(t, err, mine.StatusCode(), mine.Body, 422)
	if d := wantError(t, mine.HTTPResponse, mine.Body, 422, client.ErrorCodeInvalidField); deref(d.Param) != "check_items[1].check_id" {
		t.Errorf("param %q", deref(d.Param))
	}
}

// Member names match exactly: a key in another case is an unknown member, ignored, and
// never a way past the schema.
func TestRequestMembersMatchExactly(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	_, key := e.newClient()
	c := e.client(key)
	chk, err := c.CreateCheckWithResponse(ctx, nil, client.CreateCheckRequest{Title: "Real title", Prompt: "p"})
	expect(t, err, chk.StatusCode(), chk.Body, 201)

	res, body := e.raw("PATCH", "/v1/checks/"+chk.JSON201.Id, key, "application/json", strings.NewReader(`{"Title": ""}`))
	if res.StatusCode != 200 {
		t.Fatalf("%d %s", res.StatusCode, body)
	}
	got, err := c.GetCheckWithResponse(ctx, chk.JSON201.Id)
	expect(t, err, got.StatusCode(), got.Body, 200)
	if got.JSON200.Title != "Real title" {
		t.Errorf("title %q: a case-variant key was bound", got.JSON200.Title)
	}
	res, body = e.raw("POST", "/v1/checks", key, "application/json", strings.NewReader(`{"title": "t", "prompt": "p", "Category": "astrology"}`))
	if res.StatusCode != 201 || strings.Contains(string(body), "astrology") {
		t.Errorf("%d %s", res.StatusCode, body)
	}
	res, body = e.raw("POST", "/v1/templates", key, "application/json", strings.NewReader(`{"display_name": "Y", "Data_Field_Items": [{"data_field_id": "iban", "confidence_threshold": 7}]}`))
	if res.StatusCode != 201 || strings.Contains(string(body), `"iban"`) {
		t.Errorf("%d %s", res.StatusCode, body)
	}
}

// Concurrent edits of one entry apply one after the other: none is lost.
func TestConcurrentEntryEdits(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	_, key := e.newClient()
	c := e.client(key)
	for round := range 10 {
		chk, err := c.CreateCheckWithResponse(ctx, nil, client.CreateCheckRequest{Title: "t", Prompt: "p"})
		expect(t, err, chk.StatusCode(), chk.Body, 201)
		done := make(chan error, 2)
		go func() {
			_, err := c.UpdateCheckWithResponse(ctx, chk.JSON201.Id, client.UpdateCheckRequest{Title: ptr("new title")})
			done <- err
		}()
		go func() {
			_, err := c.UpdateCheckWithResponse(ctx, chk.JSON201.Id, client.UpdateCheckRequest{Prompt: ptr("new prompt")})
			done <- err
		}()
		for range 2 {
			if err := <-done; err != nil {
				t.Fatal(err)
			}
		}
		got, err := c.GetCheckWithResponse(ctx, chk.JSON201.Id)
		expect(t, err, got.StatusCode(), got.Body, 200)
		if got.JSON200.Title != "new title" || deref(got.JSON200.Prompt) != "new prompt" {
			t.Fatalf("round %d: lost update: %q / %q", round, got.JSON200.Title, deref(got.JSON200.Prompt))
		}
	}
}

// A duplicate leaves out items whose entry was archived since.
func TestDuplicateLeavesOutArchivedEntries(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	_, key := e.newClient()
	c := e.client(key)
	chk, err := c.CreateCheckWithResponse(ctx, nil, client.CreateCheckRequest{Title: "Soon archived", Prompt: "p"})
	expect(t, err, chk.StatusCode(), chk.Body, 201)
	tpl, err := c.CreateTemplateWithResponse(ctx, nil, client.CreateTemplateRequest{DisplayName: "Src", CheckItems: &[]client.CheckItemInput{{CheckId: chk.JSON201.Id}, {CheckId: "name_consistency"}}})
	expect(t, err, tpl.StatusCode(), tpl.Body, 201)
	del, err := c.DeleteCheckWithResponse(ctx, chk.JSON201.Id)
	expect(t, err, del.StatusCode(), del.Body, 204)
	dup, err := c.DuplicateTemplateWithResponse(ctx, tpl.JSON201.Id, nil, client.DuplicateTemplateRequest{})
	expect(t, err, dup.StatusCode(), dup.Body, 201)
	if items := dup.JSON201.CheckItems; len(items) != 1 || items[0].CheckId != "name_consistency" {
		t.Errorf("duplicate items: %+v", items)
	}
	// The source keeps its items as they were.
	src, err := c.GetTemplateWithResponse(ctx, tpl.JSON201.Id)
	expect(t, err, src.StatusCode(), src.Body, 200)
	if len(src.JSON200.CheckItems) != 2 {
		t.Errorf("source items: %+v", src.JSON200.CheckItems)
	}
}
