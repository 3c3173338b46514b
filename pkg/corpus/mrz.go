package corpus

import (
	"github.com/doceval/doceval/pkg/engine/mrz"

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

// td1 returns the three 30-character lines of an ID card's MRZ.
func td1(docNo, country, nationality string, p person, expiry time.Time) []string {
	sex := "M"
	if p.Female {
		sex = "F"
	}
	l1 := fill("ID"+fill(country, 3)+docNo+string(mrz.CheckDigit(docNo)), 30)
	dob, exp := yymmdd(p.DOB), yymmdd(expiry)
	l2 := dob + string(mrz.CheckDigit(dob)) + sex + exp + string(mrz.CheckDigit(exp)) + fill(nationality, 3)
	l2 = fill(l2, 29)
	composite := l1[5:30] + l2[0:7] + l2[8:15] + l2[18:29]
	l2 += string(mrz.CheckDigit(composite))
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
	no := fill(docNo, 9)
	dob, exp := yymmdd(p.DOB), yymmdd(expiry)
	personal := fill("", 14)
	l2 := no + string(mrz.CheckDigit(no)) + fill(nationality, 3) + dob + string(mrz.CheckDigit(dob)) + sex + exp + string(mrz.CheckDigit(exp)) + personal + string(mrz.CheckDigit(personal))
	composite := l2[0:10] + l2[13:20] + l2[21:43]
	return []string{l1, l2 + string(mrz.CheckDigit(composite))}
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
	valid, complete := mrz.Verify(lines)
	return valid && complete
}
