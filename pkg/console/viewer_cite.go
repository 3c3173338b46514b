package console

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"github.com/google/uuid"
	"golang.org/x/text/unicode/norm"

	"github.com/doceval/doceval/pkg/document"
	"github.com/doceval/doceval/pkg/domain/evaluation"
	"github.com/doceval/doceval/pkg/engine"
	"github.com/doceval/doceval/pkg/engine/evidence"
	"github.com/doceval/doceval/pkg/engine/layout"
	"github.com/doceval/doceval/pkg/store"
)

// A citation opened in the viewer is named, as the submission page links it, by its
// evaluation and its place in the result ("check-3-0": the fourth check's first
// citation); the viewer reads it from the stored result, never from the URL.

// citeView is a citation as the viewer shows it.
type citeView struct {
	Kind    string // "check" or "field"
	Title   string // the check's title, the field's label
	Value   string // the field's value
	Excerpt string
	Pages   []citedPage
	// Highlights are the excerpt's boxes on the viewed page; none when it could not be
	// located there (Located false).
	Highlights []highlight
	Located    bool
	OnPage     bool // the viewed page is one of the cited pages

	citation evidence.Citation
}

// citedPage is a page the citation names, linked in the viewer.
type citedPage struct {
	Number  int
	URL     string
	Current bool
}

// highlight is a box on the page as fractions of its width and height, formatted for
// the attributes of an SVG rect in a 0 0 1 1 viewBox.
type highlight struct{ X, Y, Width, Height string }

// citation reads the citation that q names from the submission's evaluation. A
// citation that cannot be shown is a notice (a message key), not an error: an
// evaluation superseded since the link was made, an item the result does not have, a
// citation of another upload.
func (a *app) citation(r *http.Request, tenant store.Tenant, d store.SubmissionDetail, upload uuid.UUID, q url.Values) (*citeView, string, error) {
	evaluationID, err := uuid.Parse(q.Get("evaluation"))
	if err != nil {
		return nil, "viewer.cite.missing", nil
	}
	kind, item, index, ok := parseCite(q.Get("cite"))
	if !ok {
		return nil, "viewer.cite.missing", nil
	}
	var e *evaluation.Evaluation
	if l := d.LatestEvaluation; l != nil && l.ID == evaluationID {
		e = l
	} else {
		got, err := tenant.Evaluation(r.Context(), d.ID, evaluationID)
		switch {
		case errors.Is(err, evaluation.ErrOutdated):
			return nil, "viewer.cite.outdated", nil
		case errors.Is(err, store.ErrNotFound):
			return nil, "viewer.cite.missing", nil
		case err != nil:
			return nil, "", unlessPurging(err)
		}
		e = &got
	}
	if len(e.Result) == 0 {
		return nil, "viewer.cite.missing", nil
	}
	var result engine.Result
	if err := json.Unmarshal(e.Result, &result); err != nil {
		return nil, "", fmt.Errorf("evaluation %s result: %w", e.ID, err)
	}
	c := &citeView{Kind: kind}
	var cites []evidence.Citation
	switch {
	case kind == "check" && item < len(result.Checks):
		c.Title, cites = result.Checks[item].Title, result.Checks[item].Citations
	case kind == "field" && item < len(result.Fields):
		f := result.Fields[item]
		c.Title, c.Value, cites = f.Label, displayValue(f.Value), f.Citations
	}
	if index >= len(cites) || cites[index].UploadID != upload {
		return nil, "viewer.cite.missing", nil
	}
	c.citation = cites[index]
	c.Excerpt = c.citation.Excerpt
	return c, "", nil
}

// parseCite reads "check-3-0" or "field-2-1".
func parseCite(s string) (kind string, item, index int, ok bool) {
	parts := strings.Split(s, "-")
	if len(parts) != 3 || (parts[0] != "check" && parts[0] != "field") {
		return "", 0, 0, false
	}
	item, err1 := strconv.Atoi(parts[1])
	index, err2 := strconv.Atoi(parts[2])
	if err1 != nil || err2 != nil || item < 0 || index < 0 {
		return "", 0, 0, false
	}
	return parts[0], item, index, true
}

// on places the citation on page n (nil when the upload has no stored page n): its
// regions on that page when it has them, else the boxes of the page's words that quote
// the excerpt.
func (c *citeView) on(page *document.Page, n int, link func(int) string) *citeView {
	for _, p := range c.citation.Pages {
		c.Pages = append(c.Pages, citedPage{Number: p, URL: link(p), Current: p == n})
		c.OnPage = c.OnPage || p == n
	}
	var regions []evidence.Region
	for _, reg := range c.citation.Regions {
		if reg.Page == n {
			regions = append(regions, reg)
		}
	}
	if len(regions) == 0 && page != nil {
		regions = locateExcerpt(page, c.Excerpt)
	}
	for _, reg := range regions {
		if h, ok := highlightOf(reg); ok {
			c.Highlights = append(c.Highlights, h)
		}
	}
	c.Located = len(c.Highlights) > 0
	return c
}

// locateExcerpt finds the excerpt among the page's words: as quoted (white space
// aside), else with letter case, punctuation and Unicode compatibility forms (ligatures,
// full-width digits) ignored. One region per line of the words found; nil when the page
// has no word boxes or the excerpt's words are not on it.
func locateExcerpt(page *document.Page, excerpt string) []evidence.Region {
	if len(page.Words) == 0 || strings.TrimSpace(excerpt) == "" {
		return nil
	}
	// Only the words' text and boxes count here: the extractor's grouping and confidence
	// are left out.
	words := make([]document.Word, len(page.Words))
	loose := make([]document.Word, len(page.Words))
	for i, w := range page.Words {
		words[i] = document.Word{Text: w.Text, Box: w.Box, Conf: 1, Block: -1, Line: -1}
		loose[i] = document.Word{Text: strings.Join(looseTokens(w.Text), ""), Box: w.Box, Conf: 1, Block: -1, Line: -1}
	}
	if found := layout.RegionsFor(&document.Page{Number: page.Number, Words: words}, excerpt); len(found) > 0 {
		return found
	}
	return layout.RegionsFor(&document.Page{Number: page.Number, Words: loose}, strings.Join(looseTokens(excerpt), " "))
}

// looseTokens are the words of s in the form the viewer matches loosely: compatibility
// forms composed (NFKC), lower case, letters and digits only; words left empty dropped.
func looseTokens(s string) []string {
	var out []string
	for _, f := range strings.Fields(norm.NFKC.String(s)) {
		t := strings.Map(func(r rune) rune {
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				return unicode.ToLower(r)
			}
			return -1
		}, f)
		if t != "" {
			out = append(out, t)
		}
	}
	return out
}

// highlightOf clips a region to the page; ok is false for one with no area left.
func highlightOf(r evidence.Region) (highlight, bool) {
	x0, y0 := clamp01(r.X), clamp01(r.Y)
	x1, y1 := clamp01(r.X+r.Width), clamp01(r.Y+r.Height)
	if x1 <= x0 || y1 <= y0 {
		return highlight{}, false
	}
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	round := func(v float64) float64 { return float64(int64(v*1e5+0.5)) / 1e5 }
	return highlight{X: f(round(x0)), Y: f(round(y0)), Width: f(round(x1 - x0)), Height: f(round(y1 - y0))}, true
}

func clamp01(v float64) float64 { return min(max(v, 0), 1) }

// pageText is a page's text split around the cited excerpt (Mark), so the text column
// marks it too; Mark is empty when the excerpt is not found in the text.
type pageText struct {
	Before, Mark, After string
	OCR                 bool
}

// markExcerpt finds the excerpt in the page text, white space and letter case aside.
func markExcerpt(text, excerpt string) pageText {
	fields := strings.Fields(excerpt)
	if len(fields) == 0 {
		return pageText{Before: text}
	}
	for i, f := range fields {
		fields[i] = regexp.QuoteMeta(f)
	}
	re, err := regexp.Compile(`(?i)` + strings.Join(fields, `\s+`))
	if err != nil {
		return pageText{Before: text}
	}
	loc := re.FindStringIndex(text)
	if loc == nil {
		return pageText{Before: text}
	}
	return pageText{Before: text[:loc[0]], Mark: text[loc[0]:loc[1]], After: text[loc[1]:]}
}
