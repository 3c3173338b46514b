package engine

import "strings"

// mrzVerdict checks the check digits of a machine-readable zone (ICAO 9303): TD1 (ID
// cards, 3×30) and TD3 (passports, 2×44). ok false: the text is not a complete MRZ
// (OCR damage), so nothing can be said; valid false: a check digit is wrong.
func mrzVerdict(text string) (valid, ok bool) {
	var lines []string
	for _, l := range strings.Split(text, "\n") {
		l = strings.ToUpper(strings.ReplaceAll(strings.TrimSpace(l), " ", ""))
		if l != "" {
			lines = append(lines, l)
		}
	}
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
		personal := digitOK(l2[28:42], l2[42]) || (strings.Trim(l2[28:42], "<") == "" && (l2[42] == '<' || l2[42] == '0'))
		return digitOK(l2[0:9], l2[9]) && digitOK(l2[13:19], l2[19]) && digitOK(l2[21:27], l2[27]) && personal &&
			digitOK(l2[0:10]+l2[13:20]+l2[21:43], l2[43]), true
	}
	return false, false
}

// digitOK compares a field's ICAO 9303 check digit (weights 7, 3, 1; A=10 … Z=35; < = 0).
func digitOK(field string, check byte) bool {
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
	want := byte('0' + sum%10)
	return check == want || (check == '<' && want == '0')
}

// mrzExpiry reads the expiry date (YYMMDD) from a complete MRZ, "" when there is none.
func mrzExpiry(text string) string {
	var lines []string
	for _, l := range strings.Split(text, "\n") {
		if l = strings.ToUpper(strings.ReplaceAll(strings.TrimSpace(l), " ", "")); l != "" {
			lines = append(lines, l)
		}
	}
	switch {
	case len(lines) == 3 && len(lines[1]) == 30:
		return lines[1][8:14]
	case len(lines) == 2 && len(lines[1]) == 44:
		return lines[1][21:27]
	}
	return ""
}
