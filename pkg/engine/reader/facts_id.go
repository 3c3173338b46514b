package reader

import (
	"regexp"
	"strings"
	"time"
	"unicode"

	"github.com/doceval/doceval/pkg/engine/evidence"
)

// The reader has no clock: a birth date in an MRZ is taken as not in the future
// relative to the time of reading.
var now = time.Now

var docNumberRe = regexp.MustCompile(`\b([A-Z0-9]{9})\b`)

// identity reads an ID card or passport: the visual zone first, the machine-readable
// zone to confirm or fill in.
func (r *reading) identity() {
	t := r.t
	// The MRZ: consecutive MRZ-like lines.
	var zone []string
	var first, last line
	for _, l := range t.lines {
		if s, ok := mrzLine(l.text); ok {
			if len(zone) == 0 {
				first = l
			}
			zone = append(zone, s)
			last = l
			continue
		}
		if len(zone) >= 2 {
			break
		}
		zone = nil
	}
	var mrz mrzData
	var mrzCite evidence.Citation
	if len(zone) >= 2 && first.page == last.page {
		mrzCite = t.cite(first, last)
		r.add(evidence.FactMRZ, strings.Join(zone, "\n"), mrzCite, 0.9, time.Time{})
		mrz = parseMRZ(zone, now())
	}

	// Names: the surname and given names each under (or after) their label.
	surname, snCite, okS := valueAfter(t, firstHit(t.find("name/surname|surname")), readNameWords)
	given, gnCite, okG := valueAfter(t, firstHit(t.find("vornamen|given names|prenoms")), readNameWords)
	if okS && okG {
		c := snCite
		if gnCite.Excerpt != "" {
			c = joinCitations(t, snCite, gnCite)
		}
		r.add("applicant_full_name", titleCase(given+" "+surname), c, 0.9, time.Time{})
	} else if mrz.surname != "" && mrz.given != "" && mrzCite.Excerpt != "" {
		r.add("applicant_full_name", titleCase(mrz.given+" "+mrz.surname), mrzCite, 0.6, time.Time{})
	}

	// Dates.
	if dob, c, ok := valueAfter(t, firstHit(t.find("geburtstag|geburtsdatum|date of birth|date de naissance")), readDate); ok {
		conf := 0.9
		if mrz.birthOK && !mrz.birth.Equal(dob) {
			dob, c, conf = mrz.birth, mrzCite, 0.8
		}
		r.add("applicant_date_of_birth", dob, c, conf, time.Time{})
	} else if mrz.birthOK {
		r.add("applicant_date_of_birth", mrz.birth, mrzCite, 0.8, time.Time{})
	}
	if exp, c, ok := valueAfter(t, firstHit(t.find("gültig bis|date of expiry|date d'expiration|valid until|ablaufdatum")), readDate); ok {
		conf := 0.9
		if mrz.expiryOK && !mrz.expiry.Equal(exp) {
			exp, c, conf = mrz.expiry, mrzCite, 0.8
		}
		r.add("id_document_expiry_date", exp, c, conf, time.Time{})
	} else if mrz.expiryOK {
		r.add("id_document_expiry_date", mrz.expiry, mrzCite, 0.8, time.Time{})
	}

	// The document number: printed near the title or under its label; the MRZ's, when
	// its check digit holds, wins over an OCR misreading.
	number, numCite, okN := r.printedNumber()
	switch {
	case mrz.numberOK && (!okN || number != mrz.number):
		if okN && strings.Contains(numCite.Excerpt, mrz.number) {
			r.add("id_document_number", mrz.number, numCite, 0.95, time.Time{})
		} else {
			r.add("id_document_number", mrz.number, mrzCite, 0.85, time.Time{})
		}
	case okN:
		conf := 0.85
		if mrz.numberOK {
			conf = 0.97
		}
		r.add("id_document_number", number, numCite, conf, time.Time{})
	}
}

// printedNumber finds the document number in the visual zone.
func (r *reading) printedNumber() (string, evidence.Citation, bool) {
	t := r.t
	read := func(s string) (string, bool) {
		for _, m := range docNumberRe.FindAllString(strings.ToUpper(s), -1) {
			if strings.ContainsAny(m, "0123456789") && strings.ContainsAny(m, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") && !strings.Contains(m, "<") {
				return m, true
			}
		}
		return "", false
	}
	for _, spec := range []string{"pass-nr|passport no|passeport no|document no|ausweisnummer|dokumentennummer", "personalausweis|identity card|carte d'identit"} {
		for _, h := range t.find(spec) {
			if v, c, ok := valueAfter(t, h, read); ok {
				return v, c, true
			}
		}
	}
	return "", evidence.Citation{}, false
}

// readNameWords reads a surname or given names as printed in a visual zone: words of
// letters and hyphens, after whatever is left of the label ("/Prénoms", "(1)").
func readNameWords(s string) (string, bool) {
	for _, seg := range regexp.MustCompile(`\s{2,}|\t`).Split(s, -1) {
		words := strings.Fields(seg)
		for len(words) > 0 && (strings.ContainsAny(words[0], "/()") || !startsUpper(words[0])) {
			words = words[1:]
		}
		if len(words) == 0 || len(words) > 5 {
			continue
		}
		ok := true
		for _, w := range words {
			ok = ok && isNameWord(w)
		}
		if ok {
			return strings.Join(words, " "), true
		}
		return "", false
	}
	return "", false
}

func startsUpper(w string) bool {
	for _, r := range w {
		return unicode.IsUpper(r)
	}
	return false
}

func firstHit(hs []labelHit) labelHit {
	if len(hs) == 0 {
		return labelHit{l: line{idx: -1}}
	}
	return hs[0]
}

// joinCitations quotes the page from the first citation's text to the second's when both
// are on one page, else returns the first.
func joinCitations(t *text, a, b evidence.Citation) evidence.Citation {
	if len(a.Pages) != 1 || len(b.Pages) != 1 || a.Pages[0] != b.Pages[0] {
		return a
	}
	page := evidence.Normalize(t.pages[a.Pages[0]])
	i, j := strings.Index(page, a.Excerpt), strings.Index(page, b.Excerpt)
	if i < 0 || j < 0 {
		return a
	}
	if j < i {
		i, j = j, i
		a, b = b, a
	}
	end := j + len(b.Excerpt)
	if end < i+len(a.Excerpt) {
		end = i + len(a.Excerpt)
	}
	return t.doc.Cite(a.Pages[0], page[i:end])
}
