package extract

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// leaders are punctuation that tables of contents, indexes and forms repeat in runs;
// they count neither for nor against a text layer.
const leaders = ".,:;-–—_…·"

// garbled reports whether a PDF text layer is unlikely to be the text printed on the
// page: a font without a usable Unicode mapping yields replacement, private-use or
// control glyphs, "(cid:N)" runs, or letters shifted into consonant soup. Such a page
// is read by OCR instead, and the OCR kept when it reads better.
func garbled(text string) bool {
	total, bad, letters := 0, 0, 0
	for _, r := range text {
		switch {
		case unicode.IsSpace(r), strings.ContainsRune(leaders, r):
			continue
		case r == utf8.RuneError, unicode.Is(unicode.Co, r), unicode.IsControl(r), !unicode.IsPrint(r):
			bad++
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			letters++
		}
		total++
	}
	if total == 0 {
		return false
	}
	bad += 5 * strings.Count(text, "(cid:")
	if bad*5 > total { // a fifth of the glyphs unmapped
		return true
	}
	if total >= 40 && letters*2 < total { // mostly symbols: a symbol-encoded font
		return true
	}
	if latin, vowels := vowelShare(text); latin >= 60 && vowels*5 < latin {
		// Written German and English have about two vowels in five letters; a layer
		// with fewer than one in five is letters shifted by a broken font encoding.
		return true
	}
	words, odd := 0, 0
	for _, f := range strings.Fields(text) {
		f = strings.TrimFunc(f, func(r rune) bool { return !unicode.IsLetter(r) })
		if utf8.RuneCountInString(f) < 4 || strings.IndexFunc(f, func(r rune) bool { return !unicode.IsLetter(r) }) >= 0 {
			continue
		}
		if !unicode.In([]rune(f)[0], unicode.Latin) {
			continue // the vowel and case tests below know Latin letters only
		}
		words++
		if implausibleWord(f) {
			odd++
		}
	}
	return words >= 8 && odd*100 > words*45
}

const vowelLetters = "aeiouyäöüàáâéèêíìîóòôúùûAEIOUYÄÖÜÀÁÂÉÈÊÍÌÎÓÒÔÚÙÛ"

// vowelShare counts the Latin letters of text and the vowels among them.
func vowelShare(text string) (latin, vowels int) {
	for _, r := range text {
		if unicode.IsLetter(r) && unicode.In(r, unicode.Latin) {
			latin++
			if strings.ContainsRune(vowelLetters, r) {
				vowels++
			}
		}
	}
	return latin, vowels
}

// implausibleWord: a Latin word of four or more letters without a vowel (acronyms
// in capitals aside), or whose case flips three times or more ("hEkLo").
func implausibleWord(w string) bool {
	vowel, upper, flips := false, 0, 0
	n := 0
	var prevUpper bool
	for i, r := range w {
		if strings.ContainsRune(vowelLetters, r) {
			vowel = true
		}
		u := unicode.IsUpper(r)
		if u {
			upper++
		}
		if i > 0 && u != prevUpper {
			flips++
		}
		prevUpper = u
		n++
	}
	if upper == n { // an acronym (GmbH-like mixes still count below)
		return false
	}
	return !vowel || flips >= 3
}
