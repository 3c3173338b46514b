package extract

import (
	"strings"

	"github.com/doceval/doceval/pkg/document"
)

// wordsInText keeps the words whose text occurs in the page text, in their order, so
// that a citation built from words can always be checked against the page text.
// Words are looked for from where the previous one was found, then anywhere.
func wordsInText(text string, words []document.Word) []document.Word {
	if len(words) == 0 {
		return nil
	}
	out := make([]document.Word, 0, len(words))
	at := 0
	for _, w := range words {
		w.Text = clean(w.Text)
		if w.Text == "" || strings.ContainsAny(w.Text, " \n\t") {
			continue
		}
		if i := strings.Index(text[at:], w.Text); i >= 0 {
			at += i + len(w.Text)
		} else if !strings.Contains(text, w.Text) {
			continue
		}
		out = append(out, w)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
