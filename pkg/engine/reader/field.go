package reader

import (
	"math"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/doceval/doceval/pkg/catalog/builtin"
	"github.com/doceval/doceval/pkg/engine/evidence"
	"github.com/doceval/doceval/pkg/engine/parse"
)

// Field picks the value of one builtin data field from the facts of all documents of a
// submission (types per upload id), with its supporting facts: the chosen one first,
// then the others that agree with it. Agreeing facts of other uploads raise the chosen
// one's confidence. ok is false when no document states the field.
func Field(key string, facts []evidence.Fact, types map[uuid.UUID][]string) (best evidence.Fact, support []evidence.Fact, ok bool) {
	return FieldBy(key, facts, func(f evidence.Fact) []string { return types[f.Citation.UploadID] })
}

// FieldBy is Field with the types of the logical document each fact was read from
// (an upload may hold several, see Split).
func FieldBy(key string, facts []evidence.Fact, typesOf func(evidence.Fact) []string) (best evidence.Fact, support []evidence.Fact, ok bool) {
	order := readFrom(key)
	rank := func(f evidence.Fact) int {
		r := len(order)
		for _, typ := range typesOf(f) {
			if i := slices.Index(order, typ); i >= 0 && i < r {
				r = i
			}
		}
		return r
	}
	var cands []evidence.Fact
	for _, f := range facts {
		if f.Key == key {
			cands = append(cands, f)
		}
	}
	if len(cands) == 0 {
		return evidence.Fact{}, nil, false
	}
	slices.SortStableFunc(cands, func(a, b evidence.Fact) int {
		if ra, rb := rank(a), rank(b); ra != rb {
			return ra - rb
		}
		if !a.Period.Equal(b.Period) {
			if a.Period.After(b.Period) {
				return -1
			}
			return 1
		}
		switch {
		case a.Confidence > b.Confidence:
			return -1
		case a.Confidence < b.Confidence:
			return 1
		}
		return 0
	})
	best = cands[0]
	if key == "applicant_full_name" {
		best = bestSpelling(best, cands)
	}
	support = []evidence.Fact{best}
	miss := 1 - best.Confidence
	for _, f := range cands {
		if f.Citation.Excerpt == best.Citation.Excerpt && f.Citation.UploadID == best.Citation.UploadID {
			continue
		}
		if !sameValue(key, best.Value, f.Value) {
			continue
		}
		support = append(support, f)
		if f.Citation.UploadID != best.Citation.UploadID && !slices.ContainsFunc(support[1:len(support)-1], func(g evidence.Fact) bool {
			return g.Citation.UploadID == f.Citation.UploadID
		}) {
			// Only another upload is independent evidence: two pages of one scan share
			// its misreadings. Each upload counts once.
			miss *= 1 - f.Confidence*0.5
		}
	}
	conf := 1 - miss
	// Another upload that says otherwise, for the same period and from a document as
	// apt to state the field: one of them is misread, and nothing here says which.
	for _, f := range cands {
		if f.Citation.UploadID == best.Citation.UploadID || rank(f) != rank(best) || !f.Period.Equal(best.Period) ||
			f.Confidence < disagreementFloor || multiValued[key] || sameValue(key, best.Value, f.Value) || similarText(best.Value, f.Value) {
			continue
		}
		conf *= 1 - disagreementWeight*f.Confidence
	}
	best.Confidence = round2(min(0.99, conf))
	support[0] = best
	return best, support, true
}

// readFrom is the product rule for which document a builtin data field is taken from
// (the catalog's read_from): the document types whose statement of it counts, best
// first; within a type the newest statement (Fact.Period) wins, then the more
// confident one. A fact of a document of no listed type is used only when no listed
// one states the field. Nil for a key that is no builtin field.
func readFrom(key string) []string {
	f, _ := builtin.MustLoad().DataField(key)
	return f.ReadFrom
}

// A fact of another upload that disagrees lowers the chosen one's confidence by this
// share of its own confidence, when it is at least disagreementFloor sure.
const (
	disagreementWeight = 0.5
	disagreementFloor  = 0.5
)

// multiValued fields may rightly differ between documents of one kind: an applicant
// may hold several accounts.
var multiValued = map[string]bool{"iban": true}

// similarText reports two texts of which one holds the other once folded: "Nordlicht
// Logistik" and "Nordlicht Logistik AG" are no disagreement.
func similarText(a, b any) bool {
	x, ok1 := a.(string)
	y, ok2 := b.(string)
	if !ok1 || !ok2 {
		return false
	}
	fx, fy := foldName(x), foldName(y)
	return fx != "" && fy != "" && (strings.Contains(fx, fy) || strings.Contains(fy, fx))
}

// sameValue reports whether two values of a field agree: money to the cent, dates to
// the day, numbers within 0.5 %, names as the same person, other text folded.
func sameValue(key string, a, b any) bool {
	switch x := a.(type) {
	case parse.Money:
		y, ok := b.(parse.Money)
		return ok && x == y
	case time.Time:
		y, ok := b.(time.Time)
		return ok && x.Equal(y)
	case float64:
		y, ok := b.(float64)
		return ok && math.Abs(x-y) <= 0.005*math.Max(math.Abs(x), math.Abs(y))
	case string:
		y, ok := b.(string)
		if !ok {
			return false
		}
		if key == "applicant_full_name" {
			return SameName(x, y)
		}
		return foldName(x) == foldName(y)
	}
	return false
}

// SameName reports whether two names in natural order ("Given Surname") denote the same
// person: case, umlaut transliteration (ä/ae, ß/ss), other diacritics and a missing
// middle name do not matter; the first given name and the surname must agree.
func SameName(a, b string) bool {
	same := func(fa, fb []string) bool {
		return len(fa) >= 2 && len(fb) >= 2 && fa[0] == fb[0] && fa[len(fa)-1] == fb[len(fb)-1]
	}
	// "Kühn" is "Kuehn", and also "Kuhn" where OCR or a keyboard lost the umlaut.
	return same(strings.Fields(foldName(a)), strings.Fields(foldName(b))) ||
		same(strings.Fields(foldString(a)), strings.Fields(foldString(b)))
}

// bestSpelling keeps the chosen name but, where OCR lost its diacritics ("KUHN" for
// "KÜHN"), prefers a fact of the same name, word for word, that has them.
func bestSpelling(best evidence.Fact, cands []evidence.Fact) evidence.Fact {
	name, _ := best.Value.(string)
	for _, f := range cands {
		other, _ := f.Value.(string)
		if other != name && foldString(other) == foldString(name) && diacritics(other) > diacritics(name) {
			return f
		}
	}
	return best
}

func diacritics(s string) int {
	n := 0
	for _, r := range s {
		if r > 127 {
			n++
		}
	}
	return n
}

var transliteration = strings.NewReplacer("ä", "ae", "ö", "oe", "ü", "ue", "ß", "ss", "Ä", "ae", "Ö", "oe", "Ü", "ue", "ẞ", "ss")

// foldName lowercases, transliterates umlauts and drops other diacritics.
func foldName(s string) string {
	s = transliteration.Replace(strings.ToLower(s))
	return strings.Join(strings.Fields(foldString(s)), " ")
}
