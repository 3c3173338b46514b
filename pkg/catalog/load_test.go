package catalog_test

import (
	"context"
	"sync"
	"testing"

	"github.com/google/uuid"

	"github.com/doceval/doceval/pkg/catalog"
	"github.com/doceval/doceval/pkg/catalog/builtin"
	domaincatalog "github.com/doceval/doceval/pkg/domain/catalog"
	"github.com/doceval/doceval/pkg/store"
	"github.com/doceval/doceval/pkg/testkit/dbtest"
)

func counts(t *testing.T, st *store.Store) (entries, versions, templates, revisions int) {
	t.Helper()
	err := st.Pool().QueryRow(context.Background(), `SELECT
		(SELECT count(*) FROM catalog_entries), (SELECT count(*) FROM catalog_entry_versions),
		(SELECT count(*) FROM templates), (SELECT coalesce(sum(revision), 0) FROM templates)`).Scan(&entries, &versions, &templates, &revisions)
	if err != nil {
		t.Fatal(err)
	}
	return
}

// Replicas starting together load the catalog once; loading again changes nothing.
func TestLoadIdempotentAndConcurrent(t *testing.T) {
	ctx := context.Background()
	pool, _ := dbtest.NewEmpty(t)
	if err := store.Migrate(ctx, pool); err != nil {
		t.Fatal(err)
	}
	st := store.New(pool)
	var wg sync.WaitGroup
	errs := make([]error, 3)
	for i := range errs {
		wg.Go(func() { errs[i] = catalog.Load(ctx, st) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	e, v, tpl, rev := counts(t, st)
	c := builtin.MustLoad()
	want := len(c.DocumentTypes) + len(c.DataFields) + len(c.Checks)
	if e != want || v != want || tpl != len(c.Templates) || rev != len(c.Templates) {
		t.Fatalf("after load: %d entries, %d versions, %d templates, revisions %d", e, v, tpl, rev)
	}
	if err := catalog.Load(ctx, st); err != nil {
		t.Fatal(err)
	}
	if e2, v2, tpl2, rev2 := counts(t, st); e2 != e || v2 != v || tpl2 != tpl || rev2 != rev {
		t.Errorf("second load changed the catalog: %d %d %d %d", e2, v2, tpl2, rev2)
	}
}

// A changed data file makes a new version of the entry and a new revision of the
// template; nothing else moves.
func TestLoadAppliesDataChanges(t *testing.T) {
	ctx := context.Background()
	st := store.New(dbtest.New(t))
	b, err := catalog.Parse()
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range b.Entries {
		if e.Family == domaincatalog.FamilyDocumentType && e.Key == "id_card" {
			b.Entries[i].Description = "A national identity card."
		}
	}
	no := false
	b.Templates[1].DocumentRequirements[0].Required = &no
	if err := st.LoadBuiltins(ctx, b.Entries, b.Templates); err != nil {
		t.Fatal(err)
	}
	tenant := st.Tenant(uuid.New())
	idCard, err := tenant.CatalogEntry(ctx, domaincatalog.FamilyDocumentType, "id_card")
	if err != nil {
		t.Fatal(err)
	}
	if idCard.Version != 2 || idCard.Description != "A national identity card." {
		t.Errorf("id_card: version %d, description %q", idCard.Version, idCard.Description)
	}
	passport, err := tenant.CatalogEntry(ctx, domaincatalog.FamilyDocumentType, "passport")
	if err != nil || passport.Version != 1 {
		t.Errorf("passport: %v, version %d", err, passport.Version)
	}
	loan, err := tenant.Template(ctx, "personal_loan")
	if err != nil {
		t.Fatal(err)
	}
	if loan.Revision != 2 || loan.DocumentRequirements[0].Required || loan.DocumentRequirements[0].Entry.Description != "A national identity card." {
		t.Errorf("personal_loan: revision %d, %+v", loan.Revision, loan.DocumentRequirements[0])
	}
	prf, err := tenant.Template(ctx, store.BuiltinDefaultTemplate)
	if err != nil || prf.Revision != 1 {
		t.Errorf("untouched template: %v, revision %d", err, prf.Revision)
	}
}
