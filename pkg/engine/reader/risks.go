package reader

import (
	"regexp"
	"strings"
	"time"

	"github.com/doceval/doceval/pkg/engine/evidence"
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
// employment (with its end). A form's question answered "no" is no mention.
func (r *reading) risks() {
	t := r.t
	for _, l := range t.lines {
		answer := r.answer(l)
		if answer == "no" {
			continue
		}
		switch {
		case garnishmentRe.MatchString(l.f.s) && !strings.Contains(l.f.s, "schutz"):
			r.add(evidence.FactGarnishment, phrase(l), r.answerCite(l, answer), 0.85, time.Time{})
		case returnedDebitRe.MatchString(l.f.s):
			r.add(evidence.FactReturnedDebit, r.returnedValue(l), t.citeLine(l), 0.85, time.Time{})
		}
	}
	r.probation()
	r.fixedTerm()
}

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
		if d, ok := bookingDay(l.text[m[2]:m[3]], statementYear(r.t)); ok {
			if v, ok := lastMoney(l.text[m[1]:]); ok && v.Cents > 0 {
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
		if answer == "no" {
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
		if r.answer(l) == "no" {
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
