package catalog

import (
	"testing"

	"github.com/doceval/doceval/pkg/catalog/builtin"
	domaincatalog "github.com/doceval/doceval/pkg/domain/catalog"
	"github.com/doceval/doceval/pkg/store"
)

// The data files map to the store's entries and templates, without the model prompts.
func TestParse(t *testing.T) {
	b, err := Parse()
	if err != nil {
		t.Fatal(err)
	}
	count := map[domaincatalog.Family]int{}
	for _, e := range b.Entries {
		count[e.Family]++
		if e.Prompt != nil {
			t.Errorf("builtin %s %s carries a prompt", e.Family, e.Key)
		}
		if e.Family != domaincatalog.FamilyDataField && e.Description == "" {
			t.Errorf("builtin %s %s has no description", e.Family, e.Key)
		}
	}
	c := builtin.MustLoad()
	if count[domaincatalog.FamilyDocumentType] != len(c.DocumentTypes) || count[domaincatalog.FamilyDataField] != len(c.DataFields) || count[domaincatalog.FamilyCheck] != len(c.Checks) {
		t.Errorf("entries per family: %v, want those of the data files", count)
	}
	if len(b.Templates) != 2 || b.Templates[0].Key != store.BuiltinDefaultTemplate || b.Templates[1].Key != "personal_loan" {
		t.Fatalf("templates: %+v", b.Templates)
	}
	required := func(items []domaincatalog.ItemInput) (out []string) {
		for _, it := range items {
			if *it.Required {
				out = append(out, it.Ref)
			}
		}
		return out
	}
	if got := required(b.Templates[0].DocumentRequirements); len(got) != 4 || got[0] != "id_card" || got[3] != "property_expose" {
		t.Errorf("personal_real_estate_financing requires %v", got)
	}
	if got := required(b.Templates[1].DocumentRequirements); len(got) != 3 || got[2] != "bank_statement" {
		t.Errorf("personal_loan requires %v", got)
	}
	if Hash() == "" {
		t.Error("no hash")
	}
}
