package reader

import (
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/doceval/doceval/pkg/engine/evidence"
	"github.com/doceval/doceval/pkg/engine/parse"
)

var (
	garnishmentRe   = labelPattern("pfändung|garnishment|garnishee|attachment of earnings")
	returnedDebitRe = labelPattern("rücklastschrift|returned direct debit|returned debit|lastschriftrückgabe|rückbuchung lastschrift|direct debit returned")
	probationRe     = labelPattern("probezeit|probation")
	fixedTermRe     = labelPattern("befristet|fixed-term|fixed term|limited term|temporary contract")
	permanentRe     = labelPattern("unbefristet|unbestimmte zeit|permanent|indefinite|not fixed|nicht befristet")
	noAnswer        = regexp.MustCompile(`(?i)(?:^|[\s:?])(?:nein|no|keine|none|n/a|entfällt)\b\.?\s*$`)
	yesAnswer       = regexp.MustCompile(`(?i)(?:^|[\s:?])(?:ja|yes)\b`)
	monthsRe        = regexp.MustCompile(`(?i)\b(\d{1,2}|drei|vier|sechs|zwölf|zwolf|three|four|six|twelve)\s*(?:monate|months|monaten|month)`)
)

var monthWords = map[string]int{"drei": 3, "vier": 4, "sechs": 6, "zwölf": 12, "zwolf": 12, "three": 3, "four": 4, "six": 6, "twelve": 12}

// risks finds risk mentions anywhere in the document: garnishments, returned direct
// debits, a probation period (with its end when stated or derivable) and fixed-term
// employment (with its end). A mention is a finding only when it is said of this
// applicant or account (see stated); a form's question answered "no", an unticked box
// and a general clause of terms are none.
func (r *reading) risks() {
	t := r.t
	for _, l := range t.lines {
		switch {
		case garnishmentRe.MatchString(l.f.s) && !strings.Contains(l.f.s, "schutz"):
			if c, ok := r.stated(l, garnishmentRe, shortLine); ok {
				r.add(evidence.FactGarnishment, phrase(l), c, 0.85, time.Time{})
			}
		case returnedDebitRe.MatchString(l.f.s):
			if c, ok := r.stated(l, returnedDebitRe, shortLine); ok {
				r.add(evidence.FactReturnedDebit, r.returnedValue(l), c, 0.85, time.Time{})
			}
		}
	}
	r.probation()
	r.fixedTerm()
}

var (
	// conditionalRe opens a clause that speaks of a case, not of this applicant: "Bei
	// Lohnpfändungen trägt der Arbeitnehmer …", "Im Falle einer Pfändung …", "If a
	// garnishment order is served …".
	conditionalRe = regexp.MustCompile(`(?i)(?:^|[^\pL])(?:bei|beim|im falle?|falls|sofern|soweit|wenn|ggf|gegebenenfalls|etwaige[nr]?|if|in the event|in case|should|unless|where|any)(?:[^\pL]|$)`)
	// proseVerb is a finite verb of terms and conditions, German and English.
	proseVerb = regexp.MustCompile(`(?i)(?:^|[^\pL])(?:ist|sind|wird|werden|wurde|hat|haben|trägt|tragen|berechnet|berechnen|erhebt|erheben|kann|können|muss|müssen|gilt|gelten|erfolgt|erfolgen|is|are|will|may|shall|must|be|has|have|charges?|charged|applies|apply)(?:[^\pL]|$)`)
	// negatedRe stands right before a keyword that is denied: "keine Pfändungen",
	// "no garnishment".
	negatedRe = regexp.MustCompile(`(?i)(?:^|[^\pL])(?:kein|keine|keinen|keiner|nicht|ohne|no|none|not|without|free of)\s*$`)
	// boxedAnswer is a box (see tickBox) before a yes or no answer.
	boxedAnswer = regexp.MustCompile(`(?i)(` + anyBox + `)\s*(ja|nein|yes|no)\b`)
)

// Lengths of a statement about the applicant: a booking text or deduction line is
// short (shortLine words); a contract's sentence about the employment may run to
// termsWords; anything longer without an amount reads as terms and conditions.
const (
	shortLine  = 7
	termsWords = 14
)

// stated reports whether the risk keyword on line l is said of this applicant or
// account, and what to cite: a booking line (a date and an amount), a payslip's
// deduction line with an amount, a ticked box, a "Ja"/"yes" answer next to it, or a
// plain line of at most maxWords words (a booking text split from its amount, a
// contract's sentence). A keyword denied ("keine", an unticked box, "nein"), inside a
// conditional or general clause, or in a longer sentence of terms is not.
func (r *reading) stated(l line, kw *regexp.Regexp, maxWords int) (evidence.Citation, bool) {
	loc := kw.FindStringIndex(l.f.s)
	if loc == nil {
		return evidence.Citation{}, false
	}
	start, end := l.f.orig[loc[0]], l.f.orig[loc[1]]
	before, after := l.text[:start], l.text[end:]
	if negatedRe.MatchString(before) {
		return evidence.Citation{}, false
	}
	// A box right before the keyword is the form's answer: "☒ Pfändungen".
	if box := lastBox(before); box != "" {
		return r.t.citeLine(l), tickedBox.MatchString(box)
	}
	// Boxes after it with their labels: "Pfändungen: ☐ ja ☒ nein".
	if ans, ok := boxAnswer(after); ok {
		return r.t.citeLine(l), ans
	}
	switch r.answer(l) {
	case "no":
		return evidence.Citation{}, false
	case "yes", "yes+next":
		return r.answerCite(l, r.answer(l)), true
	}
	if uncheckedBox.MatchString(l.text) && !tickedBox.MatchString(l.text) {
		return evidence.Citation{}, false // a form line left blank
	}
	ms, _ := amounts(l.text)
	hasAmount := slices.ContainsFunc(ms, func(m parse.Money) bool { return m.Cents != 0 })
	if hasAmount && bookingDate.MatchString(l.text) {
		return r.t.citeLine(l), true // a booking on the account
	}
	sentence := clauseAround(l.text, start)
	if conditionalRe.MatchString(sentence) {
		return evidence.Citation{}, false
	}
	if maxWords == shortLine && proseVerb.MatchString(sentence) {
		// A booking text or a deduction line is a noun phrase; a sentence with a verb
		// ("Für Rücklastschriften berechnet die Bank 3,00 EUR") is terms.
		return evidence.Citation{}, false
	}
	words := len(strings.Fields(sentence))
	if hasAmount && words <= termsWords {
		return r.t.citeLine(l), true // a deduction line: "Lohnpfändung Az. 81 M 2217/24 250,00"
	}
	if words > maxWords {
		return evidence.Citation{}, false // running text of terms
	}
	if n, ok := r.t.next(l); ok && words <= 3 && noAnswer.MatchString(n.text) && len(strings.Fields(n.text)) <= 2 {
		return evidence.Citation{}, false // a heading answered "keine" below it
	}
	return r.t.citeLine(l), true
}

// denied reports whether a keyword a contract states in words (probation, a fixed
// term) is denied or only supposed on line l: "keine Probezeit", an unticked box, a
// yes/no box answered no, or a conditional clause ("Sofern eine Probezeit vereinbart
// ist, …").
func (r *reading) denied(l line, kw *regexp.Regexp) bool {
	loc := kw.FindStringIndex(l.f.s)
	if loc == nil {
		return false
	}
	start, end := l.f.orig[loc[0]], l.f.orig[loc[1]]
	if negatedRe.MatchString(l.text[:start]) {
		return true
	}
	if box := lastBox(l.text[:start]); box != "" {
		return !tickedBox.MatchString(box)
	}
	if yes, ok := boxAnswer(l.text[end:]); ok {
		return !yes
	}
	return conditionalRe.MatchString(clauseAround(l.text, start))
}

// lastBox is the box glyph standing right before the end of s (only spaces between),
// or "".
func lastBox(s string) string {
	trimmed := strings.TrimRight(s, " \t:-")
	for _, re := range []*regexp.Regexp{tickedBox, uncheckedBox} {
		locs := re.FindAllStringIndex(trimmed, -1)
		if len(locs) > 0 && locs[len(locs)-1][1] == len(trimmed) {
			return trimmed[locs[len(locs)-1][0]:]
		}
	}
	return ""
}

// boxAnswer reads a yes/no answer given by boxes after a question: the ticked box's
// label, or "no" when the yes box is left empty and none is ticked.
func boxAnswer(s string) (yes, ok bool) {
	ms := boxedAnswer.FindAllStringSubmatch(s, -1)
	if len(ms) == 0 {
		return false, false
	}
	emptyYes := false
	for _, m := range ms {
		isYes := strings.EqualFold(m[2], "ja") || strings.EqualFold(m[2], "yes")
		if tickedBox.MatchString(m[1]) {
			return isYes, true
		}
		emptyYes = emptyYes || isYes
	}
	return false, emptyYes
}

// clauseAround is the sentence of s around byte offset i: from the previous sentence
// end to the next one.
func clauseAround(s string, i int) string {
	from := strings.LastIndexAny(s[:i], ".;!?") + 1
	if from > 0 && from < i && isDigitByte(s[from-1]) {
		from = 0 // "12.03. Rücklastschrift": a date's dot, not a sentence end
	}
	to := strings.IndexAny(s[i:], ";!?")
	if to < 0 {
		to = len(s)
	} else {
		to += i
	}
	return s[from:to]
}

func isDigitByte(b byte) bool { return b >= '0' && b <= '9' }

// answer is "yes" or "no" for a form question (a line with "?" or a label whose answer
// is ja/nein), on the line or the next one; "" when the line is no such question.
func (r *reading) answer(l line) string {
	rest := l.text
	if i := strings.LastIndexAny(rest, "?:"); i >= 0 {
		rest = rest[i+1:]
	} else if !strings.Contains(l.text, "?") {
		if strings.TrimSpace(rest) != "" && !noAnswer.MatchString(rest) {
			return ""
		}
	}
	switch {
	case noAnswer.MatchString(rest):
		return "no"
	case yesAnswer.MatchString(rest):
		return "yes"
	}
	if strings.Contains(l.text, "?") || strings.HasSuffix(strings.TrimSpace(l.text), ":") {
		if n, ok := r.t.next(l); ok {
			switch {
			case noAnswer.MatchString(n.text) && len(strings.Fields(n.text)) <= 2:
				return "no"
			case yesAnswer.MatchString(n.text) && len(strings.Fields(n.text)) <= 3:
				return "yes+next"
			}
		}
	}
	return ""
}

func (r *reading) answerCite(l line, answer string) evidence.Citation {
	if answer == "yes+next" {
		if n, ok := r.t.next(l); ok {
			return r.t.cite(l, n)
		}
	}
	return r.t.citeLine(l)
}

func phrase(l line) string { return strings.Join(strings.Fields(l.text), " ") }

// returnedValue is the returned booking when the line is one, else the phrase.
func (r *reading) returnedValue(l line) any {
	m := bookingDate.FindStringSubmatchIndex(l.text)
	if m != nil {
		loc := documentLocale(r.t)
		if d, ok := bookingDayIn(l.text[m[2]:m[3]], statementYear(r.t, loc), loc.order); ok {
			if v, ok := loc.lastMoney(l.text[m[1]:]); ok && v.Cents > 0 {
				return evidence.Transaction{Date: d, AmountCents: v.Cents, Currency: v.Currency, Text: strings.TrimSpace(l.text[m[1]:])}
			}
		}
	}
	return phrase(l)
}

// probation reads the probation period: its end when stated ("bis zum 31.03.2026"), or
// derived from its length and the employment's start ("die ersten sechs Monate").
func (r *reading) probation() {
	t := r.t
	for _, l := range t.lines {
		if !probationRe.MatchString(l.f.s) {
			continue
		}
		answer := r.answer(l)
		if answer == "no" || r.denied(l, probationRe) {
			continue
		}
		// The sentence may run on to the next line.
		span := l
		s := l.text
		if n, ok := t.next(l); ok {
			s += " " + n.text
			span = n
		}
		if d, ok := readDate(afterKeyword(s, probationRe)); ok {
			r.add(evidence.FactProbation, d, t.cite(l, span), 0.85, time.Time{})
			return
		}
		if m := monthsRe.FindStringSubmatch(s); m != nil {
			n := atoi(m[1])
			if n == 0 {
				n = monthWords[strings.ToLower(m[1])]
			}
			if start, ok := r.startDate(); ok && n > 0 {
				r.add(evidence.FactProbation, start.AddDate(0, n, -1), t.cite(l, span), 0.8, time.Time{})
				return
			}
		}
		if answer == "yes" || answer == "yes+next" || !headingOnly(l) {
			r.add(evidence.FactProbation, phrase(l), r.answerCite(l, answer), 0.7, time.Time{})
			return
		}
	}
}

// headingOnly reports whether the line is only a heading like "§ 2 Probezeit".
func headingOnly(l line) bool { return len(strings.Fields(l.text)) <= 3 }

func afterKeyword(s string, re *regexp.Regexp) string {
	f := fold(s)
	if loc := re.FindStringIndex(f.s); loc != nil {
		return s[f.orig[loc[1]]:]
	}
	return s
}

// startDate is the employment's start as this document states it.
func (r *reading) startDate() (time.Time, bool) {
	for _, f := range r.facts {
		if f.Key == "employment_start_date" {
			return f.Value.(time.Time), true
		}
	}
	t := r.t
	for _, h := range t.find("beginnt am|commences on|begins on|beschäftigt seit|employed since|eintritt|start date") {
		if d, _, ok := valueAfter(t, h, readDate); ok {
			return d, true
		}
	}
	return time.Time{}, false
}

// fixedTerm reads a fixed-term employment with its end date.
func (r *reading) fixedTerm() {
	t := r.t
	for _, l := range t.lines {
		if !fixedTermRe.MatchString(l.f.s) || permanentRe.MatchString(l.f.s) {
			continue
		}
		if r.answer(l) == "no" || r.denied(l, fixedTermRe) {
			continue
		}
		span := l
		s := l.text
		if n, ok := t.next(l); ok && !strings.Contains(l.text, ".") {
			s += " " + n.text
			span = n
		}
		if d, ok := readDate(afterKeyword(s, fixedTermRe)); ok {
			r.add(evidence.FactFixedTerm, d, t.cite(l, span), 0.85, time.Time{})
			return
		}
		r.add(evidence.FactFixedTerm, phrase(l), t.citeLine(l), 0.7, time.Time{})
		return
	}
}
