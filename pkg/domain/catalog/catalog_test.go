package catalog_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/doceval/doceval/pkg/domain/catalog"
)

func TestCheckWritable(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name              string
		builtin, archived bool
		want              error
	}{
		{"custom live", false, false, nil},
		{"builtin", true, false, catalog.ErrReadOnly},
		{"builtin archived", true, true, catalog.ErrReadOnly},
		{"custom archived", false, true, catalog.ErrArchived},
	} {
		err := catalog.CheckWritable(tc.builtin, tc.archived)
		if tc.want == nil {
			require.NoError(t, err, tc.name)
			continue
		}
		require.ErrorIs(t, err, tc.want, tc.name)
	}
}

func TestCheckRevision(t *testing.T) {
	t.Parallel()
	require.NoError(t, catalog.CheckRevision(3, 3))
	require.ErrorIs(t, catalog.CheckRevision(4, 3), catalog.ErrRevisionMismatch)
}

func TestCheckItem(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		kind   catalog.ItemKind
		ref    catalog.Reference
		reason string
	}{
		{catalog.KindCheck, catalog.Reference{Found: true}, ""},
		{catalog.KindCheck, catalog.Reference{}, `no check "x"`},
		{catalog.KindDocumentRequirement, catalog.Reference{Found: true, Archived: true}, `document_type "x" is archived`},
		{catalog.KindDataField, catalog.Reference{Found: true, Repeated: true}, `data_field "x" appears more than once`},
		// The first refusal that holds wins: unknown, then archived, then repeated.
		{catalog.KindCheck, catalog.Reference{Archived: true, Repeated: true}, `no check "x"`},
		{catalog.KindCheck, catalog.Reference{Found: true, Archived: true, Repeated: true}, `check "x" is archived`},
	} {
		err := catalog.CheckItem(tc.kind, 2, "x", tc.ref)
		if tc.reason == "" {
			require.NoError(t, err)
			continue
		}
		var item *catalog.ItemError
		require.ErrorAs(t, err, &item)
		require.Equal(t, catalog.ItemError{Kind: tc.kind, Index: 2, Reason: tc.reason}, *item)
	}
}

func TestContentEqual(t *testing.T) {
	t.Parallel()
	p, q := "a", "a"
	c := catalog.Content{Name: "n", Prompt: &p, ProductTypes: []string{"x"}}
	require.True(t, c.Equal(catalog.Content{Name: "n", Prompt: &q, ProductTypes: []string{"x"}}))
	require.False(t, c.Equal(catalog.Content{Name: "n", ProductTypes: []string{"x"}}))
	require.False(t, c.Equal(catalog.Content{Name: "n", Prompt: &p}))
}
