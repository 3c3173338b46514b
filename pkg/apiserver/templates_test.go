package apiserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"

	"github.com/doceval/doceval/gen/client"
	"github.com/doceval/doceval/pkg/catalog/builtin"
	"github.com/doceval/doceval/pkg/domain/catalog"
	"github.com/doceval/doceval/pkg/domain/submission"
)

func TestBuiltinTemplateDetail(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	_, key := e.newClient()
	res, err := e.client(key).GetTemplateWithResponse(ctx, "personal_real_estate_financing")
	expect(t, err, res.StatusCode(), res.Body, 200)
	d := res.JSON200
	if d.Id != "personal_real_estate_financing" || d.Key != d.Id || !d.Builtin || !d.IsDefault || d.Archived || d.Revision < 1 {
		t.Fatalf("template: %+v", d)
	}
	var reqs []string
	for _, r := range d.DocumentRequirements {
		reqs = append(reqs, r.DocumentTypeId)
		if r.Key != r.DocumentTypeId || r.Label == "" || r.Description == "" {
			t.Errorf("requirement %+v", r)
		}
	}
	want := []string{"id_card", "salary_statement", "bank_statement", "property_expose", "purchase_contract",
		"land_register_extract", "living_area_calculation", "energy_certificate", "self_disclosure"}
	if !equal(reqs, want) {
		t.Errorf("requirements in order %v, want %v", reqs, want)
	}
	r := d.DocumentRequirements
	if !r[0].Required || r[0].AllowMultipleFiles || !r[1].Required || !r[1].AllowMultipleFiles || !r[2].AllowMultipleFiles || r[4].Required || r[8].Required {
		t.Errorf("required / multiple flags: %+v", r)
	}
	if r[0].Label != "ID card" {
		t.Errorf("label of id_card %q", r[0].Label)
	}
	builtinDefault := builtin.MustLoad().Templates[0] // personal_real_estate_financing
	if len(d.CheckItems) != len(builtinDefault.CheckItems) || d.CheckItems[0].CheckId != "documents_readable" || d.CheckItems[0].Title == "" {
		t.Errorf("check items: %+v", d.CheckItems)
	}
	if len(d.DataFieldItems) != len(builtinDefault.DataFieldItems) || d.DataFieldItems[0].DataFieldId != "applicant_full_name" || !d.DataFieldItems[0].Required {
		t.Errorf("data field items: %+v", d.DataFieldItems)
	}
	for _, f := range d.DataFieldItems {
		if f.ConfidenceThreshold <= 0 || f.ConfidenceThreshold > 1 || f.DisplayName == "" {
			t.Errorf("data field item %+v", f)
		}
	}
	loan, err := e.client(key).GetTemplateWithResponse(ctx, "personal_loan")
	expect(t, err, loan.StatusCode(), loan.Body, 200)
	if loan.JSON200.IsDefault || len(loan.JSON200.DocumentRequirements) != 3 {
		t.Errorf("personal_loan: %+v", loan.JSON200)
	}

	list, err := e.client(key).ListTemplatesWithResponse(ctx, nil)
	expect(t, err, list.StatusCode(), list.Body, 200)
	if len(list.JSON200.Data) != 2 || list.JSON200.Data[0].Id != "personal_real_estate_financing" || !list.JSON200.Data[0].IsDefault {
		t.Errorf("list: %+v", list.JSON200.Data)
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestTemplateLifecycle(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	_, key := e.newClient()
	c := e.client(key)

	archivedCheck, err := c.CreateCheckWithResponse(ctx, nil, client.CreateCheckRequest{Title: "Old", Prompt: "p"})
	expect(t, err, archivedCheck.StatusCode(), archivedCheck.Body, 201)
	del, err := c.DeleteCheckWithResponse(ctx, archivedCheck.JSON201.Id)
	expect(t, err, del.StatusCode(), del.Body, 204)
	custom, err := c.CreateCheckWithResponse(ctx, nil, client.CreateCheckRequest{Title: "Custom", Prompt: "p"})
	expect(t, err, custom.StatusCode(), custom.Body, 201)

	created, err := c.CreateTemplateWithResponse(ctx, nil, client.CreateTemplateRequest{
		DisplayName: "Kredit Spezial",
		DocumentRequirements: &[]client.DocumentRequirementInput{
			{DocumentTypeId: "passport", Label: ptr("Reisepass"), Description: ptr("Valid passport of every applicant")},
			{DocumentTypeId: "bank_statement", Required: ptr(false), AllowMultipleFiles: ptr(true)},
		},
		CheckItems:     &[]client.CheckItemInput{{CheckId: custom.JSON201.Id}, {CheckId: "name_consistency"}},
		DataFieldItems: &[]client.DataFieldItemInput{{DataFieldId: "iban"}, {DataFieldId: "loan_amount", Required: ptr(true), ConfidenceThreshold: ptr(0.95)}},
	})
	expect(t, err, created.StatusCode(), created.Body, 201)
	tpl := created.JSON201
	if _, err := uuid.Parse(tpl.Id); err != nil || tpl.Key != "kredit_spezial" || tpl.Builtin || tpl.IsDefault || tpl.Revision != 1 {
		t.Fatalf("created: %+v", tpl)
	}
	r := tpl.DocumentRequirements
	if len(r) != 2 || r[0].Label != "Reisepass" || r[0].Description != "Valid passport of every applicant" || !r[0].Required || r[0].AllowMultipleFiles ||
		r[1].Label != "Bank statement" || r[1].Required || !r[1].AllowMultipleFiles {
		t.Errorf("requirements (defaults: required true, single file; labels default to the type's name): %+v", r)
	}
	if len(tpl.CheckItems) != 2 || tpl.CheckItems[0].CheckId != custom.JSON201.Id || tpl.CheckItems[0].Title != "Custom" || tpl.CheckItems[1].CheckId != "name_consistency" {
		t.Errorf("check items: %+v", tpl.CheckItems)
	}
	f := tpl.DataFieldItems
	if len(f) != 2 || f[0].Required || f[0].ConfidenceThreshold != 0.8 || !f[1].Required || f[1].ConfidenceThreshold != 0.95 {
		t.Errorf("data field items (defaults: not required, 0.8): %+v", f)
	}

	// PATCH at the current revision; a stale revision is refused.
	upd, err := c.UpdateTemplateWithResponse(ctx, tpl.Id, client.UpdateTemplateRequest{ExpectedRevision: 1, DisplayName: ptr("Kredit Spezial 2")})
	expect(t, err, upd.StatusCode(), upd.Body, 200)
	if upd.JSON200.Revision != 2 || upd.JSON200.DisplayName != "Kredit Spezial 2" || upd.JSON200.Key != "kredit_spezial" || len(upd.JSON200.CheckItems) != 2 {
		t.Errorf("after PATCH: %+v", upd.JSON200)
	}
	stale, err := c.UpdateTemplateWithResponse(ctx, tpl.Id, client.UpdateTemplateRequest{ExpectedRevision: 1, DisplayName: ptr("lost update")})
	expect(t, err, stale.StatusCode(), stale.Body, 409)
	wantError(t, stale.HTTPResponse, stale.Body, 409, client.ErrorCodeRevisionMismatch)

	// PUT replaces a whole list, in order; the revision grows.
	put, err := c.ReplaceTemplateCheckItemsWithResponse(ctx, tpl.Id, client.ReplaceTemplateCheckItemsRequest{
		ExpectedRevision: 2, Items: []client.CheckItemInput{{CheckId: "name_consistency"}, {CheckId: "documents_readable"}},
	})
	expect(t, err, put.StatusCode(), put.Body, 200)
	if put.JSON200.Revision != 3 || len(put.JSON200.CheckItems) != 2 || put.JSON200.CheckItems[0].CheckId != "name_consistency" || len(put.JSON200.DataFieldItems) != 2 {
		t.Errorf("after PUT: %+v", put.JSON200)
	}
	putReqs, err := c.ReplaceTemplateDocumentRequirementsWithResponse(ctx, tpl.Id, client.ReplaceTemplateDocumentRequirementsRequest{
		ExpectedRevision: 3, Items: []client.DocumentRequirementInput{{DocumentTypeId: "id_card"}},
	})
	expect(t, err, putReqs.StatusCode(), putReqs.Body, 200)
	putFields, err := c.ReplaceTemplateDataFieldItemsWithResponse(ctx, tpl.Id, client.ReplaceTemplateDataFieldItemsRequest{ExpectedRevision: 4, Items: []client.DataFieldItemInput{}})
	expect(t, err, putFields.StatusCode(), putFields.Body, 200)
	if d := putFields.JSON200; d.Revision != 5 || len(d.DataFieldItems) != 0 || len(d.DocumentRequirements) != 1 || d.DocumentRequirements[0].Label != "ID card" {
		t.Errorf("after PUTs: %+v", d)
	}

	// Unknown, archived and repeated references: 422 on the indexed item; nothing changes.
	for _, tc := range []struct {
		items []client.CheckItemInput
		param string
	}{
		{[]client.CheckItemInput{{CheckId: "documents_readable"}, {CheckId: "no_such_check"}}, "items[1].check_id"},
		{[]client.CheckItemInput{{CheckId: uuid.NewString()}}, "items[0].check_id"},
		{[]client.CheckItemInput{{CheckId: archivedCheck.JSON201.Id}}, "items[0].check_id"},
		{[]client.CheckItemInput{{CheckId: "iban"}}, "items[0].check_id"}, // a data field, not a check
		{[]client.CheckItemInput{{CheckId: custom.JSON201.Id}, {CheckId: "documents_readable"}, {CheckId: custom.JSON201.Key}}, "items[2].check_id"},
	} {
		res, err := c.ReplaceTemplateCheckItemsWithResponse(ctx, tpl.Id, client.ReplaceTemplateCheckItemsRequest{ExpectedRevision: 5, Items: tc.items})
		expect(t, err, res.StatusCode(), res.Body, 422)
		if d := wantError(t, res.HTTPResponse, res.Body, 422, client.ErrorCodeInvalidField); deref(d.Param) != tc.param {
			t.Errorf("items %v: param %q, want %q", tc.items, deref(d.Param), tc.param)
		}
	}
	now, err := c.GetTemplateWithResponse(ctx, tpl.Id)
	expect(t, err, now.StatusCode(), now.Body, 200)
	if now.JSON200.Revision != 5 {
		t.Errorf("refused writes changed the revision to %d", now.JSON200.Revision)
	}

	// Builtin templates are read-only: customize them by duplicating.
	for _, res := range []struct {
		status int
		body   []byte
		err    error
	}{
		call(c.UpdateTemplateWithResponse(ctx, "personal_loan", client.UpdateTemplateRequest{ExpectedRevision: 1, DisplayName: ptr("x")})),
		call(c.DeleteTemplateWithResponse(ctx, "personal_loan")),
		call(c.ReplaceTemplateCheckItemsWithResponse(ctx, "personal_loan", client.ReplaceTemplateCheckItemsRequest{ExpectedRevision: 1, Items: []client.CheckItemInput{}})),
	} {
		expect(t, res.err, res.status, res.body, 422)
	}
	for _, path := range []string{"/v1/templates/personal_loan", "/v1/templates/personal_loan/document_requirements", "/v1/templates/personal_loan/data_field_items"} {
		method, body := "PUT", `{"expected_revision": 1, "items": []}`
		if path == "/v1/templates/personal_loan" {
			method, body = "PATCH", `{"expected_revision": 1, "display_name": "x"}`
		}
		res, b := e.raw(method, path, key, "application/json", strings.NewReader(body))
		if d := wantError(t, res, b, 422, client.ErrorCodeInvalidField); deref(d.Param) != "template_id" {
			t.Errorf("%s %s: param %q", method, path, deref(d.Param))
		}
	}
	dup, err := c.DuplicateTemplateWithResponse(ctx, "personal_loan", nil, client.DuplicateTemplateRequest{})
	expect(t, err, dup.StatusCode(), dup.Body, 201)
	loan, _ := c.GetTemplateWithResponse(ctx, "personal_loan")
	if d := dup.JSON201; d.Builtin || d.IsDefault || d.Revision != 1 || d.DisplayName != loan.JSON200.DisplayName || d.Key != "personal_loan_2" ||
		len(d.DocumentRequirements) != 3 || len(d.CheckItems) != len(loan.JSON200.CheckItems) || len(d.DataFieldItems) != len(loan.JSON200.DataFieldItems) ||
		d.DataFieldItems[0] != loan.JSON200.DataFieldItems[0] || d.DocumentRequirements[1] != loan.JSON200.DocumentRequirements[1] {
		t.Errorf("duplicate: %+v", d)
	}
	named, err := c.DuplicateTemplateWithResponse(ctx, tpl.Id, nil, client.DuplicateTemplateRequest{DisplayName: ptr("Copy")})
	expect(t, err, named.StatusCode(), named.Body, 201)
	if named.JSON201.DisplayName != "Copy" || named.JSON201.Key != "copy" || len(named.JSON201.CheckItems) != 2 {
		t.Errorf("named duplicate: %+v", named.JSON201)
	}

	// DELETE archives: readable, unlisted, frozen; a second DELETE is a no-op.
	gone, err := c.DeleteTemplateWithResponse(ctx, tpl.Id)
	expect(t, err, gone.StatusCode(), gone.Body, 204)
	after, err := c.GetTemplateWithResponse(ctx, tpl.Id)
	expect(t, err, after.StatusCode(), after.Body, 200)
	if !after.JSON200.Archived || after.JSON200.Revision != 6 {
		t.Errorf("archived template: %+v", after.JSON200)
	}
	frozen, err := c.UpdateTemplateWithResponse(ctx, tpl.Id, client.UpdateTemplateRequest{ExpectedRevision: 6, DisplayName: ptr("x")})
	expect(t, err, frozen.StatusCode(), frozen.Body, 422)
	gone, err = c.DeleteTemplateWithResponse(ctx, tpl.Id)
	expect(t, err, gone.StatusCode(), gone.Body, 204)
	list, err := c.ListTemplatesWithResponse(ctx, nil)
	expect(t, err, list.StatusCode(), list.Body, 200)
	for _, x := range list.JSON200.Data {
		if x.Id == tpl.Id {
			t.Error("archived template listed")
		}
	}
	if len(list.JSON200.Data) != 4 {
		t.Errorf("%d templates listed, want 2 builtin + 2 duplicates", len(list.JSON200.Data))
	}

	// A custom template or entry is found by its key as well as its UUID (getTemplate,
	// getCheck), and a template may name a custom entry by its key.
	byKey, err := c.GetTemplateWithResponse(ctx, named.JSON201.Key)
	expect(t, err, byKey.StatusCode(), byKey.Body, 200)
	checkByKey, err := c.GetCheckWithResponse(ctx, custom.JSON201.Key)
	expect(t, err, checkByKey.StatusCode(), checkByKey.Body, 200)
	viaKey, err := c.CreateTemplateWithResponse(ctx, nil, client.CreateTemplateRequest{
		DisplayName: "Via key", CheckItems: &[]client.CheckItemInput{{CheckId: custom.JSON201.Key}},
	})
	expect(t, err, viaKey.StatusCode(), viaKey.Body, 201)
	if byKey.JSON200.Id != named.JSON201.Id || checkByKey.JSON200.Id != custom.JSON201.Id ||
		len(viaKey.JSON201.CheckItems) != 1 || viaKey.JSON201.CheckItems[0].CheckId != custom.JSON201.Id {
		t.Errorf("by key: template %s, check %s, item %+v", byKey.JSON200.Id, checkByKey.JSON200.Id, viaKey.JSON201.CheckItems)
	}
}

func call[R interface{ StatusCode() int }](res R, err error) struct {
	status int
	body   []byte
	err    error
} {
	out := struct {
		status int
		body   []byte
		err    error
	}{err: err}
	if err == nil {
		out.status = res.StatusCode()
	}
	return out
}

func TestTemplateDefault(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	id, key := e.newClient()
	c := e.client(key)
	mk := func(name string) client.TemplateDetail {
		res, err := c.CreateTemplateWithResponse(ctx, nil, client.CreateTemplateRequest{DisplayName: name})
		expect(t, err, res.StatusCode(), res.Body, 201)
		return *res.JSON201
	}
	a, b := mk("A"), mk("B")
	isDefault := func(ref string) (bool, int) {
		res, err := c.GetTemplateWithResponse(ctx, ref)
		expect(t, err, res.StatusCode(), res.Body, 200)
		return res.JSON200.IsDefault, res.JSON200.Revision
	}
	snapshotOf := func() string {
		s, err := e.store.Tenant(id).TemplateSnapshot(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		return s.TemplateID
	}
	if d, _ := isDefault("personal_real_estate_financing"); !d || snapshotOf() != "personal_real_estate_financing" {
		t.Fatal("without a custom default the builtin is the default")
	}

	res, err := c.UpdateTemplateWithResponse(ctx, a.Id, client.UpdateTemplateRequest{ExpectedRevision: 1, IsDefault: ptr(true)})
	expect(t, err, res.StatusCode(), res.Body, 200)
	if !res.JSON200.IsDefault || snapshotOf() != a.Id {
		t.Fatalf("A is not the default: %+v", res.JSON200)
	}
	if d, _ := isDefault("personal_real_estate_financing"); d {
		t.Error("builtin still default next to a custom one")
	}
	// Setting B clears A (a write to A: its revision grows).
	res, err = c.UpdateTemplateWithResponse(ctx, b.Id, client.UpdateTemplateRequest{ExpectedRevision: 1, IsDefault: ptr(true)})
	expect(t, err, res.StatusCode(), res.Body, 200)
	if d, rev := isDefault(a.Id); d || rev != 3 {
		t.Errorf("A after B became default: default %v, revision %d (want false, 3)", d, rev)
	}
	if snapshotOf() != b.Id {
		t.Error("snapshot does not use B")
	}
	// Archiving the default falls back to the builtin; an archived template makes no snapshot.
	del, err := c.DeleteTemplateWithResponse(ctx, b.Id)
	expect(t, err, del.StatusCode(), del.Body, 204)
	if d, _ := isDefault("personal_real_estate_financing"); !d || snapshotOf() != "personal_real_estate_financing" {
		t.Error("builtin not default after archiving the custom default")
	}
	if _, err := e.store.Tenant(id).TemplateSnapshot(ctx, b.Id); !errors.Is(err, catalog.ErrArchived) {
		t.Errorf("snapshot of an archived template: %v, want ErrArchived", err)
	}
	// is_default false clears it.
	res, err = c.UpdateTemplateWithResponse(ctx, a.Id, client.UpdateTemplateRequest{ExpectedRevision: 3, IsDefault: ptr(true)})
	expect(t, err, res.StatusCode(), res.Body, 200)
	res, err = c.UpdateTemplateWithResponse(ctx, a.Id, client.UpdateTemplateRequest{ExpectedRevision: 4, IsDefault: ptr(false)})
	expect(t, err, res.StatusCode(), res.Body, 200)
	if res.JSON200.IsDefault || snapshotOf() != "personal_real_estate_financing" {
		t.Error("is_default false did not clear the default")
	}
}

// Writers racing with the same expected_revision: exactly one wins.
func TestTemplateConcurrentWrites(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	_, key := e.newClient()
	c := e.client(key)
	created, err := c.CreateTemplateWithResponse(ctx, nil, client.CreateTemplateRequest{DisplayName: "Race"})
	expect(t, err, created.StatusCode(), created.Body, 201)
	id := created.JSON201.Id

	for round, write := range []func(i int) (int, error){
		func(i int) (int, error) {
			res, err := c.UpdateTemplateWithResponse(ctx, id, client.UpdateTemplateRequest{ExpectedRevision: 1, DisplayName: ptr(string(rune('a' + i)))})
			return statusOf(res, err)
		},
		func(i int) (int, error) {
			res, err := c.ReplaceTemplateCheckItemsWithResponse(ctx, id, client.ReplaceTemplateCheckItemsRequest{ExpectedRevision: 2, Items: []client.CheckItemInput{{CheckId: "documents_readable"}}})
			return statusOf(res, err)
		},
		func(i int) (int, error) { // setting the default races on the client lock as well
			res, err := c.UpdateTemplateWithResponse(ctx, id, client.UpdateTemplateRequest{ExpectedRevision: 3, IsDefault: ptr(true)})
			return statusOf(res, err)
		},
	} {
		const writers = 6
		var wg sync.WaitGroup
		statuses := make([]int, writers)
		for i := range writers {
			wg.Go(func() {
				s, err := write(i)
				if err != nil {
					t.Error(err)
				}
				statuses[i] = s
			})
		}
		wg.Wait()
		won, lost := 0, 0
		for _, s := range statuses {
			switch s {
			case 200:
				won++
			case 409:
				lost++
			}
		}
		if won != 1 || lost != writers-1 {
			t.Fatalf("round %d: statuses %v, want one 200 and %d 409", round, statuses, writers-1)
		}
	}
	final, err := c.GetTemplateWithResponse(ctx, id)
	expect(t, err, final.StatusCode(), final.Body, 200)
	if final.JSON200.Revision != 4 || !final.JSON200.IsDefault || len(final.JSON200.CheckItems) != 1 {
		t.Errorf("final: %+v", final.JSON200)
	}
}

func statusOf[R interface{ StatusCode() int }](res R, err error) (int, error) {
	if err != nil {
		return 0, err
	}
	return res.StatusCode(), nil
}

// A snapshot keeps the entry versions it was taken with; edits make new versions that
// only later snapshots see.
func TestSnapshotKeepsVersions(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	id, key := e.newClient()
	c := e.client(key)
	chk, err := c.CreateCheckWithResponse(ctx, nil, client.CreateCheckRequest{Title: "Employer plausible", Prompt: "Is the employer a real company?"})
	expect(t, err, chk.StatusCode(), chk.Body, 201)
	field, err := c.CreateDataFieldWithResponse(ctx, nil, client.CreateDataFieldRequest{DisplayName: "Bonus", Prompt: "Yearly bonus"})
	expect(t, err, field.StatusCode(), field.Body, 201)
	tpl, err := c.CreateTemplateWithResponse(ctx, nil, client.CreateTemplateRequest{
		DisplayName:          "Snap",
		DocumentRequirements: &[]client.DocumentRequirementInput{{DocumentTypeId: "salary_statement", AllowMultipleFiles: ptr(true)}},
		CheckItems:           &[]client.CheckItemInput{{CheckId: chk.JSON201.Id}, {CheckId: "documents_readable"}},
		DataFieldItems:       &[]client.DataFieldItemInput{{DataFieldId: field.JSON201.Id, Required: ptr(true), ConfidenceThreshold: ptr(0.7)}},
	})
	expect(t, err, tpl.StatusCode(), tpl.Body, 201)

	tenant := e.store.Tenant(id)
	before, err := tenant.TemplateSnapshot(ctx, tpl.JSON201.Id)
	if err != nil {
		t.Fatal(err)
	}
	stored, _ := json.Marshal(before) // what a submission keeps

	upd, err := c.UpdateCheckWithResponse(ctx, chk.JSON201.Id, client.UpdateCheckRequest{Title: ptr("Employer verified"), Prompt: ptr("Verify the employer in the register.")})
	expect(t, err, upd.StatusCode(), upd.Body, 200)
	// An edit that changes nothing makes no version.
	same, err := c.UpdateCheckWithResponse(ctx, chk.JSON201.Id, client.UpdateCheckRequest{Title: ptr("Employer verified")})
	expect(t, err, same.StatusCode(), same.Body, 200)

	var kept submission.Snapshot
	if err := json.Unmarshal(stored, &kept); err != nil {
		t.Fatal(err)
	}
	old := kept.Checks[0]
	if old.Title != "Employer plausible" || deref(old.Prompt) != "Is the employer a real company?" || old.Check.Version != 1 || old.Check.ID != chk.JSON201.Id {
		t.Errorf("stored snapshot check: %+v", old)
	}
	after, err := tenant.TemplateSnapshot(ctx, tpl.JSON201.Id)
	if err != nil {
		t.Fatal(err)
	}
	cur := after.Checks[0]
	if cur.Title != "Employer verified" || deref(cur.Prompt) != "Verify the employer in the register." || cur.Check.Version != 2 || cur.Check.ID != chk.JSON201.Id {
		t.Errorf("new snapshot check: %+v", cur)
	}
	// The template shows the new version too.
	detail, err := c.GetTemplateWithResponse(ctx, tpl.JSON201.Id)
	expect(t, err, detail.StatusCode(), detail.Body, 200)
	if detail.JSON200.CheckItems[0].Title != "Employer verified" {
		t.Errorf("template check title %q", detail.JSON200.CheckItems[0].Title)
	}

	// The rest of the snapshot: builtin versions, requirement labels and item settings.
	if b := after.Checks[1]; !b.Check.Builtin || b.Check.ID != "documents_readable" || b.Prompt != nil || b.Title == "" {
		t.Errorf("builtin check in snapshot: %+v", b)
	}
	if r := after.DocumentRequirements[0]; r.DocumentType.ID != "salary_statement" || r.Label != "Salary statement" || !r.Required || !r.AllowMultipleFiles {
		t.Errorf("requirement in snapshot: %+v", r)
	}
	if f := after.DataFields[0]; f.DisplayName != "Bonus" || deref(f.Prompt) != "Yearly bonus" || !f.Required || f.ConfidenceThreshold != 0.7 {
		t.Errorf("data field in snapshot: %+v", f)
	}
	if after.TemplateRevision != 1 || after.TemplateID != tpl.JSON201.Id {
		t.Errorf("snapshot template: %s rev %d", after.TemplateID, after.TemplateRevision)
	}
}
