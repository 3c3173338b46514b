package reader

import (
	"regexp"
	"slices"
	"time"

	"github.com/doceval/doceval/pkg/engine/evidence"
)

// Part is one logical document inside an upload: a partner may scan an ID card, three
// payslips and a bank statement into one PDF. Doc has the upload's identity (UploadID,
// ExternalFileID, slot) and the pages of this part with their real numbers, so
// citations made on it point at the right pages of the upload.
type Part struct {
	Doc   *evidence.Document
	Types []evidence.TypeScore // the contract's types, best first; never empty
}

// Split cuts an upload into its logical documents. A page starts a new document when
// it opens one of another type (its title region names that type), or one of the same
// type for another person (a different name or holder) or another period (a new pay
// month, a new statement period). Continuation pages join the document before: a page
// without a title of its own, a page numbered "2/3", a ledger continuing. An upload of
// one document is one part, classified as a whole (Classify).
func Split(doc *evidence.Document) []Part {
	t := newText(doc)
	numbers := t.pageNumbers()
	if len(numbers) <= 1 {
		return []Part{{Doc: doc, Types: Classify(doc)}}
	}
	var groups [][]pageInfo
	for _, n := range numbers {
		p := readPage(t.onPage(n), n)
		if len(groups) == 0 || startsDocument(groups[len(groups)-1], p) {
			groups = append(groups, []pageInfo{p})
			continue
		}
		groups[len(groups)-1] = append(groups[len(groups)-1], p)
	}
	if len(groups) == 1 {
		return []Part{{Doc: doc, Types: Classify(doc)}}
	}
	// Pages without text belong to the document they stand in: the one before them,
	// or the first one for leading blank pages.
	owner := map[int]int{}
	for i, g := range groups {
		for _, p := range g {
			owner[p.number] = i
		}
	}
	pages := make([][]evidence.Page, len(groups))
	current := 0
	for _, p := range doc.Pages {
		if i, ok := owner[p.Number]; ok {
			current = i
		}
		pages[current] = append(pages[current], p)
	}
	out := make([]Part, 0, len(groups))
	for i, g := range groups {
		part := *doc
		part.Pages = pages[i]
		// The slot names what the partner meant to upload: a hint for the part that
		// speaks for it, not for the others.
		if own := g[0].typ; own != "" && publicType(own) != doc.SlotType {
			part.SlotType = ""
		}
		out = append(out, Part{Doc: &part, Types: Classify(&part)})
	}
	return out
}

// pageInfo is what one page says about the document it belongs to.
type pageInfo struct {
	number int
	score  pageScore
	typ    string // the type its own cues speak for; "" when they say too little
	titled bool   // its title region names typ: it opens a document
	// sheet is the page's "n of m" numbering: n == 1 opens a document, n > 1
	// continues one; 0 when the page carries none.
	sheet   int
	period  time.Time // the pay month or statement period it states
	person  string    // the employee or account holder it names
	opening bool      // it states an opening balance (a statement starts here)
}

// strongPage is the score from which a page's cues alone (a title lost to OCR) say
// what it is.
const strongPage = 6

// pageNumbering matches "Seite 2 von 3", "Page 2 of 3", "Blatt 2/3" and a bare "2/3"
// on a line of its own.
var pageNumbering = regexp.MustCompile(`(?i)(?:\b(?:seite|page|blatt|sheet|s\.)\s*(\d{1,3})\s*(?:/|von|of|aus)\s*(\d{1,3})\b|^\s*-?\s*(\d{1,2})\s*/\s*(\d{1,2})\s*-?\s*$)`)

// openingBalance is a statement's opening balance label.
var openingBalance = labelPattern(openingSpec)

func readPage(t *text, n int) pageInfo {
	p := pageInfo{number: n, score: scorePage(t)}
	best := 0.0
	for typ, s := range p.score.scores {
		if s >= 4 && (s > best || (s == best && typ < p.typ)) {
			p.typ, best = typ, s
		}
	}
	p.titled = p.typ != "" && p.score.titled[p.typ]
	for _, l := range t.lines {
		m := pageNumbering.FindStringSubmatch(l.text)
		if m == nil {
			continue
		}
		x, y := m[1], m[2]
		if x == "" {
			x, y = m[3], m[4]
		}
		if a, b := atoi(x), atoi(y); a >= 1 && b >= a && b > 1 {
			p.sheet = a
			break
		}
	}
	r := &reading{t: t, seen: map[string]bool{}}
	switch p.typ {
	case "salary_statement":
		r.payslipPage()
		for _, f := range r.facts {
			switch f.Key {
			case evidence.FactPayPeriod:
				p.period, _ = f.Value.(time.Time)
			case "applicant_full_name":
				p.person, _ = f.Value.(string)
			}
		}
	case "bank_statement":
		if name, _, ok := r.personName(holderLabels, "re:^name\\b"); ok {
			p.person = name
		}
		p.period = statementPeriod(t)
		p.opening = slices.ContainsFunc(t.lines, func(l line) bool { return openingBalance.MatchString(l.f.s) })
	}
	return p
}

// statementPeriod is the month a statement page names as its period, if it names one.
func statementPeriod(t *text) time.Time {
	for _, h := range t.find("auszugszeitraum|zeitraum|statement period|auszug vom") {
		if m := periodEndRe.FindStringSubmatch(h.rest); m != nil {
			if d, ok := readDate(m[1]); ok {
				return monthOf(d)
			}
		}
		if d, ok := readDate(h.rest); ok {
			return monthOf(d)
		}
	}
	return time.Time{}
}

// startsDocument decides whether page p opens a new logical document after the pages
// of doc.
func startsDocument(doc []pageInfo, p pageInfo) bool {
	switch {
	case p.sheet > 1:
		return false // "2/3": the document before goes on
	case p.typ == "":
		return false // no cues of its own: a continuation (terms, an annex, a blank form side)
	}
	head := doc[0]
	typ := head.typ
	// A page whose own cues speak strongly for its type and not at all for the
	// document before opens a document even when OCR lost its title.
	// So does a statement page whose running balances add up row by row, without a word
	// of the document before (a bank's page titled only "Your statement" after a payslip).
	strong := (p.score.scores[p.typ] >= strongPage || p.typ == "bank_statement" && p.score.ledgerAdds) && (typ == "" || p.score.scores[typ] == 0)
	if typ == "" {
		// The document so far said too little to be typed.
		return p.titled || strong
	}
	if publicType(p.typ) != publicType(typ) {
		// Another type: only a page that opens it (its title, "1/n", or strong cues of
		// its own) starts one; a page of the document before that merely mentions
		// another type's words does not.
		return p.titled || p.sheet == 1 || strong
	}
	if p.person != "" && head.person != "" && !SameName(p.person, head.person) {
		return true // the same kind of document for another person
	}
	last := doc[len(doc)-1]
	if !p.period.IsZero() {
		for _, q := range []pageInfo{head, last} {
			if !q.period.IsZero() {
				return !q.period.Equal(p.period) // a new pay month or statement period
			}
		}
	}
	if p.typ == "bank_statement" && p.opening && p.titled {
		// A statement with its own title and opening balance after one that already
		// had an opening balance is the next statement.
		return slices.ContainsFunc(doc, func(q pageInfo) bool { return q.opening })
	}
	return p.sheet == 1 && p.titled
}
