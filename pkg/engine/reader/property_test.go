package reader

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/doceval/doceval/pkg/engine/parse"
)

func exposeFacts(t *testing.T, text string) map[string][]any {
	t.Helper()
	doc := document("property_expose", text)
	fs := Facts(doc, []string{"property_expose"})
	for _, f := range fs {
		require.True(t, doc.Verify(f.Citation), "%s cites %q", f.Key, f.Citation.Excerpt)
	}
	return factsByKey(fs)
}

// A portal exposé: the agent's office in the letterhead and the contact block, the
// property's address only in the fact table.
func TestExposeAddressIsNotTheAgents(t *testing.T) {
	t.Parallel()
	got := exposeFacts(t, `                         Hansestadt Immobilienkontor e.K.
                         Neuer Wall 31
                         20354 Hamburg

Exposé Nr. W-4471
3-Zimmer-Etagenwohnung mit Balkon

Objektdaten
Lage            Eppendorfer Weg 88, 20259 Hamburg
Baujahr         1998
Wohnfläche ca.  85,5 m²
Kaufpreis       489.000,00 €
Preis/m²        5.719,30 €

Ihr Ansprechpartner
Svenja Paulsen, Hansestadt Immobilienkontor e.K.
Neuer Wall 31, 20354 Hamburg
Tel. 040 123456
`)
	require.Equal(t, []any{"Eppendorfer Weg 88, 20259 Hamburg"}, got["property_address"])
	require.Equal(t, []any{parse.Money{Cents: 48900000, Currency: "EUR"}}, got["purchase_price"])
	require.Equal(t, []any{85.5}, got["living_area"])
	require.Equal(t, []any{"1998"}, got["year_of_construction"])
}

// When the portal hides the street, the agent's street is not borrowed.
func TestExposeWithoutStreetBorrowsNothing(t *testing.T) {
	t.Parallel()
	got := exposeFacts(t, `Die helle 3-Zimmer-Wohnung mit Balkon
20259 Hamburg (Adresse auf Anfrage)

Kaufpreis 389.000 €   Zimmer 3   Wohnfläche ca. 85 m²

Ihr Ansprechpartner
Svenja Paulsen, Hansestadt Immobilienkontor e.K.
Neuer Wall 31, 20354 Hamburg
Tel. 040 123456
`)
	require.Empty(t, got["property_address"])
	require.Equal(t, []any{parse.Money{Cents: 38900000, Currency: "EUR"}}, got["purchase_price"])
}

// A prose exposé in English: the address with the town first in the text, the area
// and the year before their labels, a parking space's price beside the asking price.
func TestProseExpose(t *testing.T) {
	t.Parallel()
	got := exposeFacts(t, `Bright 3-room home with balcony

This bright flat in 80331 München, Sendlinger Straße 12 offers approx. 85.5 m² of
living space. The building dates from 1998 (year of construction), the heating was
renewed in 2015. A garage space is available for an extra 25,000 €. The asking price
is 389,000 € plus 3.57 % buyer's commission.
`)
	require.Equal(t, []any{"Sendlinger Straße 12, 80331 München"}, got["property_address"])
	require.Equal(t, []any{"1998"}, got["year_of_construction"])
	require.Equal(t, []any{parse.Money{Cents: 38900000, Currency: "EUR"}}, got["purchase_price"])
}

func FuzzExpose(f *testing.F) {
	f.Add("Lage  Eppendorfer Weg 88, 20259 Hamburg\n\nIhr Ansprechpartner\nNeuer Wall 31, 20354 Hamburg\nTel. 040 123456")
	f.Add("in 80331 München, Sendlinger Straße 12 offers approx. 85.5 m² of\nliving space. dates from 1998 (year of construction)")
	f.Fuzz(func(t *testing.T, s string) {
		doc := document("property_expose", s)
		for _, fact := range Facts(doc, []string{"property_expose"}) {
			require.True(t, doc.Verify(fact.Citation), "%s cites %q", fact.Key, fact.Citation.Excerpt)
		}
	})
}

// The object's own label counts even in a short block that names the agent.
func TestObjectLabelBesideAgent(t *testing.T) {
	t.Parallel()
	got := exposeFacts(t, `Exposé
Objektadresse: Lindenstraße 12, 50667 Köln
Anbieter: Rheinland Wohnbau Makler GmbH, Am Markt 4, 50667 Köln
`)
	require.Equal(t, []any{"Lindenstraße 12, 50667 Köln"}, got["property_address"])
}
