package engine

import (
	"slices"

	"github.com/google/uuid"

	"github.com/doceval/doceval/pkg/engine/evidence"
	"github.com/doceval/doceval/pkg/engine/reader"
)

// view is what the engine read from a submission's documents: each document's types,
// readability and facts.
type view struct {
	in    Input
	lang  string
	docs  []*docView
	facts []evidence.Fact
	types map[uuid.UUID][]string
}

type docView struct {
	doc         *evidence.Document
	types       []evidence.TypeScore
	readability string
	facts       []evidence.Fact
}

// read classifies one document and reads its facts.
func (v *view) read(d *evidence.Document) {
	if v.types == nil {
		v.types = map[uuid.UUID][]string{}
	}
	dv := &docView{doc: d, readability: readability(d)}
	switch {
	case dv.readability != ReadabilityFailed:
		dv.types = reader.Classify(d)
	case d.SlotType != "":
		// Nothing to read: the partner's slot is all there is to go by.
		dv.types = []evidence.TypeScore{{Type: d.SlotType, Confidence: 0.3}}
	}
	if len(dv.types) == 0 {
		dv.types = []evidence.TypeScore{{Type: "other", Confidence: 0}}
	}
	v.types[d.UploadID] = dv.typeKeys()
	if dv.readability != ReadabilityFailed {
		dv.facts = reader.Facts(d, v.types[d.UploadID])
	}
	v.docs = append(v.docs, dv)
	v.facts = append(v.facts, dv.facts...)
}

// typeKeys are the types the result lists: the best, and others nearly as likely (a
// document can be two things, a payslip with an employment certificate, say).
func (dv *docView) typeKeys() []string {
	out := []string{dv.types[0].Type}
	for _, t := range dv.types[1:] {
		if t.Confidence >= 0.6 && t.Confidence >= dv.types[0].Confidence-0.1 {
			out = append(out, t.Type)
		}
	}
	return out
}

// is reports whether the document's primary type is one of keys.
func (dv *docView) is(keys ...string) bool { return slices.Contains(keys, dv.types[0].Type) }

// ofType lists the readable documents whose primary type is one of keys.
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

func (v *view) resultDocuments() []ResultDocument {
	out := make([]ResultDocument, len(v.docs))
	for i, d := range v.docs {
		out[i] = ResultDocument{
			UploadID: d.doc.UploadID, FileID: d.doc.FileID, ExternalFileID: d.doc.ExternalFileID,
			DocumentSlotID: d.doc.SlotID, DocumentTypes: v.types[d.doc.UploadID], Readability: Readability{Status: d.readability},
		}
	}
	return out
}
