// Package mrz checks the machine-readable zone of identity documents (ICAO 9303): the
// check digits of TD1 (ID cards, 3 lines of 30) and TD3 (passports, 2 lines of 44).
// The reader uses it to repair OCR's misreadings, the engine to judge a document, and
// extraction to find the zone on a scan.
package mrz

import "strings"

// CheckDigit is the check digit of a field: weights 7, 3, 1 over the character values
// (digits as such, A–Z 10–35, '<' 0), modulo 10.
func CheckDigit(field string) byte {
	weights := [3]int{7, 3, 1}
	sum := 0
	for i := 0; i < len(field); i++ {
		c := field[i]
		v := 0
		switch {
		case c >= '0' && c <= '9':
			v = int(c - '0')
		case c >= 'A' && c <= 'Z':
			v = int(c-'A') + 10
		}
		sum += v * weights[i%3]
	}
	return byte('0' + sum%10)
}

// digitOK compares a field's check digit; '<' stands for 0 in an empty optional field.
func digitOK(field string, check byte) bool {
	want := CheckDigit(field)
	return check == want || (check == '<' && want == '0')
}

// Lines splits text into MRZ lines: upper case, spaces removed, empty lines dropped.
func Lines(text string) []string {
	var lines []string
	for _, l := range strings.Split(text, "\n") {
		if l = strings.ToUpper(strings.ReplaceAll(strings.TrimSpace(l), " ", "")); l != "" {
			lines = append(lines, l)
		}
	}
	return lines
}

// Verify checks every check digit of a TD1 or TD3 zone. complete false: the lines are
// not a whole zone of MRZ characters (OCR damage, a cut-off scan), so nothing can be
// said; valid false: a check digit is wrong.
func Verify(lines []string) (valid, complete bool) {
	for _, l := range lines {
		for _, r := range l {
			if !(r == '<' || r >= '0' && r <= '9' || r >= 'A' && r <= 'Z') {
				return false, false
			}
		}
	}
	switch {
	case len(lines) == 3 && len(lines[0]) == 30 && len(lines[1]) == 30 && len(lines[2]) == 30:
		l1, l2 := lines[0], lines[1]
		return digitOK(l1[5:14], l1[14]) && digitOK(l2[0:6], l2[6]) && digitOK(l2[8:14], l2[14]) &&
			digitOK(l1[5:30]+l2[0:7]+l2[8:15]+l2[18:29], l2[29]), true
	case len(lines) == 2 && len(lines[0]) == 44 && len(lines[1]) == 44:
		l2 := lines[1]
		return digitOK(l2[0:9], l2[9]) && digitOK(l2[13:19], l2[19]) && digitOK(l2[21:27], l2[27]) &&
			digitOK(l2[28:42], l2[42]) && digitOK(l2[0:10]+l2[13:20]+l2[21:43], l2[43]), true
	}
	return false, false
}
