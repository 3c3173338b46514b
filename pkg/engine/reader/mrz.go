package reader

import (
	"github.com/doceval/doceval/pkg/engine/mrz"

	"regexp"
	"strings"
	"time"
)

// mrzLine cleans a line that may be part of a machine-readable zone: spaces dropped,
// capitals, OCR's « and ‹ as <. It reports whether the line looks like one: at least
// 25 characters of A–Z, 0–9 and <, with some fillers.
func mrzLine(s string) (string, bool) {
	s = strings.NewReplacer(" ", "", "«", "<<", "‹", "<", "\t", "").Replace(strings.ToUpper(s))
	if len(s) < 25 || len(s) > 48 || strings.Count(s, "<") < 2 {
		return "", false
	}
	// The filler at the end: OCR reads a run of < partly as C, E, K or «.
	if loc := trailingFiller.FindStringIndex(s); loc != nil && strings.Contains(s[loc[0]:], "<") {
		s = s[:loc[0]] + strings.Repeat("<", loc[1]-loc[0])
	}
	bad := 0
	for _, c := range s {
		if !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '<') {
			bad++
		}
	}
	return s, bad <= 1
}

var trailingFiller = regexp.MustCompile(`<[<CEK]{3,}$`)

// machineZone finds the document's first machine-readable zone whose lines stand on one
// page (see mrz.Find).
func (t *text) machineZone() (mrz.Zone, bool) {
	texts := make([]string, len(t.lines))
	for i, l := range t.lines {
		texts[i] = l.text
	}
	for _, z := range mrz.Find(texts) {
		if t.lines[z.First].page == t.lines[z.Last].page {
			return z, true
		}
	}
	return mrz.Zone{}, false
}

// mrzData is what a zone the structural reader found says, its names as the visual
// zone confirms them: OCR reads the fillers next to a name as letters ("<<SELENAS<" for
// "<<ELENA<"), and a name word the visual zone prints without those letters is taken
// as printed there.
func (t *text) mrzData(z mrz.Zone) mrzData {
	d := mrzData{lines: z.Lines, number: z.Number, numberOK: z.NumberOK}
	if b, ok := mrzDate(z.Birth, now(), false); ok && z.BirthOK {
		d.birth, d.birthOK = b, true
	}
	if e, ok := mrzDate(z.Expiry, now(), true); ok && z.ExpiryOK {
		d.expiry, d.expiryOK = e, true
	}
	viz := map[string]bool{}
	for i, l := range t.lines {
		if i < z.First || i > z.Last {
			for _, w := range strings.Fields(mrzSpelling(l.text, false)) {
				viz[w] = true
			}
		}
	}
	confirm := func(name string) string {
		words := strings.Fields(name)
		for i, w := range words {
			if viz[w] {
				continue
			}
			for cut := 1; cut <= 2 && !viz[words[i]]; cut++ {
				for a := 0; a <= cut; a++ {
					b := cut - a
					if len(w)-cut >= 2 && strings.Trim(w[:a], icaoFillerLike) == "" && strings.Trim(w[len(w)-b:], icaoFillerLike) == "" && viz[w[a:len(w)-b]] {
						words[i] = w[a : len(w)-b]
						break
					}
				}
			}
		}
		return strings.Join(words, " ")
	}
	d.surname, d.given = confirm(z.Surname), confirm(z.Given)
	if d.given == "" && z.Names != "" {
		if sn, gn, ok := splitNames(z.Names, viz); ok {
			d.surname, d.given = sn, gn
		}
	}
	d.vizConfirmed = d.surname != "" && d.given != ""
	for _, w := range strings.Fields(d.surname + " " + d.given) {
		d.vizConfirmed = d.vizConfirmed && viz[w]
	}
	return d
}

// splitNames splits a zone's name field whose "<<" OCR read as letters
// ("ROSSIKCKKELENA KK"): a surname the visual zone prints, then nothing but filler-like
// letters, then a given name the visual zone prints, then further given names it prints.
func splitNames(names string, viz map[string]bool) (surname, given string, ok bool) {
	words := strings.Fields(names)
	if len(words) == 0 {
		return "", "", false
	}
	w := words[0]
	for p := 2; p+3 <= len(w); p++ {
		if !viz[w[:p]] {
			continue
		}
		for q := p + 1; q+2 <= len(w) && strings.Trim(w[p:q], icaoFillerLike) == ""; q++ {
			if !viz[w[q:]] {
				continue
			}
			given := []string{w[q:]}
			for _, x := range words[1:] {
				if !viz[x] {
					break
				}
				given = append(given, x)
			}
			return w[:p], strings.Join(given, " "), true
		}
	}
	return "", "", false
}

// icaoFillerLike are the letters OCR reads a zone's filler as.
const icaoFillerLike = "KSCEXLIZ"

// mrzData is what the zone says, when its check digits allow trusting it.
type mrzData struct {
	lines             []string
	number            string
	numberOK          bool
	birth, expiry     time.Time
	birthOK, expiryOK bool
	surname, given    string
	// vizConfirmed: every word of the names is printed in the visual zone too.
	vizConfirmed bool
}

var mrzDigitFix = strings.NewReplacer("O", "0", "Q", "0", "D", "0", "I", "1", "L", "1", "Z", "2", "S", "5", "B", "8", "G", "6")

// parseMRZ reads TD1 (3 lines of 30) or TD3 (2 lines of 44) zones.
func parseMRZ(lines []string, now time.Time) mrzData {
	d := mrzData{lines: lines}
	digits := func(s string) string { return mrzDigitFix.Replace(s) }
	var numField, numCheck, birth, birthCheck, exp, expCheck, names string
	switch {
	case len(lines) >= 3 && len(lines[0]) >= 15 && len(lines[1]) >= 15:
		l1, l2 := lines[0], lines[1]
		numField, numCheck = l1[5:14], l1[14:15]
		birth, birthCheck = digits(l2[0:6]), digits(l2[6:7])
		exp, expCheck = digits(l2[8:14]), digits(l2[14:15])
		names = lines[2]
	case len(lines) >= 2 && len(lines[1]) >= 28:
		l2 := lines[1]
		numField, numCheck = l2[0:9], digits(l2[9:10])
		birth, birthCheck = digits(l2[13:19]), digits(l2[19:20])
		exp, expCheck = digits(l2[21:27]), digits(l2[27:28])
		if len(lines[0]) > 5 {
			names = lines[0][5:]
		}
	default:
		return d
	}
	num := strings.TrimRight(numField, "<")
	d.number, d.numberOK = num, mrz.CheckDigit(numField) == numCheck[0]
	if t, ok := mrzDate(birth, now, false); ok && mrz.CheckDigit(birth) == birthCheck[0] {
		d.birth, d.birthOK = t, true
	}
	if t, ok := mrzDate(exp, now, true); ok && mrz.CheckDigit(exp) == expCheck[0] {
		d.expiry, d.expiryOK = t, true
	}
	// The names have no check digit: a character the zone cannot hold ("]" for "J")
	// shows OCR misread them, and then the visual zone's reading stands alone.
	if sn, gn, ok := strings.Cut(names, "<<"); ok && !strings.ContainsFunc(names, notNameZone) {
		d.surname = strings.ReplaceAll(strings.Trim(sn, "<"), "<", " ")
		d.given = strings.Join(strings.FieldsFunc(gn, func(r rune) bool { return r == '<' }), " ")
	}
	return d
}

var sixDigits = regexp.MustCompile(`^\d{6}$`)

// notNameZone reports a character the MRZ's name field cannot hold (OCR's spaces are
// ignored).
func notNameZone(r rune) bool { return r != '<' && r != ' ' && (r < 'A' || r > 'Z') }

// mrzDate reads YYMMDD: expiry dates are in this century, birth dates not in the future.
func mrzDate(s string, now time.Time, expiry bool) (time.Time, bool) {
	if !sixDigits.MatchString(s) {
		return time.Time{}, false
	}
	yy, mm, dd := atoi(s[0:2]), atoi(s[2:4]), atoi(s[4:6])
	year := 2000 + yy
	if !expiry && year > now.Year() {
		year -= 100
	}
	t := time.Date(year, time.Month(mm), dd, 0, 0, 0, 0, time.UTC)
	if mm < 1 || mm > 12 || t.Day() != dd {
		return time.Time{}, false
	}
	return t, true
}

// normalizeMRZ undoes OCR's usual confusions where the MRZ format leaves no doubt:
// letters in fields that hold only digits (dates, check digits) become the digits
// they look like, and so do letters a German document number cannot contain. Lines of
// the wrong length are left as read.
func normalizeMRZ(zone []string) []string {
	out := append([]string(nil), zone...)
	fixDigits := func(line string, ranges ...[2]int) string {
		b := []byte(line)
		for _, rg := range ranges {
			for i := rg[0]; i < rg[1] && i < len(b); i++ {
				b[i] = mrzDigitFix.Replace(string(b[i]))[0]
			}
		}
		return string(b)
	}
	// A German ID's number that OCR garbled beyond doubt (a letter no German number has,
	// a character too many) is rewritten when exactly one reading passes its check
	// digit; a number that is merely wrong stays as read.
	if len(out) == 3 && strings.HasPrefix(out[0], "IDD<<") && (len(out[0]) == 30 || len(out[0]) == 31) {
		if n, ok := checkedNumber(out, true); ok {
			out[0] = "IDD<<" + n + string(mrz.CheckDigit(n)) + strings.Repeat("<", 15)
		}
	}
	switch {
	case len(out) == 3 && len(out[0]) == 30 && len(out[1]) == 30:
		german := strings.HasPrefix(out[0], "IDD")
		if german {
			out[0] = out[0][:5] + repairNumber(out[0][5:14], true) + out[0][14:]
		}
		out[0] = fixDigits(out[0], [2]int{14, 15})
		out[1] = fixDigits(out[1], [2]int{0, 7}, [2]int{8, 15}, [2]int{29, 30})
	case len(out) == 2 && len(out[1]) == 44:
		german := strings.HasPrefix(out[0], "P<D")
		if german {
			out[1] = repairNumber(out[1][:9], true) + out[1][9:]
		}
		out[1] = fixDigits(out[1], [2]int{9, 10}, [2]int{13, 20}, [2]int{21, 28}, [2]int{42, 44})
	}
	return out
}

// nameMatch is how a visual zone's name compares with the MRZ's.
type nameMatch int

const (
	nameSame      nameMatch = iota // the same letters, spelled the ICAO way
	nameClose                      // a few letters apart: OCR noise in one of the zones
	nameDifferent                  // not the same name
)

// mrzSpelling spells a visual zone's name as an MRZ does (ICAO Doc 9303): capitals,
// Ä → AE, Ö → OE, Ü → UE, ß → SS, other diacritics dropped, hyphens and apostrophes as
// separators. plain drops the umlauts' dots instead (Ä → A), as some issuers do.
func mrzSpelling(s string, plain bool) string {
	if !plain {
		s = transliteration.Replace(s)
	}
	return strings.Join(strings.FieldsFunc(strings.ToUpper(foldString(s)), func(r rune) bool { return r < 'A' || r > 'Z' }), " ")
}

// mrzNameAgrees compares the visual zone's given names and surname with the MRZ's. An
// MRZ whose names filled the line may have cut them short: a prefix then agrees.
func mrzNameAgrees(given, surname string, d mrzData) nameMatch {
	zone := strings.Join(strings.Fields(d.surname+" "+d.given), " ")
	truncated := len(d.lines) > 0 && !strings.HasSuffix(d.lines[len(d.lines)-1], "<") && len(d.lines) == 3 ||
		len(d.lines) == 2 && !strings.HasSuffix(d.lines[0], "<")
	best := nameDifferent
	for _, plain := range []bool{false, true} {
		viz := mrzSpelling(surname, plain) + " " + mrzSpelling(given, plain)
		if viz == zone || truncated && len(zone) >= 10 && strings.HasPrefix(viz, zone) {
			return nameSame
		}
		if d := EditDistance(viz, zone); d <= max(2, len(zone)/6) {
			best = nameClose
		}
	}
	return best
}

// mrzCompletes reports whether the MRZ's name is the visual zone's with letters OCR
// dropped from the visual zone ("OERN" for "JOERN"): the same number of words, each
// visual-zone word a subsequence of the MRZ's.
func mrzCompletes(given, surname string, d mrzData) bool {
	viz := strings.Fields(mrzSpelling(surname, false) + " " + mrzSpelling(given, false))
	zone := strings.Fields(d.surname + " " + d.given)
	if len(viz) != len(zone) {
		return false
	}
	for i, w := range viz {
		if !subsequence(w, zone[i]) {
			return false
		}
	}
	return true
}

// completeFromMRZ spells a name the MRZ's way with the letters OCR dropped from the
// visual zone put back, keeping what only the visual zone shows: on a German document
// an MRZ "OE", "AE", "UE" or "SS" that the visual zone has as one letter ("JORG" for
// "JOERG", "NUSBAUM" for "NUSSBAUM") was an umlaut or ß. viz and mrz are words in the
// same order (see mrzCompletes).
func completeFromMRZ(viz, mrz string, german bool) string {
	vw, mw := strings.Fields(mrzSpelling(viz, true)), strings.Fields(mrz)
	if len(vw) != len(mw) {
		return mrz
	}
	umlaut := map[byte]rune{'A': 'Ä', 'O': 'Ö', 'U': 'Ü'}
	out := make([]string, len(mw))
	for k, m := range mw {
		v := vw[k]
		var b strings.Builder
		i := 0
		for j := 0; j < len(m); j++ {
			if i < len(v) && v[i] == m[j] {
				next := byte(0)
				if i+1 < len(v) {
					next = v[i+1]
				}
				switch {
				case german && umlaut[m[j]] != 0 && j+1 < len(m) && m[j+1] == 'E' && next != 'E':
					b.WriteRune(umlaut[m[j]])
					j++
				case german && m[j] == 'S' && j+1 < len(m) && m[j+1] == 'S' && next != 'S':
					b.WriteRune('ß')
					j++
				default:
					b.WriteByte(m[j])
				}
				i++
				continue
			}
			b.WriteByte(m[j]) // a letter the visual zone lost
		}
		out[k] = b.String()
	}
	return strings.Join(out, " ")
}

// subsequence: the letters of a appear in b in order.
func subsequence(a, b string) bool {
	j := 0
	for i := 0; i < len(b) && j < len(a); i++ {
		if a[j] == b[i] {
			j++
		}
	}
	return j == len(a)
}

// EditDistance is the Levenshtein distance of two strings, letter by letter.
func EditDistance(a, b string) int {
	x, y := []rune(a), []rune(b)
	prev, cur := make([]int, len(y)+1), make([]int, len(y)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(x); i++ {
		cur[0] = i
		for j := 1; j <= len(y); j++ {
			cost := 1
			if x[i-1] == y[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(y)]
}

// wellFormedZone: the line lengths of an ICAO zone — three of 30 (TD1), two of 36 (TD2)
// or two of 44 (TD3).
func wellFormedZone(zone []string) bool {
	n := 0
	switch {
	case len(zone) == 3:
		n = 30
	case len(zone) == 2 && len(zone[0]) == 36:
		n = 36
	case len(zone) == 2:
		n = 44
	default:
		return false
	}
	for _, l := range zone {
		if len(l) != n {
			return false
		}
	}
	return true
}
