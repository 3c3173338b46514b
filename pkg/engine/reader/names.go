package reader

import (
	"regexp"
	"strings"
	"unicode"
)

// nameStop ends a name value: a further label on the same line ("Employee No:",
// "Personal-Nr.") or a comma followed by a date or "geboren"/"born".
var nameStop = regexp.MustCompile(`(?i)\s{2,}|\s+(?:employee\s*no|pers(?:onal)?[.\s-]*n|geb(?:oren|\.)|born|geburtsdatum|date of birth|steuer|tax)\b|[:;(]|,\s*(?:geb|born|\d)`)

// readName reads a person's name from a label's value: "Given Surname", "SURNAME,
// Given" or the like; it returns the name in natural order ("Given Surname"), all caps
// turned into title case.
func readName(s string) (string, bool) {
	s = strings.TrimLeft(s, " \t:.-")
	if loc := nameStop.FindStringIndex(s); loc != nil {
		s = s[:loc[0]]
	}
	s = strings.TrimSpace(strings.Trim(s, " ,.-"))
	for _, prefix := range []string{"Herrn ", "Herr ", "Frau ", "Mr ", "Mrs ", "Ms ", "Mr. ", "Mrs. ", "Ms. ", "Monsieur ", "Madame ", "Mme ", "M. "} {
		s = strings.TrimPrefix(s, prefix)
	}
	if surname, given, ok := strings.Cut(s, ","); ok {
		s = strings.TrimSpace(given) + " " + strings.TrimSpace(surname)
	}
	words := strings.Fields(s)
	if len(words) < 2 || len(words) > 5 {
		return "", false
	}
	for i, w := range words {
		if middleInitial(w) && i > 0 && i < len(words)-1 {
			continue // "John Q. Sample"
		}
		if !isNameWord(w) || formWords[strings.ToLower(strings.Trim(w, ".-'"))] {
			return "", false
		}
	}
	return titleCase(strings.Join(words, " ")), true
}

// formWords are words of a form's labels that no name is made of: "Tax Code", "Pay
// Date" or "Account Number" next to a name label is the next field, not the holder.
var formWords = map[string]bool{
	"tax": true, "code": true, "number": true, "no": true, "nr": true, "date": true, "period": true, "pay": true,
	"employee": true, "employer": true, "account": true, "statement": true, "ni": true, "insurance": true,
	"steuerklasse": true, "steuer": true, "datum": true, "nummer": true, "konto": true, "zeitraum": true,
}

// middleInitial is a middle name's initial: one capital letter, a dot after it or not.
func middleInitial(w string) bool {
	r := []rune(strings.TrimSuffix(w, "."))
	return len(r) == 1 && unicode.IsUpper(r[0])
}

func isNameWord(w string) bool {
	letters := 0
	for i, r := range w {
		switch {
		case unicode.IsLetter(r):
			letters++
			if i == 0 && !unicode.IsUpper(r) {
				return false
			}
		case r == '-' || r == '\'' || r == '.':
		default:
			return false
		}
	}
	return letters >= 2
}

// titleCase turns words printed in capitals into title case ("MÜLLER-LÜDENSCHEIDT" →
// "Müller-Lüdenscheidt"); words in mixed case stay as printed.
func titleCase(s string) string {
	words := strings.Fields(s)
	for i, w := range words {
		if strings.ToUpper(w) != w {
			continue
		}
		var b strings.Builder
		start := true
		for _, r := range w {
			if start {
				b.WriteRune(r)
			} else {
				b.WriteRune(unicode.ToLower(r))
			}
			start = r == '-' || r == '\''
		}
		words[i] = b.String()
	}
	return strings.Join(words, " ")
}
