package corpus

import (
	"strings"
	"time"
)

// mrzName writes a name part the ICAO way: transliterated, capitals, '<' between
// words and for hyphens, other characters dropped.
func mrzName(s string) string {
	s = strings.ToUpper(transliterate(s))
	var b strings.Builder
	for _, c := range s {
		switch {
		case c >= 'A' && c <= 'Z':
			b.WriteRune(c)
		case c == ' ' || c == '-':
			b.WriteByte('<')
		}
	}
	return b.String()
}

func fill(s string, n int) string {
	if len(s) >= n {
		return s[:n]
	}
	return s + strings.Repeat("<", n-len(s))
}

func yymmdd(t time.Time) string { return t.Format("060102") }

// checkDigit is the ICAO 9303 check digit: characters valued 0–9 (digits), 10–35
// (A–Z) and 0 (the filler '<'), weighted 7, 3, 1 in turn, summed modulo 10. Any other
// character gives '?', which never matches a printed digit.
func checkDigit(s string) byte {
	weights := [3]int{7, 3, 1}
	sum := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		v := 0
		switch {
		case c >= '0' && c <= '9':
			v = int(c - '0')
		case c >= 'A' && c <= 'Z':
			v = int(c-'A') + 10
		case c == '<':
		default:
			return '?'
		}
		sum += v * weights[i%3]
	}
	return byte('0' + sum%10)
}

func withCheck(s string) string { return s + string(checkDigit(s)) }

// td1 returns the three 30-character lines of an ID card's MRZ; code is the document
// code ("ID" for an identity card, "AR" for a German residence permit).
func td1(code, docNo, country, nationality string, p person, expiry time.Time) []string {
	sex := "M"
	if p.Female {
		sex = "F"
	}
	l1 := fill(fill(code, 2)+fill(country, 3)+withCheck(docNo), 30)
	dob, exp := yymmdd(p.DOB), yymmdd(expiry)
	l2 := fill(withCheck(dob)+sex+withCheck(exp)+fill(nationality, 3), 29)
	composite := l1[5:30] + l2[0:7] + l2[8:15] + l2[18:29]
	l2 += string(checkDigit(composite))
	l3 := fill(mrzName(p.Surname)+"<<"+mrzName(strings.Join(p.Given, " ")), 30)
	return []string{l1, l2, l3}
}

// td3 returns the two 44-character lines of a passport's MRZ.
func td3(docNo, country, nationality string, p person, expiry time.Time) []string {
	sex := "M"
	if p.Female {
		sex = "F"
	}
	l1 := fill("P<"+fill(country, 3)+mrzName(p.Surname)+"<<"+mrzName(strings.Join(p.Given, " ")), 44)
	dob, exp := yymmdd(p.DOB), yymmdd(expiry)
	l2 := withCheck(fill(docNo, 9)) + fill(nationality, 3) + withCheck(dob) + sex + withCheck(exp) + withCheck(fill("", 14))
	composite := l2[0:10] + l2[13:20] + l2[21:43]
	return []string{l1, l2 + string(checkDigit(composite))}
}

// spoilCheckDigit replaces the document number's check digit with a wrong one.
func spoilCheckDigit(lines []string) []string {
	out := append([]string(nil), lines...)
	line, pos := 1, 9 // TD3: line 2, after the 9-character number
	if len(lines) == 3 {
		line, pos = 0, 14 // TD1: line 1, after "IDD<<" and the number
	}
	b := []byte(out[line])
	b[pos] = '0' + (b[pos]-'0'+3)%10
	out[line] = string(b)
	return out
}

// ValidMRZ reports whether every check digit of TD1 (3×30) or TD3 (2×44) lines is right.
func ValidMRZ(lines []string) bool {
	type field struct {
		line     int
		from, to int // the checked characters
		check    int // position of the check digit
	}
	var fields []field
	var composite string
	switch {
	case len(lines) == 3 && len(lines[0]) == 30 && len(lines[1]) == 30 && len(lines[2]) == 30:
		fields = []field{{0, 5, 14, 14}, {1, 0, 6, 6}, {1, 8, 14, 14}}
		composite = lines[0][5:30] + lines[1][0:7] + lines[1][8:15] + lines[1][18:29]
		if checkDigit(composite) != lines[1][29] {
			return false
		}
	case len(lines) == 2 && len(lines[0]) == 44 && len(lines[1]) == 44:
		fields = []field{{1, 0, 9, 9}, {1, 13, 19, 19}, {1, 21, 27, 27}}
		l := lines[1]
		if personal := l[28:42]; l[42] != checkDigit(personal) && !(l[42] == '<' && personal == strings.Repeat("<", 14)) {
			return false
		}
		if checkDigit(l[0:10]+l[13:20]+l[21:43]) != l[43] {
			return false
		}
	default:
		return false
	}
	for _, f := range fields {
		l := lines[f.line]
		if checkDigit(l[f.from:f.to]) != l[f.check] {
			return false
		}
	}
	return true
}
