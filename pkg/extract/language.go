package extract

import (
	"context"
	"strings"
	"sync"
	"unicode"
)

// A page in a language other than the first pass's (deu+eng) is read once more with
// that language's model, and the second reading is kept when it scores better. The language is told by the first reading itself: its function words and the
// letters only that language writes. The submission's language says nothing here: it
// is the language of the reasoning, not of the documents.

// languageCues are, per tesseract language, words that are frequent in that language
// and rare in German and English, and letters that only it (among these) writes.
var languageCues = map[string]struct {
	words   []string
	letters string
}{
	"fra": {[]string{"le", "la", "les", "des", "du", "et", "au", "aux", "nom", "prénom", "prénoms", "née", "né", "république", "française", "carte", "date", "lieu", "naissance", "délivrée", "valable", "par", "sur", "pour", "une"}, "éèêçàùœ"},
	"spa": {[]string{"el", "los", "las", "del", "y", "con", "por", "para", "una", "nombre", "apellidos", "apellido", "nacimiento", "fecha", "españa", "documento", "nacional", "sexo", "validez"}, "ñ¿¡"},
	"ita": {[]string{"il", "della", "dello", "degli", "di", "e", "che", "per", "una", "cognome", "nome", "nascita", "luogo", "data", "comune", "repubblica", "italiana", "scadenza", "emissione", "cittadinanza"}, ""},
	"nld": {[]string{"het", "een", "van", "de", "en", "naam", "voornamen", "geboortedatum", "geboorteplaats", "nederland", "nederlandse", "geldig", "tot", "paspoort", "identiteitskaart", "lengte"}, "ĳ"},
	"por": {[]string{"o", "os", "da", "do", "das", "dos", "em", "uma", "nome", "nascimento", "data", "validade", "república", "portuguesa", "apelido", "cartão", "cidadão"}, "ãõ"},
	"pol": {[]string{"i", "w", "z", "na", "się", "nie", "nazwisko", "imię", "imiona", "data", "urodzenia", "miejsce", "rzeczpospolita", "polska", "dowód", "osobisty", "ważności"}, "ąęłńśźżćĄĘŁŃŚŹŻĆ"},
}

// minLanguageCues is how many cue words and letters a page must show before it is
// read again in their language.
const minLanguageCues = 4

// pageLanguage names the language (other than German and English) the first reading
// shows, or "".
func pageLanguage(text string) string {
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) })
	best, bestN, second := "", 0, 0
	for lang, c := range languageCues {
		n := 0
		for _, w := range words {
			for _, cw := range c.words {
				if w == cw {
					n++
					break
				}
			}
		}
		letters := 0
		for _, r := range text {
			if strings.ContainsRune(c.letters, r) {
				letters++
			}
		}
		n += min(letters, minLanguageCues)
		switch {
		case n > bestN:
			best, bestN, second = lang, n, bestN
		case n > second:
			second = n
		}
	}
	if bestN < minLanguageCues || bestN < 2*second {
		return ""
	}
	return best
}

// rereadLanguage is the language a page's first reading should be read again in: the
// one it shows (see pageLanguage) when the reading is not already sure
// (relanguageBelow); "" for none.
func rereadLanguage(first tsvPage) string {
	if first.conf >= relanguageBelow {
		return ""
	}
	return pageLanguage(first.text)
}

var (
	installedOnce sync.Once
	installed     map[string]bool
)

// languageInstalled reports whether tesseract has the language's model.
func languageInstalled(ctx context.Context, lang string, opt Options) bool {
	installedOnce.Do(func() {
		installed = map[string]bool{}
		out, err := run(ctx, opt, 1<<16, "tesseract", "--list-langs")
		if err != nil {
			return
		}
		for _, l := range strings.Split(string(out), "\n") {
			installed[strings.TrimSpace(l)] = true
		}
	})
	return installed[lang]
}
