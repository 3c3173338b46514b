package llm

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/doceval/doceval/pkg/engine/evidence"
	"github.com/google/uuid"
)

// Confidence caps applied when the model's evidence does not hold up.
const (
	// CapCitationDropped: at least one citation was not on its page.
	CapCitationDropped = 0.5
	// CapNoEvidence: no verified citation supports the answer.
	CapNoEvidence = 0.3
	// CapValueNotInExcerpt: the field value is not in any verified excerpt.
	CapValueNotInExcerpt = 0.4
	// CapUnparsed: the printed value did not parse in the field's format (value nil).
	CapUnparsed = 0.2
	// CapNoVerdict: the model never gave a verdict in the vocabulary (status open).
	CapNoVerdict = 0.0
)

const (
	maxCitations    = 8
	minExcerptRunes = 3
	maxExcerptRunes = 1000
	ellipses        = "…. "
	quoteMarks      = "\"'„“”‚‘’«»"
)

// checked is the outcome of verifying the model's citations.
type checked struct {
	citations []evidence.Citation
	dropped   int
}

// verifyCitations keeps the citations whose excerpt is on the cited page of a document
// of the request and drops the rest. The model saw neutralized text, so an excerpt
// copied from it is also tried with the delimiters restored; leading and trailing
// ellipses and quote marks, which models like to add, are trimmed.
func verifyCitations(docs []*evidence.Document, in []modelCitation) checked {
	var out checked
	seen := map[string]bool{}
	for _, mc := range in {
		c, ok := verifyOne(docs, mc)
		if !ok {
			out.dropped++
			continue
		}
		key := fmt.Sprint(c.UploadID, c.Pages, c.Excerpt)
		if seen[key] || len(out.citations) >= maxCitations {
			continue
		}
		seen[key] = true
		out.citations = append(out.citations, c)
	}
	return out
}

func verifyOne(docs []*evidence.Document, mc modelCitation) (evidence.Citation, bool) {
	id, err := uuid.Parse(strings.TrimSpace(mc.UploadID))
	if err != nil || mc.Page <= 0 {
		return evidence.Citation{}, false
	}
	var doc *evidence.Document
	for _, d := range docs {
		if d != nil && d.UploadID == id {
			doc = d
			break
		}
	}
	if doc == nil {
		return evidence.Citation{}, false
	}
	raw := evidence.Normalize(mc.Excerpt)
	trimmed := strings.Trim(raw, ellipses+quoteMarks)
	for _, excerpt := range []string{raw, trimmed, unneutralize(raw), unneutralize(trimmed)} {
		n := utf8.RuneCountInString(strings.ReplaceAll(excerpt, " ", ""))
		if n < minExcerptRunes || utf8.RuneCountInString(excerpt) > maxExcerptRunes {
			continue
		}
		c := doc.Cite(int(mc.Page), excerpt)
		if doc.Verify(c) {
			return c, true
		}
	}
	return evidence.Citation{}, false
}

// capped lowers conf to limit.
func capped(conf, limit float64) float64 { return min(conf, limit) }

// evidenceConfidence applies the citation caps: dropped citations make the model less
// credible, no remaining evidence even more.
func evidenceConfidence(conf float64, v checked, needEvidence bool) float64 {
	if len(v.citations) == 0 && (needEvidence || v.dropped > 0) {
		return capped(conf, CapNoEvidence)
	}
	if v.dropped > 0 {
		return capped(conf, CapCitationDropped)
	}
	return conf
}
