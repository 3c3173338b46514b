package corpus

import (
	"fmt"
	"strings"
	"time"
)

// money prints cents the German way ("3.250,00") or the English way ("3,250.00").
func money(cents int64, lang string) string {
	neg := cents < 0
	if neg {
		cents = -cents
	}
	units := cents / 100
	s := fmt.Sprint(units)
	sep, dec := ".", ","
	if lang == "en" {
		sep, dec = ",", "."
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteString(sep)
		}
		b.WriteRune(c)
	}
	out := fmt.Sprintf("%s%s%02d", b.String(), dec, cents%100)
	if neg {
		out = "-" + out
	}
	return out
}

// wholeMoney prints whole euros without cents ("385.000"), as exposés do.
func wholeMoney(cents int64, lang string) string {
	s := money(cents, lang)
	return s[:len(s)-3]
}

// decimal prints a number with one or two decimals in the language's notation.
func decimal(v float64, decimals int, lang string) string {
	s := fmt.Sprintf("%.*f", decimals, v)
	if lang == "de" {
		s = strings.Replace(s, ".", ",", 1)
	}
	return s
}

var monthsDE = []string{"Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August", "September", "Oktober", "November", "Dezember"}

func monthName(m time.Month, lang string) string {
	if lang == "de" {
		return monthsDE[m-1]
	}
	return m.String()
}

// date prints a date in one of the styles common in the language: style 0 is the
// usual numeric one, 1 a written one, 2 another numeric one.
func date(t time.Time, lang string, style int) string {
	switch {
	case lang == "de" && style == 1:
		return fmt.Sprintf("%d. %s %d", t.Day(), monthName(t.Month(), "de"), t.Year())
	case lang == "de":
		return t.Format("02.01.2006")
	case style == 1:
		return fmt.Sprintf("%d %s %d", t.Day(), t.Month(), t.Year())
	case style == 2:
		return fmt.Sprintf("%s %d, %d", t.Month(), t.Day(), t.Year())
	default:
		return t.Format("02/01/2006")
	}
}

func monthStart(t time.Time) time.Time {
	return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
}

func monthEnd(t time.Time) time.Time { return monthStart(t).AddDate(0, 1, -1) }

func day(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }
