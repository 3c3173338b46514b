package llm

import (
	"cmp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/doceval/doceval/pkg/engine/evidence"
	"github.com/google/uuid"
)

// shownPage is a page whose (neutralized) text goes into the request.
type shownPage struct {
	number    int
	text      string
	truncated bool // only the beginning of the page fits the budget
}

// shownDocument is what the model sees of one document.
type shownDocument struct {
	doc     *evidence.Document
	types   []string
	pages   []shownPage // in document order
	omitted []int       // page numbers left out, ascending
}

// selection is the document text of one request.
type selection struct {
	docs    []shownDocument
	omitted int // pages left out in all
}

// selectPages fits the documents into budget characters of page text. When everything
// fits, everything is sent. Otherwise pages are ranked by how well they match the
// keywords of the question (German and English stems, plus a few translations) and the
// best are taken until the budget is full; they are sent in document order and the rest
// are listed as omitted.
func selectPages(docs []*evidence.Document, types map[uuid.UUID][]string, question string, budget int) selection {
	type candidate struct {
		doc, page int
		chars     int
		score     float64
	}
	var cands []candidate
	total := 0
	sel := selection{docs: make([]shownDocument, 0, len(docs))}
	for di, d := range docs {
		sel.docs = append(sel.docs, shownDocument{doc: d, types: types[d.UploadID]})
		for pi := range d.Pages {
			n := utf8.RuneCountInString(d.Pages[pi].Text)
			total += n
			cands = append(cands, candidate{doc: di, page: pi, chars: n})
		}
	}

	chosen := make(map[[2]int]int, len(cands)) // (doc, page index) → characters shown
	if total <= budget {
		for _, c := range cands {
			chosen[[2]int{c.doc, c.page}] = c.chars
		}
	} else {
		kw := keywordsOf(question)
		for i := range cands {
			c := &cands[i]
			d := docs[c.doc]
			c.score = kw.score(d.Pages[c.page].Text, docTokens(d, sel.docs[c.doc].types))
			if d.Pages[c.page].Number == firstPageNumber(d) {
				c.score += 0.25 // first pages name the person, employer, document type
			}
		}
		ranked := slices.Clone(cands)
		slices.SortStableFunc(ranked, func(a, b candidate) int { return cmp.Compare(b.score, a.score) })
		left := budget
		for _, c := range ranked {
			if c.chars <= left {
				chosen[[2]int{c.doc, c.page}] = c.chars
				left -= c.chars
			}
		}
		if len(chosen) == 0 && len(ranked) > 0 && budget > 0 {
			// Not even one page fits: send the beginning of the best one.
			chosen[[2]int{ranked[0].doc, ranked[0].page}] = budget
		}
	}

	for di, d := range docs {
		sd := &sel.docs[di]
		for pi, p := range d.Pages {
			n, ok := chosen[[2]int{di, pi}]
			if !ok {
				sd.omitted = append(sd.omitted, p.Number)
				sel.omitted++
				continue
			}
			text := p.Text
			truncated := n < utf8.RuneCountInString(text)
			if truncated {
				text = string([]rune(text)[:n])
			}
			sd.pages = append(sd.pages, shownPage{number: p.Number, text: text, truncated: truncated})
		}
		slices.Sort(sd.omitted)
	}
	return sel
}

func firstPageNumber(d *evidence.Document) int {
	first := 0
	for i, p := range d.Pages {
		if i == 0 || p.Number < first {
			first = p.Number
		}
	}
	return first
}

// docTokens are stems that describe the whole document (types and file name); they
// count a little for each of its pages.
func docTokens(d *evidence.Document, types []string) []string {
	s := d.Filename + " " + d.SlotType + " " + strings.Join(types, " ")
	return stems(s)
}

// keywords are the weighted stems of a question.
type keywords map[string]float64

func keywordsOf(question string) keywords {
	kw := keywords{}
	for _, s := range stems(question) {
		kw[s] = 1
	}
	// Translations and synonyms: a question in English over German documents (and the
	// other way round) should still find its pages.
	for _, s := range sortedKeys(kw) {
		for _, group := range synonymGroups {
			if !slices.ContainsFunc(group, func(g string) bool { return stemMatches(s, g) || stemMatches(g, s) }) {
				continue
			}
			for _, g := range group {
				if _, ok := kw[g]; !ok {
					kw[g] = 0.6
				}
			}
		}
	}
	return kw
}

func sortedKeys(kw keywords) []string {
	out := make([]string, 0, len(kw))
	for k := range kw {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// score is the sum of the weights of the keywords found on the page, with a small bonus
// for repeated mentions and a smaller one for keywords in the document's description.
func (kw keywords) score(text string, doc []string) float64 {
	if len(kw) == 0 {
		return 0
	}
	counts := map[string]int{}
	for _, s := range stems(text) {
		counts[s]++
	}
	score := 0.0
	for k, w := range kw {
		hits := 0
		for tok, n := range counts {
			if stemMatches(tok, k) {
				hits += n
			}
		}
		if hits > 0 {
			score += w + 0.05*float64(min(hits, 10))
			continue
		}
		if slices.ContainsFunc(doc, func(tok string) bool { return stemMatches(tok, k) }) {
			score += 0.3 * w
		}
	}
	return score
}

// stemMatches reports whether a page token matches a keyword stem: equal, or (German
// compounds) containing it when the stem is long enough to be specific, or ending or
// starting with a short one ("Zweitjob" matches "job").
func stemMatches(tok, kw string) bool {
	switch {
	case tok == kw:
		return true
	case utf8.RuneCountInString(kw) >= 4:
		return strings.Contains(tok, kw)
	case utf8.RuneCountInString(kw) == 3:
		return strings.HasSuffix(tok, kw) || strings.HasPrefix(tok, kw)
	}
	return false
}

// stems splits s into words, folds case and umlauts, drops stop words and strips
// common German and English suffixes.
func stems(s string) []string {
	words := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	out := words[:0]
	for _, w := range words {
		w = foldUmlauts(w)
		if utf8.RuneCountInString(w) < 3 || stopWords[w] {
			continue
		}
		out = append(out, stem(w))
	}
	return out
}

func foldUmlauts(w string) string {
	if !strings.ContainsAny(w, "äöüß") {
		return w
	}
	return strings.NewReplacer("ä", "a", "ö", "o", "ü", "u", "ß", "ss").Replace(w)
}

// suffixes are stripped longest first, keeping at least four letters.
var suffixes = []string{
	"ungen", "heiten", "keiten", "ations", "ation", "ments", "ment", "ness",
	"ings", "ing", "ung", "heit", "keit", "lich", "isch", "ies", "ied",
	"ern", "en", "er", "es", "em", "ed", "ly", "e", "n", "s",
}

func stem(w string) string {
	for _, suf := range suffixes {
		if strings.HasSuffix(w, suf) && utf8.RuneCountInString(w)-len(suf) >= 4 {
			return strings.TrimSuffix(w, suf)
		}
	}
	return w
}

var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`
		the and for are was were has have had does did not yes any all this that these those
		with from into onto than then there their them they what which who whom whose when
		where why how can could should would will shall may might must been being its his her
		our your you applicant open fulfilled critical applicable check document documents
		der die das den dem des ein eine einer eines einem einen und oder aber nicht kein
		keine ist sind war waren hat haben hatte wird werden wurde wenn dann falls ja nein
		mit von vom zum zur bei aus auf für fur über uber unter nach vor wie was wer welche
		welcher welches dies diese dieser dieses sich sie ihr ihre ihren sein seine noch auch
		als nur bitte prüfen prufen antragsteller antragstellerin offen erfullt erfüllt
		kritisch dokument dokumente unterlagen gibt`) {
		m[foldUmlauts(w)] = true
	}
	return m
}()

// synonymGroups link English and German credit-document vocabulary, stemmed like page
// text.
var synonymGroups = stemGroups([][]string{
	{"income", "einkommen", "gehalt", "lohn", "salary", "wage", "earning", "verdienst", "brutto", "netto", "bezug", "gross"},
	{"job", "employment", "employ", "beschaftig", "arbeitgeb", "arbeitsverhaltnis", "nebentatig", "nebenjob", "minijob", "arbeitsvertrag", "contract", "work"},
	{"second", "side", "zweit", "neben", "additional", "zusatz", "weiter"},
	{"rent", "miete", "mietvertrag", "kaltmiete", "warmmiete", "lease", "tenant", "mieter"},
	{"loan", "kredit", "credit", "darlehen", "finanzier", "tilgung", "instal", "rate", "debt", "schuld"},
	{"property", "immobil", "objekt", "grundstuck", "wohnung", "haus", "house", "apartment", "flat", "real"},
	{"area", "flache", "wohnflache", "quadratmeter", "square", "meter", "size", "grosse"},
	{"bank", "konto", "kontoauszug", "account", "statement", "umsatz", "transaction", "buchung", "saldo", "balance"},
	{"tax", "steuer", "steuerbescheid", "einkommensteuer", "finanzamt"},
	{"pension", "rente", "retirement", "altersvorsorg", "ruhestand"},
	{"child", "children", "kind", "kinder", "kindergeld"},
	{"married", "marital", "spouse", "verheiratet", "ehe", "ehepartn", "familienstand", "partner"},
	{"birth", "born", "geburt", "geburtsdatum", "geboren"},
	{"address", "adresse", "anschrift", "wohnort", "strasse", "street"},
	{"garnish", "pfandung", "seizure", "attachment"},
	{"debit", "lastschrift", "rucklastschrift", "chargeback", "return"},
	{"probation", "probezeit"},
	{"fixed", "temporary", "befrist", "befristung", "term"},
	{"insurance", "versicherung", "police", "policy"},
	{"purchase", "price", "kaufpreis", "kaufvertrag", "kauf", "buy"},
	{"equity", "eigenkapital", "savings", "ersparnis", "guthaben", "vermog", "asset"},
	{"car", "vehicle", "fahrzeug", "auto", "leasing"},
	{"self", "selbstandig", "selbststandig", "freiberuf", "gewerb", "business", "unternehm", "company", "firma"},
	{"alimony", "maintenance", "unterhalt"},
	{"start", "since", "seit", "beginn", "eintritt", "hired", "date", "datum"},
	{"nationality", "citizenship", "staatsangehorig", "residence", "aufenthalt"},
	{"passport", "identity", "ausweis", "personalausweis", "reisepass"},
	{"bonus", "pramie", "gratifikation", "sonderzahlung", "weihnachtsgeld", "urlaubsgeld"},
	{"overtime", "uberstund", "mehrarbeit"},
	{"parental", "elternzeit", "elterngeld", "leave", "mutterschutz"},
	{"unemploy", "arbeitslos", "jobcenter", "burgergeld"},
})

func stemGroups(groups [][]string) [][]string {
	for _, g := range groups {
		for i, w := range g {
			g[i] = stem(foldUmlauts(w))
		}
	}
	return groups
}
