package corpus

import (
	"math/rand/v2"
	"strings"
	"time"
	"unicode"
)

// person is an applicant (or another party).
type person struct {
	Given   []string // first name, then middle names
	Surname string
	Female  bool
	DOB     time.Time
	Street  string // with house number
	ZIP     string
	City    string
}

var (
	givenMale    = []string{"Jürgen", "Björn", "Jörg", "Ömer", "Günther", "Sören", "Torben", "Lukas", "Felix", "Andreas", "Mehmet", "Jörn", "Thomas", "Oliver", "Çağlar"}
	givenFemale  = []string{"Käthe", "Bärbel", "Jördis", "Anna", "Lena", "Sophie", "Zeynep", "Gül", "Ayşe", "Charlotte", "Hannah", "Maike", "Sarah"}
	middleMale   = []string{"Andreas", "Johannes", "Karl", "Emil", "Jörg"}
	middleFemale = []string{"Maria", "Luise", "Friederike", "Elisabeth", "Käthe"}
	surnames     = []string{"Müller-Lüdenscheidt", "Weiß", "Schäfer", "Groß", "Böhm", "Krüger", "Köhler", "Jäger", "Weißmüller", "Schröder", "Nußbaum", "Strauß", "Meißner", "Şahin", "Öztürk", "Çelik", "Hoffmann", "Becker", "Wagner", "Fußmann", "Dörfler", "Kühn"}
	streets      = []string{"Lindenstraße", "Hauptstraße", "Schillerstraße", "Goethestraße", "Am Mühlenbach", "Königsallee", "Bahnhofstraße", "Gartenweg", "Kirchplatz", "Rosenstraße", "Düsseldorfer Straße", "Birkenallee", "Am Weißen Stein", "Friedrich-Ebert-Straße"}
	cities       = []struct{ ZIP, City string }{
		{"50667", "Köln"}, {"80331", "München"}, {"20095", "Hamburg"}, {"10115", "Berlin"},
		{"60311", "Frankfurt am Main"}, {"40213", "Düsseldorf"}, {"70173", "Stuttgart"},
		{"04109", "Leipzig"}, {"28195", "Bremen"}, {"90402", "Nürnberg"}, {"21335", "Lüneburg"},
		{"33602", "Bielefeld"}, {"48143", "Münster"}, {"97070", "Würzburg"},
	}
)

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

func chance(r *rand.Rand, p float64) bool { return r.Float64() < p }

func newPerson(r *rand.Rand, now time.Time) person {
	p := person{Female: chance(r, 0.5)}
	if p.Female {
		p.Given = []string{pick(r, givenFemale)}
	} else {
		p.Given = []string{pick(r, givenMale)}
	}
	if chance(r, 0.3) {
		if m := pick(r, tern(p.Female, middleFemale, middleMale)); m != p.Given[0] {
			p.Given = append(p.Given, m)
		}
	}
	p.Surname = pick(r, surnames)
	age := 24 + r.IntN(35)
	p.DOB = day(now.Year()-age, time.Month(1+r.IntN(12)), 1+r.IntN(28))
	p.Street, p.ZIP, p.City = address(r)
	return p
}

func address(r *rand.Rand) (street, zip, city string) {
	c := pick(r, cities)
	no := itoa(1 + r.IntN(140))
	if chance(r, 0.15) {
		no += string(rune('a' + r.IntN(3)))
	}
	return pick(r, streets) + " " + no, c.ZIP, c.City
}

// nameStyle is how a document prints a name.
type nameStyle struct {
	Translit     bool // ä → ae, ß → ss, Ş → S
	SurnameFirst bool // "Surname, Given"
	Middle       bool // middle names printed
	Caps         bool // all capitals
}

func randomNameStyle(r *rand.Rand) nameStyle {
	return nameStyle{Translit: chance(r, 0.25), SurnameFirst: chance(r, 0.3), Middle: chance(r, 0.6), Caps: chance(r, 0.15)}
}

// name prints the person's name in the style and returns the truth: natural order,
// the spelling as printed, title case.
func (p person) name(s nameStyle) (printed, truth string) {
	given := p.Given[:1]
	if s.Middle {
		given = p.Given
	}
	g, sn := strings.Join(given, " "), p.Surname
	if s.Translit {
		g, sn = transliterate(g), transliterate(sn)
	}
	truth = g + " " + sn
	printed = truth
	if s.SurnameFirst {
		printed = sn + ", " + g
	}
	if s.Caps {
		printed = upper(printed)
	}
	return printed, truth
}

// fullName is the natural, unaltered name with middle names.
func (p person) fullName() string { return strings.Join(p.Given, " ") + " " + p.Surname }

// upper capitalizes, keeping ß (as German documents print it in capitals).
func upper(s string) string {
	return strings.Map(func(r rune) rune {
		if r == 'ß' {
			return r
		}
		return unicode.ToUpper(r)
	}, s)
}

var translit = strings.NewReplacer(
	"ä", "ae", "ö", "oe", "ü", "ue", "Ä", "Ae", "Ö", "Oe", "Ü", "Ue", "ß", "ss",
	"Ş", "S", "ş", "s", "Ç", "C", "ç", "c", "Ğ", "G", "ğ", "g", "İ", "I")

func transliterate(s string) string { return translit.Replace(s) }

func itoa(n int) string {
	const digits = "0123456789"
	if n == 0 {
		return "0"
	}
	neg := n < 0
	if neg {
		n = -n
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{digits[n%10]}, b...)
	}
	if neg {
		return "-" + string(b)
	}
	return string(b)
}
