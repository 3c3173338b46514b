package engine

import (
	"cmp"
	"slices"

	"github.com/google/uuid"

	"github.com/doceval/doceval/pkg/engine/evidence"
	"github.com/doceval/doceval/pkg/engine/reader"
)

// view is what the engine read from a submission's documents: each upload's
// readability and the logical documents in it (an upload may hold several: one scan of
// an ID card, three payslips and a bank statement), each with its types and facts.
type view struct {
	in      Input
	lang    string
	uploads []*uploadView
	docs    []*docView // logical documents, in upload and page order
	facts   []evidence.Fact
	// types lists per upload every type found in it, best first: the result's
	// document_types, and what the model is told.
	types map[uuid.UUID][]string
}

// uploadView is one input upload as the result reports it (one ResultDocument each).
type uploadView struct {
	doc         *evidence.Document
	readability string
	docs        []*docView
}

// docView is one logical document: the whole upload, or the pages of it that make one
// document (evidence.Document with the upload's identity and a subset of its pages).
type docView struct {
	doc         *evidence.Document
	upload      *uploadView
	types       []evidence.TypeScore
	readability string
	facts       []evidence.Fact
}

// read splits one upload into its logical documents, classifies each and reads its
// facts with its own type.
func (v *view) read(d *evidence.Document) {
	if v.types == nil {
		v.types = map[uuid.UUID][]string{}
	}
	u := &uploadView{doc: d, readability: readability(d)}
	var parts []reader.Part
	switch {
	case u.readability != ReadabilityFailed:
		parts = reader.Split(d)
	case d.SlotType != "":
		// Nothing to read: the partner's slot is all there is to go by.
		parts = []reader.Part{{Doc: d, Types: []evidence.TypeScore{{Type: d.SlotType, Confidence: 0.3}}}}
	default:
		parts = []reader.Part{{Doc: d}}
	}
	for _, p := range parts {
		dv := &docView{doc: p.Doc, upload: u, types: p.Types, readability: u.readability}
		if len(parts) > 1 {
			dv.readability = readability(p.Doc)
		}
		if len(dv.types) == 0 {
			dv.types = []evidence.TypeScore{{Type: "other", Confidence: 0}}
		}
		if dv.readability != ReadabilityFailed {
			dv.facts = reader.Facts(p.Doc, dv.typeKeys())
		}
		u.docs = append(u.docs, dv)
		v.docs = append(v.docs, dv)
		v.facts = append(v.facts, dv.facts...)
	}
	v.uploads = append(v.uploads, u)
	v.types[d.UploadID] = u.typeKeys()
}

// typeKeys are the types the result lists for one logical document: the best, and
// others nearly as likely (a document can be two things, a payslip with an employment
// certificate, say).
func (dv *docView) typeKeys() []string {
	out := []string{dv.types[0].Type}
	for _, t := range dv.types[1:] {
		if t.Confidence >= 0.6 && t.Confidence >= dv.types[0].Confidence-0.1 {
			out = append(out, t.Type)
		}
	}
	return out
}

// typeKeys are the types of an upload: every logical document's, the type that covers
// most of the upload (pages weighted by classification confidence) first.
func (u *uploadView) typeKeys() []string {
	weight := map[string]float64{}
	var order []string
	for _, d := range u.docs {
		for i, t := range d.typeKeys() {
			if _, seen := weight[t]; !seen {
				order = append(order, t)
			}
			w := float64(len(d.doc.Pages)) * d.types[0].Confidence
			if i > 0 {
				w /= 2 // a secondary reading of the same pages
			}
			weight[t] += w
		}
	}
	slices.SortStableFunc(order, func(a, b string) int { return cmp.Compare(weight[b], weight[a]) })
	return order
}

// is reports whether the document's primary type is one of keys.
func (dv *docView) is(keys ...string) bool { return slices.Contains(keys, dv.types[0].Type) }

// ofType lists the readable logical documents whose primary type is one of keys.
func (v *view) ofType(keys ...string) []*docView {
	var out []*docView
	for _, d := range v.docs {
		if d.readability != ReadabilityFailed && d.is(keys...) {
			out = append(out, d)
		}
	}
	return out
}

// factsOf lists the facts with key read from the document.
func (dv *docView) factsOf(key string) []evidence.Fact {
	var out []evidence.Fact
	for _, f := range dv.facts {
		if f.Key == key {
			out = append(out, f)
		}
	}
	return out
}

// first is the document's first fact with key.
func (dv *docView) first(key string) (evidence.Fact, bool) {
	fs := dv.factsOf(key)
	if len(fs) == 0 {
		return evidence.Fact{}, false
	}
	return fs[0], true
}

// docOf is the logical document a fact was read from: the one of its upload holding
// the cited page.
func (v *view) docOf(f evidence.Fact) *docView {
	var fallback *docView
	for _, d := range v.docs {
		if d.doc.UploadID != f.Citation.UploadID {
			continue
		}
		if fallback == nil {
			fallback = d
		}
		if len(f.Citation.Pages) > 0 && d.doc.Page(f.Citation.Pages[0]) != nil {
			return d
		}
	}
	if fallback != nil {
		return fallback
	}
	return &docView{types: []evidence.TypeScore{{Type: "other"}}}
}

// typesOf are the types of the logical document a fact was read from: the document
// types a data field's read_from (package builtin) is judged by.
func (v *view) typesOf(f evidence.Fact) []string {
	d := v.docOf(f)
	if d.doc == nil {
		return v.types[f.Citation.UploadID]
	}
	return d.typeKeys()
}

func (v *view) resultDocuments() []ResultDocument {
	out := make([]ResultDocument, len(v.uploads))
	for i, u := range v.uploads {
		out[i] = ResultDocument{
			UploadID: u.doc.UploadID, FileID: u.doc.FileID, ExternalFileID: u.doc.ExternalFileID,
			DocumentSlotID: u.doc.SlotID, DocumentTypes: v.types[u.doc.UploadID], Readability: Readability{Status: u.readability},
		}
	}
	return out
}
