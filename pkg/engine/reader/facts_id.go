package reader

import (
	icao "github.com/doceval/doceval/pkg/engine/mrz"

	"regexp"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/doceval/doceval/pkg/engine/evidence"
	"github.com/doceval/doceval/pkg/engine/parse"
)

// The reader has no clock: a birth date in an MRZ is taken as not in the future
// relative to the time of reading.
var now = time.Now

var loneNumber = regexp.MustCompile(`^\s*[A-Z0-9]{9}\s*$`)

var docNumberRe = regexp.MustCompile(`\b([A-Z0-9]{9})\b`)

// Labels of an identity document's visual zone, where they come from:
//
//   - German ID card since 2010 (front): "Name / Surname / Nom", "Geburtsname / Name at
//     birth / Nom de naissance", "Vornamen / Given names / Prénoms", "Geburtstag / Date
//     of birth / Date de naissance", "Gültig bis / Date of expiry / Date d'expiration";
//     the back has "Anschrift / Address / Adresse" and the TD1 MRZ.
//
//   - German passport since 2017: "Name/Surname/Nom", "Vornamen/Given names/Prénoms",
//     "Geburtstag/Date of birth/Date de naissance", "Gültig bis/Date of
//     expiry/Date d'expiration", "Pass-Nr./Passport No./Passeport No".
//
//   - German residence permit (elektronischer Aufenthaltstitel, TD1): "Name / Surname",
//     "Vornamen / Given names", "Gültig bis / Valid until".
//
//   - ICAO Doc 9303 specimens and other countries' passports and ID cards in English:
//     "Surname", "Given names", "Forenames", "Date of birth", "Date of expiry",
//     "Expiry date", "Date of expiration" (US passport).
//
//   - Other European cards and passports print the same fields in their own language
//     beside English: surname "Nom", "Cognome", "Apellidos", "Apelido(s)", "Achternaam",
//     "Nazwisko", "Efternamn"; given names "Prénoms", "Nome", "Nombre", "Voornamen",
//     "Imiona", "Förnamn"; birth date "Data di nascita", "Fecha de nacimiento",
//     "Geboortedatum", "Data urodzenia"; expiry "Scadenza", "Valable jusqu'au",
//     "Fecha de caducidad", "Geldig tot", "Data ważności", "Validade".
//
//   - US driver licences (AAMVA card design): "LN"/"FN" or numbered names, "DOB",
//     "EXP", "ISS", the number after "DL", "DLN" or "4d"; dates month first.
//
// "Geburtsname" (birth name) is deliberately no surname label: the card holder's name
// is the one under "Name". Short words are whole words ("#nom#" is not the start of
// "nome").
const (
	surnameLabels   = "name/surname|surname|nachname|familienname|cognome|#nom#|apellidos|#apellido|apelido|achternaam|nazwisko|efternamn|sukunimi|prijmeni|#ln#"
	givenNameLabels = "vornamen|given names|given name|forenames|prenoms|#prenom#|#nome#|#nomi#|#nombre|voornamen|voornaam|imiona|fornamn|etunimet|#fn#"
	birthDateLabels = "geburtstag|geburtsdatum|date of birth|date de naissance|birth date|data di nascita|fecha de nacimiento|data de nascimento|geboortedatum|data urodzenia|fodelsedatum|#dob#"
	issueLabels     = "date of issue|issue date|ausgestellt am|ausstellungsdatum|date de delivrance|delivree le|#delivre le|#delivree#|emissione|data di rilascio|fecha de expedicion|fecha de emision|data de emissao|afgiftedatum|datum van afgifte|data wydania|utfardandedatum|#issued#|#iss#"
	expiryLabels    = "gültig bis|date of expiry|date d'expiration|valid until|ablaufdatum|expiry date|date of expiration|expires on|scadenza|valable jusqu|fecha de caducidad|valido fino|geldig tot|data waznosci|wazny do|giltig till|validade|valid thru|#exp#|#expires#"
)

// identity reads an ID card or passport: the visual zone first, the machine-readable
// zone to confirm or fill in.
func (r *reading) identity() {
	t := r.t
	var zone []string
	var mrz mrzData
	var mrzCite evidence.Citation
	z, zoneFound := t.machineZone()
	if zoneFound {
		zone = z.Lines
		mrzCite = t.cite(t.lines[z.First], t.lines[z.Last])
		r.add(evidence.FactMRZ, strings.Join(zone, "\n"), mrzCite, 0.9, time.Time{})
		mrz = t.mrzData(z)
	} else {
		// No zone the structural reader could anchor: consecutive MRZ-like lines, read
		// by position.
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
		if len(zone) >= 2 && first.page == last.page {
			mrzCite = t.cite(first, last)
			zone = normalizeMRZ(zone)
			r.add(evidence.FactMRZ, strings.Join(zone, "\n"), mrzCite, 0.9, time.Time{})
			mrz = parseMRZ(zone, now())
		}
	}

	// Names: the surname and given names each under (or after) their label, checked
	// against the MRZ's.
	snHit, gnHit := firstHit(t.find(surnameLabels)), firstHit(t.find(givenNameLabels))
	// A visual-zone name that spells the MRZ's is read first: OCR splits names ("J
	// ORDIS" for "JÖRDIS", "BJ) OERN") into pieces no name reader takes, and the pieces
	// count when they join into the MRZ's words.
	var surname, given string
	var snCite, gnCite evidence.Citation
	var okS, okG bool
	if mrz.surname != "" && mrz.given != "" {
		surname, snCite, okS = valueAfter(t, snHit, joinedTo(mrz.surname))
		given, gnCite, okG = valueAfter(t, gnHit, joinedTo(mrz.given))
	}
	if !okS {
		surname, snCite, okS = valueAfter(t, snHit, readNameWords)
	}
	if !okG {
		given, gnCite, okG = valueAfter(t, gnHit, readNameWords)
	}
	if okS && okG && mrz.given != "" {
		given = restoreUmlauts(alignWords(given, mrz.given), mrz.given)
		surname = restoreUmlauts(alignWords(surname, mrz.surname), mrz.surname)
	}
	mrzName := mrz.surname != "" && mrz.given != "" && mrzCite.Excerpt != ""
	switch {
	case okS && okG:
		c := snCite
		if gnCite.Excerpt != "" {
			c = joinCitations(t, snCite, gnCite)
		}
		name, conf := titleCase(given+" "+surname), 0.9
		if mrzName {
			switch mrzNameAgrees(given, surname, mrz) {
			case nameSame:
				conf = 0.95
				if mrz.numberOK || mrz.birthOK {
					// Two readings agree, and the zone's check digits show it was read
					// right.
					r.addChecked("applicant_full_name", name, c, conf)
					break
				}
			case nameClose:
				// OCR dropped letters of the visual zone's name that the MRZ, read
				// right as its check digits show, still has.
				if (mrz.numberOK || mrz.birthOK) && mrzCompletes(given, surname, mrz) {
					german := germanZone(mrz.lines)
					name = titleCase(completeFromMRZ(given, mrz.given, german) + " " + completeFromMRZ(surname, mrz.surname, german))
					c, conf = joinCitations(t, c, mrzCite), 0.8
				}
			case nameDifferent:
				// The visual zone's reading is not the holder's name (a label's
				// translation, another field): the MRZ's when its check digits prove
				// the zone was read right, else nothing sure.
				if mrz.numberOK || mrz.birthOK {
					name, c, conf = titleCase(mrz.given+" "+mrz.surname), mrzCite, 0.7
				} else {
					conf = 0.5
				}
			}
		}
		r.add("applicant_full_name", name, c, conf, time.Time{})
	case mrzName && mrz.vizConfirmed && (mrz.numberOK || mrz.birthOK):
		// The zone's names, every word printed in the visual zone too.
		r.addChecked("applicant_full_name", titleCase(mrz.given+" "+mrz.surname), mrzCite, 0.9)
	case mrzName:
		r.add("applicant_full_name", titleCase(mrz.given+" "+mrz.surname), mrzCite, 0.6, time.Time{})
	}

	// Dates.
	r.zoneDate("applicant_date_of_birth", birthDateLabels, mrz.birth, mrz.birthOK, mrzCite)
	r.zoneDate("id_document_expiry_date", expiryLabels, mrz.expiry, mrz.expiryOK, mrzCite)

	if zoneFound {
		r.zoneNumber(z, mrzCite)
		return
	}
	r.documentNumber(zone, mrz, mrzCite)
}

// zoneDate reads a date from the visual zone (under or after its label) and the
// machine-readable zone (inZone, confirmed by its check digit when checked): both
// agreeing is sure; the zone's confirmed reading wins a disagreement, less sure; a
// reading of one zone alone is as sure as its source.
func (r *reading) zoneDate(key, labels string, inZone time.Time, checked bool, zoneCite evidence.Citation) {
	t := r.t
	viz, c, ok := valueAfter(t, firstHit(t.find(labels)), documentDateIn(idDateOrder(t)))
	switch {
	case ok && checked && inZone.Equal(viz):
		r.addChecked(key, viz, c, 0.95)
	case checked && ok:
		// The zones disagree: the zone's reading, which its check digit confirms, is
		// the likelier, but not sure, and the citation quotes both so that a reviewer
		// sees the disagreement.
		r.addChecked(key, inZone, joinCitations(t, zoneCite, c), zonesDisagree)
	case checked:
		r.addChecked(key, inZone, zoneCite, 0.9)
	case ok && key == "id_document_expiry_date":
		// Without a zone's check digit, an expiry before issue or birth, or beyond any
		// validity a state gives, is a misreading of some other date: not sure. One
		// that nothing printed beside it could check is no ground for a verdict.
		switch plausible, checked := r.plausibleExpiry(viz); {
		case !plausible:
			r.add(key, viz, c, 0.4, time.Time{})
		case !checked:
			r.add(key, viz, c, belowVerdict, time.Time{})
		default:
			r.add(key, viz, c, 0.9, time.Time{})
		}
	case ok:
		r.add(key, viz, c, 0.9, time.Time{})
	}
}

// zonesDisagree is how sure a zone's checked reading is when the visual zone prints
// another value for the same field.
const zonesDisagree = 0.7

// zoneNumber reads the document number from a zone the structural reader found: a
// reading of the zone's number (see icao.Variants) that the visual zone prints too is
// sure; else the zone's own reading when its check digit confirms it, less sure the more
// OCR's characters had to be swapped; else the printed number alone, unsure.
func (r *reading) zoneNumber(z icao.Zone, mrzCite evidence.Citation) {
	t := r.t
	printed := map[string]line{}
	for i, l := range t.lines {
		if i >= z.First && i <= z.Last {
			continue
		}
		for _, w := range strings.FieldsFunc(strings.ToUpper(l.text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
			if _, seen := printed[w]; !seen && len(w) >= 6 {
				printed[w] = l
			}
		}
	}
	for _, v := range icao.Variants(z.NumberRead, z.NumberCheck) {
		num := strings.TrimRight(v.Text, "<")
		if l, ok := printed[num]; ok && v.Cost <= 8 {
			r.addChecked("id_document_number", num, joinCitations(t, t.citeLine(l), mrzCite), 0.97)
			return
		}
	}
	if z.NumberOK {
		conf := 0.93
		if z.NumberCost > 0 {
			conf = 0.75
		}
		cite := mrzCite
		if num, c, ok := r.labelledNumber(); ok && num != z.Number {
			// The visual zone labels another number: reported, not resolved.
			conf, cite = min(conf, zonesDisagree), joinCitations(t, mrzCite, c)
		}
		r.addChecked("id_document_number", z.Number, cite, conf)
		return
	}
	if num, c, ok := r.printedNumber(); ok {
		r.add("id_document_number", num, c, 0.6, time.Time{})
	}
}

// germanAlphabet is what German ID and passport numbers are made of: no vowels and
// no letter that reads like a digit. OCR's O, I, S, B, … in them are digits.
const germanAlphabet = "CFGHJKLMNPRTVWXYZ0123456789"

var toDigit = map[rune]rune{'O': '0', 'Q': '0', 'D': '0', 'U': '0', 'I': '1', 'S': '5', 'B': '8', 'A': '4', 'E': '6'}

// repairNumber maps letters that cannot occur in a German document number to the
// digits OCR took them for.
func repairNumber(n string, german bool) string {
	if !german {
		return n
	}
	return strings.Map(func(r rune) rune {
		if !strings.ContainsRune(germanAlphabet, r) {
			if d, ok := toDigit[r]; ok {
				return d
			}
		}
		return r
	}, n)
}

// documentNumber reads the document number from the visual zone and the MRZ: a
// reading whose ICAO check digit agrees with the MRZ wins, then the printed one.
func (r *reading) documentNumber(zone []string, mrz mrzData, mrzCite evidence.Citation) {
	german := germanZone(zone)
	printed, printedCite, okP := r.printedNumber()
	if okP {
		german = german || strings.ContainsAny(printed, "CFGHJKLMNPRTVWXYZ") && !strings.ContainsAny(printed, "AEU")
		printed = repairNumber(printed, german)
	}
	check := byte(0)
	if len(zone) >= 3 && len(zone[0]) >= 15 {
		check = zone[0][14]
	} else if len(zone) == 2 && len(zone[1]) >= 10 {
		check = mrzDigitFix.Replace(zone[1][9:10])[0]
	}
	fromMRZ := repairNumber(mrz.number, german)
	if checked, ok := checkedNumber(zone, german); ok {
		fromMRZ, check = checked, icao.CheckDigit(checked)
	}
	switch {
	case okP && len(printed) == 9 && icao.CheckDigit(printed) == check:
		r.add("id_document_number", printed, printedCite, 0.97, time.Time{})
	case len(fromMRZ) == 9 && icao.CheckDigit(fromMRZ) == check && mrzCite.Excerpt != "":
		r.add("id_document_number", fromMRZ, mrzCite, 0.9, time.Time{})
	case okP:
		r.add("id_document_number", printed, printedCite, 0.75, time.Time{})
	case len(fromMRZ) == 9 && mrzCite.Excerpt != "" && wellFormedZone(zone):
		// Unconfirmed, but from a zone of the right shape; one that OCR gave a
		// character too many or too few has its number shifted: no reading.
		r.add("id_document_number", fromMRZ, mrzCite, 0.5, time.Time{})
	}
}

// germanZone: the zone was issued by Germany, state D in its first line (OCR may
// misread the document code before it: "TDD<<" for "IDD<<").
func germanZone(zone []string) bool {
	return len(zone) > 0 && (strings.HasPrefix(zone[0], "IDD") || strings.HasPrefix(zone[0], "P<D") || strings.HasPrefix(zone[0], "ID<") ||
		len(zone) == 3 && len(zone[0]) >= 5 && zone[0][2:5] == "D<<")
}

// numberLabels label an identity document's number in the languages of the EU and on
// US cards (a driver licence's "DLN", "LIC#", "4d").
const numberLabels = "document number|document no|doc no|card no|card number|passport number|passport no|numero du document|no du document|numero documento|numero de documento|numero de soporte|numer dokumentu|documentnummer|license no|licence no|license number|licence number|#dln#|#lic#|#lic no|#dl no|#dl#|#4d#"

// idNumberToken is a document number as printed: six to twelve letters and digits,
// at least one a digit.
var idNumberToken = regexp.MustCompile(`\b[A-Z0-9]{6,12}\b`)

// readLabelledNumber reads the number after a number label.
func readLabelledNumber(s string) (string, bool) {
	for _, m := range idNumberToken.FindAllString(strings.ToUpper(s), -1) {
		if strings.ContainsAny(m, "0123456789") {
			return m, true
		}
	}
	return "", false
}

// labelledNumber is the number the visual zone prints after a number label.
func (r *reading) labelledNumber() (string, evidence.Citation, bool) {
	t := r.t
	for _, h := range t.find(numberLabels) {
		if v, c, ok := valueAfter(t, h, readLabelledNumber); ok {
			return v, c, true
		}
	}
	return "", evidence.Citation{}, false
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
	for _, l := range []struct {
		spec string
		read func(string) (string, bool)
	}{
		{"pass-nr|passport no|passeport no|document no|ausweisnummer|dokumentennummer", read},
		{numberLabels, readLabelledNumber},
		{"personalausweis|identity card|carte d'identit", read},
	} {
		for _, h := range t.find(l.spec) {
			if v, c, ok := valueAfter(t, h, l.read); ok {
				return v, c, true
			}
		}
	}
	// OCR may have moved the number, printed apart at the top right, to a line of its own.
	for _, l := range t.lines {
		if _, isMRZ := mrzLine(l.text); !isMRZ && loneNumber.MatchString(l.text) {
			if v, ok := read(l.text); ok {
				return v, t.citeLine(l), true
			}
		}
	}
	return "", evidence.Citation{}, false
}

var cellSplit = regexp.MustCompile(`\s{2,}|\t`)

// readNameWords reads a surname or given names as printed in a visual zone: words of
// letters and hyphens, after whatever is left of the label ("/Prénoms", "(1)").
func readNameWords(s string) (string, bool) {
	for _, seg := range cellSplit.Split(s, -1) {
		words := strings.Fields(seg)
		// The rest of a multilingual label ("Surname / Nom" leaves "/ Nom", "/Nom
		// WEIßMÜLLER") is no name: a word after a lone slash is a translation too.
		if len(words) > 0 && strings.HasPrefix(words[0], "/") {
			last := 0
			for k, w := range words {
				if strings.Contains(w, "/") {
					last = k
					if w == "/" {
						last = min(k+1, len(words)-1)
					}
				}
			}
			words = words[last+1:]
		}
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
	return t.citeText(a.Pages[0], page[i:end])
}

// alignWords joins words of a visual-zone name that OCR split ("ZEY NEP") where the
// machine-readable zone has them as one ("ZEYNEP").
func alignWords(viz, mrz string) string {
	vw, mw := strings.Fields(viz), strings.Fields(mrz)
	if len(vw) <= len(mw) {
		return viz
	}
	key := func(s string) string {
		return strings.ToUpper(transliteration.Replace(strings.ToLower(foldKeepUmlauts(s))))
	}
	var out []string
	i := 0
	for _, m := range mw {
		cur := ""
		for i < len(vw) && len(withoutUmlautE(key(cur))) < len(withoutUmlautE(m)) {
			cur += vw[i]
			i++
		}
		if key(cur) != m && strings.ToUpper(foldString(cur)) != m && withoutUmlautE(strings.ToUpper(foldString(cur))) != withoutUmlautE(m) {
			return viz
		}
		out = append(out, cur)
	}
	if i != len(vw) {
		return viz
	}
	return strings.Join(out, " ")
}

// withoutUmlautE drops the E of an MRZ's AE, OE, UE, so that a visual-zone word whose
// umlaut OCR lost ("JORDIS") compares equal to the MRZ's ("JOERDIS").
func withoutUmlautE(s string) string {
	return strings.NewReplacer("AE", "A", "OE", "O", "UE", "U").Replace(s)
}

// joinedTo reads a visual-zone name as pieces of capital letters that join into the
// words of the MRZ's name (mrz, words separated by spaces): "J ORDIS LUISE" for "JOERDIS
// LUISE". Nothing else is read, so the MRZ only confirms what the visual zone prints.
func joinedTo(mrz string) func(string) (string, bool) {
	return func(s string) (string, bool) {
		cells := cellSplit.Split(strings.TrimSpace(s), -1)
		if len(cells) == 0 {
			return "", false
		}
		// OCR's stray marks between the letters ("BJ) OERN") go; lower-case letters
		// mean running text, not a visual zone's name.
		cell := strings.Map(func(r rune) rune {
			if unicode.IsLetter(r) || r == '-' || r == '\'' || r == ' ' {
				return r
			}
			return ' '
		}, cells[0])
		words := strings.Fields(cell)
		if len(words) == 0 || len(words) > 8 {
			return "", false
		}
		for _, w := range words {
			for _, r := range w {
				if unicode.IsLower(r) {
					return "", false
				}
			}
		}
		joined := alignWords(strings.Join(words, " "), mrz)
		if mrzSpelling(joined, true) != withoutUmlautE(mrz) && mrzSpelling(joined, false) != mrz && withoutUmlautE(mrzSpelling(joined, true)) != withoutUmlautE(mrz) {
			return "", false
		}
		return joined, true
	}
}

func isNameSeparator(r rune) bool { return r == ' ' || r == '-' }

// splitKeep splits a name into its parts and the separators between them, in order.
func splitKeep(s string) []string {
	var out []string
	start := 0
	for i, r := range s {
		if isNameSeparator(r) {
			if i > start {
				out = append(out, s[start:i])
			}
			out = append(out, string(r))
			start = i + utf8.RuneLen(r)
		}
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

// foldKeepUmlauts drops diacritics other than the German umlauts.
func foldKeepUmlauts(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case 'ä', 'ö', 'ü', 'Ä', 'Ö', 'Ü', 'ß':
			b.WriteRune(r)
		default:
			b.WriteRune(foldRune(r))
		}
	}
	return b.String()
}

// restoreUmlauts puts back the umlauts and ß that OCR lost in capitals of the visual
// zone ("SOREN", "STRAUB") where the MRZ spells them out ("SOEREN", "STRAUSS").
func restoreUmlauts(viz, mrz string) string {
	vw, mw := strings.Fields(viz), strings.Fields(strings.ReplaceAll(mrz, "-", " "))
	if parts := strings.FieldsFunc(viz, isNameSeparator); len(vw) != len(mw) && len(parts) == len(mw) {
		// A double name printed with a hyphen ("MULLER-LUDENSCHEIDT") is two MRZ words:
		// restore each part and keep the hyphen.
		restored := strings.Fields(restoreUmlauts(strings.Join(parts, " "), mrz))
		var b strings.Builder
		k := 0
		for _, seg := range splitKeep(viz) {
			if k < len(restored) && !isNameSeparator([]rune(seg)[0]) {
				b.WriteString(restored[k])
				k++
				continue
			}
			b.WriteString(seg)
		}
		return b.String()
	}
	if len(vw) != len(mw) {
		return viz
	}
	umlaut := map[rune]rune{'A': 'Ä', 'O': 'Ö', 'U': 'Ü'}
	for i, w := range vw {
		if strings.ToUpper(w) != w {
			return viz // only words printed in capitals
		}
		m := []rune(mw[i])
		var out []rune
		j := 0
		rs := []rune(w)
		ok, skip := true, false
		for k, c := range rs {
			nextE := k+1 < len(rs) && rs[k+1] == 'E'
			switch {
			case j+1 < len(m) && umlaut[c] != 0 && m[j] == c && m[j+1] == 'E' && !nextE:
				out, j = append(out, umlaut[c]), j+2
			case j+1 < len(m) && (c == 'B' || c == 'R' || c == 'G' || c == 'ß') && m[j] == 'S' && m[j+1] == 'S':
				// OCR reads ß as B, R, G or RB.
				out, j = append(out, 'ß'), j+2
				if k+1 < len(rs) && (rs[k+1] == 'B' || rs[k+1] == 'R') && (j >= len(m) || m[j] != rs[k+1]) {
					skip = true
				}
			case skip:
				skip = false
			case c == 'S' && j+1 < len(m) && m[j] == 'S' && m[j+1] == 'S' && (k+1 >= len(rs) || rs[k+1] != 'S'):
				out, j = append(out, 'ß'), j+2 // OCR dropped half of ß
			case c == '-' || c == '\'':
				out = append(out, c)
				if j < len(m) && m[j] == c {
					j++
				}
			case j < len(m) && (c == m[j] || c > 127):
				out, j = append(out, c), j+1
				if c > 127 && j < len(m) && m[j] == 'E' && umlaut[rune(m[j-1])] != 0 {
					j++ // Ü in the visual zone, UE in the MRZ
				}
				if c == 'ß' && j < len(m) && m[j] == 'S' {
					j++
				}
			default:
				ok = false
			}
		}
		if ok && j == len(m) {
			vw[i] = string(out)
		}
	}
	return strings.Join(vw, " ")
}

// ambiguous lists, per character OCR confuses, what a German document number may have
// had there instead.
var ambiguous = map[rune][]rune{'I': {'1', 'J'}, 'O': {'0'}, 'Q': {'0'}, 'D': {'0'}, 'U': {'0', 'V'}, 'S': {'5'}, 'B': {'8'}, 'A': {'4'}, 'E': {'6'}}

// checkedNumber reads the document number of an MRZ whose number field OCR garbled:
// one character too many (dropped, each in turn) and letters a German number cannot
// have (each lookalike tried). A reading counts only when it is the one variant that
// passes the printed check digit.
func checkedNumber(zone []string, german bool) (string, bool) {
	var field string
	switch {
	case len(zone) >= 3 && len(zone[0]) > 15:
		field = strings.TrimRight(zone[0][5:], "<")
	case len(zone) == 2 && len(zone[1]) == 44:
		field = zone[1][:10]
	case len(zone) == 2 && len(zone[1]) == 45:
		field = zone[1][:11]
	default:
		return "", false
	}
	if !german || len(field) < 10 {
		return "", false
	}
	// Each reading costs one per lookalike substituted and one per dropped character
	// that could belong to a number; the single cheapest reading that passes wins.
	type base struct {
		s    string
		cost int
	}
	var bases []base
	switch len(field) {
	case 10:
		bases = []base{{field, 0}}
	case 11:
		for i := range 11 {
			cost := 1
			if !strings.ContainsRune(germanAlphabet, rune(field[i])) {
				cost = 0
			}
			bases = append(bases, base{field[:i] + field[i+1:], cost})
		}
	default:
		return "", false
	}
	best, bestCost, ties := "", 1<<30, 0
	for _, b := range bases {
		num, chk := b.s[:9], mrzDigitFix.Replace(b.s[9:10])[0]
		for _, v := range variants(num) {
			if icao.CheckDigit(v) != chk {
				continue
			}
			cost := b.cost
			for i := range v {
				if v[i] != num[i] {
					cost++
				}
			}
			switch {
			case cost < bestCost:
				best, bestCost, ties = v, cost, 1
			case cost == bestCost && v != best:
				ties++
			}
		}
	}
	return best, best != "" && ties == 1
}

// variants spells out a German number with each impossible letter replaced by each of
// its lookalikes (at most 16 variants).
func variants(num string) []string {
	out := []string{""}
	for _, r := range num {
		alts := []rune{r}
		if !strings.ContainsRune(germanAlphabet, r) {
			alts = ambiguous[r]
			if alts == nil {
				return nil
			}
		}
		var next []string
		for _, prefix := range out {
			for _, a := range alts {
				next = append(next, prefix+string(a))
			}
		}
		if len(next) > 16 {
			return nil
		}
		out = next
	}
	return out
}

// identityLabelKinds are the kinds of field an identity document's data page (or its
// back) labels, in the languages of its labels: names, birth, address, validity, issuer.
var identityLabelKinds = []struct {
	spec     string
	validity bool // the document's own dates or issuer, which forms about a person lack
}{
	{surnameLabels, false},
	{givenNameLabels, false},
	{birthDateLabels, false},
	{"nationality|nationalite|staatsangehorigkeit|cittadinanza|nacionalidad|nacionalidade|nationaliteit|obywatelstwo|medborgarskap", false},
	{"place of birth|lieu de naissance|geburtsort|luogo di nascita|lugar de nacimiento|geboorteplaats|miejsce urodzenia", false},
	{"#address#|#adresse#|anschrift|indirizzo|domicilio|direccion|#adres#|endereco", false},
	{expiryLabels, true},
	{issueLabels, true},
	{"authority|autorite|behorde|autorita|autoridad|autoridade|instantie|organ wydajacy|myndighet", true},
}

// identityFields counts the kinds of identity-document field labelled on the text's
// lines (see identityLabelKinds), on OCR pages also as OCR garbled them, and whether one
// of them is a validity label.
func identityFields(t *text) (kinds int, validity bool) {
	for _, k := range identityLabelKinds {
		for _, l := range t.lines {
			if keyed(k.spec).match(l) || t.ocr && pageIsOCR(t, l.page) && fuzzyFound(k.spec, l) {
				kinds++
				validity = validity || k.validity
				break
			}
		}
	}
	return kinds, validity
}

var spacedDate = regexp.MustCompile(`\b(\d{1,2})[\s.]+(\d{1,2})[\s.]+((?:19|20)\d\d)\b`)

// documentDateIn reads a date printed on an identity document whose numeric dates with
// slashes are in the given order (a US licence's "01/07/1973" is 7 January): as
// parse.DateIn does, or day, month and year that OCR separated by spaces ("15 09 2004"
// for "15.09.2004").
func documentDateIn(order parse.DateOrder) func(string) (time.Time, bool) {
	return func(s string) (time.Time, bool) {
		if d, _, ok := parse.DateIn(s, order); ok {
			return d, true
		}
		return spacedDay(s)
	}
}

// usIssuer marks an identity document of the United States, whose numeric dates are
// month first.
var usIssuer = labelPattern(`re:\busa\b|united states|\bdriver'?s? licen[sc]e|\bdl\s*(?:no|#|n)|\bstate of [a-z]+`)

// idDateOrder is the order of an identity document's numeric dates: as its dates show
// (see parse.DateOrderOf), else month first on a US document, else day first.
func idDateOrder(t *text) parse.DateOrder {
	var b strings.Builder
	us := false
	for _, l := range t.lines {
		b.WriteString(l.text)
		b.WriteByte('\n')
		us = us || usIssuer.MatchString(l.f.s)
	}
	if o, ok := parse.DateOrderOf(b.String()); ok {
		return o
	}
	if us {
		return parse.MonthFirst
	}
	return parse.DayFirst
}

// spacedDay reads day, month and year that OCR separated by spaces.
func spacedDay(s string) (time.Time, bool) {
	m := spacedDate.FindStringSubmatch(s)
	if m == nil {
		return time.Time{}, false
	}
	return validDay(atoi(m[3]), atoi(m[2]), atoi(m[1]))
}

// longestValidity is the longest validity a state gives an identity document (ten
// years for most adults' cards and passports, fifteen for some, up to twenty where a
// card outlives its holder's next birthday); an expiry further from the issue date is a
// misreading.
const longestValidity = 20

// plausibleExpiry reports whether an expiry read without a machine-readable zone fits
// the document's issue and birth dates: after both, and within longestValidity years of
// issue; checked says whether either date is printed to check it against.
func (r *reading) plausibleExpiry(expiry time.Time) (plausible, checked bool) {
	t := r.t
	read := documentDateIn(idDateOrder(t))
	if issued, _, ok := valueAfter(t, firstHit(t.find(issueLabels)), read); ok {
		checked = true
		if !expiry.After(issued) || expiry.After(issued.AddDate(longestValidity, 0, 0)) {
			return false, true
		}
	}
	if born, _, ok := valueAfter(t, firstHit(t.find(birthDateLabels)), read); ok {
		checked = true
		if !expiry.After(born) {
			return false, true
		}
	}
	return true, checked
}
