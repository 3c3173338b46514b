package reader

import (
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/doceval/doceval/pkg/engine/parse"
)

// Kinds of a statement's amount columns.
const (
	colDebit   = -1
	colAmount  = 0 // one column of signed amounts
	colCredit  = 1
	colBalance = 2
)

// columnHeads are the headings of a statement's amount columns, by kind.
var columnHeads = []struct {
	kind int
	re   *regexp.Regexp
}{
	// German banks: "Soll"/"Haben" (Sparkasse, Volksbank), "Belastung"/"Gutschrift"
	// (Commerzbank, Postbank), "Ausgang"/"Eingang"; UK: "Money out"/"Money in"
	// (Barclays, HSBC), "Paid out"/"Paid in" (Lloyds, NatWest), "Debit"/"Credit"; US:
	// "Withdrawals"/"Deposits" (Chase, Bank of America), "Withdrawals and Debits",
	// "Deposits and Credits".
	{colDebit, wordPattern(`soll|belastung(?:en)?|lastschriften|ausgang|ausgange|debits?|money out|paid out|withdrawals?(?: and debits| & debits)?|payments out|charges`)},
	{colCredit, wordPattern(`haben|gutschriften|gutschrift|eingang|eingange|credits?|money in|paid in|deposits?(?: and credits| & credits| & additions| and additions)?|payments in|receipts`)},
	{colBalance, wordPattern(`saldo|kontostand|balance`)},
	{colAmount, wordPattern(`betrag|umsatz|amount`)},
}

func wordPattern(alts string) *regexp.Regexp { return regexp.MustCompile(`\b(?:` + alts + `)\b`) }

// column is an amount column of a statement page: its kind and the rune columns its
// heading spans in the page's text line.
type column struct{ kind, from, to int }

// columnsOf reads a heading line of a statement's booking table: two or more amount
// columns, no figure. ok is false for any other line.
func columnsOf(l line) ([]column, bool) {
	if len(parse.Figures(l.text)) > 0 {
		return nil, false
	}
	var cols []column
	taken := make([]bool, len(l.f.s)+1)
	for _, h := range columnHeads {
		for _, loc := range h.re.FindAllStringIndex(l.f.s, -1) {
			if taken[loc[0]] {
				continue
			}
			for i := loc[0]; i < loc[1]; i++ {
				taken[i] = true
			}
			from := utf8.RuneCountInString(l.f.s[:loc[0]])
			cols = append(cols, column{h.kind, from, from + utf8.RuneCountInString(l.f.s[loc[0]:loc[1]])})
		}
	}
	debit, credit, money := false, false, 0
	for _, c := range cols {
		switch c.kind {
		case colDebit:
			debit = true
		case colCredit:
			credit = true
		}
		if c.kind != colBalance {
			money++
		}
	}
	if !(debit && credit) && !(money >= 1 && len(cols) >= 2) {
		return nil, false
	}
	return cols, true
}

// columnAt returns the kind of the column a figure at rune columns [from, to) stands
// in: the heading it overlaps, else the nearest one within a few characters (amounts
// are right-aligned under headings that are not). ok is false when no heading is near.
func columnAt(cols []column, from, to int) (int, bool) {
	best, bestGap, bestCenter := 0, 1<<30, 1<<30
	for _, c := range cols {
		gap := 0
		switch {
		case to <= c.from:
			gap = c.from - to
		case from >= c.to:
			gap = from - c.to
		}
		center := abs64i((from+to)-(c.from+c.to)) / 2
		if gap < bestGap || gap == bestGap && center < bestCenter {
			best, bestGap, bestCenter = c.kind, gap, center
		}
	}
	return best, bestGap <= 8
}

func abs64i(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// runeSpan converts a byte span of s into rune columns.
func runeSpan(s string, sp parse.Span) (int, int) {
	from := utf8.RuneCountInString(s[:sp.Start])
	return from, from + utf8.RuneCountInString(s[sp.Start:sp.End])
}

// sectionHeads are the headings of a statement section that lists one side's bookings
// only, as US and French banks print them ("DEPOSITS AND ADDITIONS", "Checks Paid",
// "Electronic Withdrawals", "Opérations au crédit"): the bookings under one carry no
// sign and stand in one amount column.
var sectionHeads = []struct {
	side int
	re   *regexp.Regexp
}{
	{colCredit, regexp.MustCompile(`^(?:other |electronic |atm (?:&|and) )?(?:deposits?|credits?|additions|receipts)(?: (?:and|&) (?:other )?(?:additions|credits|deposits))?$|^(?:money|paid|payments) in$|^(?:zahlungs)?eingange$|^gutschriften$|^habenbuchungen$|^(?:operations au |mouvements au )?credits?$|^versements$|^entrate$|^accrediti$|^ingresos$|^abonos$`)},
	{colDebit, regexp.MustCompile(`^(?:other |electronic |atm (?:&|and) (?:debit )?card |card )?(?:withdrawals?|debits?|subtractions|purchases|payments)(?: (?:and|&) (?:other )?(?:subtractions|debits|withdrawals|payments))?$|^checks?(?: paid)?$|^cheques?(?: paid)?$|^(?:fees|service charges)(?: (?:and|&) (?:service charges|fees))?$|^(?:money|paid|payments) out$|^(?:zahlungs)?ausgange$|^lastschriften$|^belastungen$|^sollbuchungen$|^(?:operations au |mouvements au )?debits?$|^prelevements$|^uscite$|^addebiti$|^cargos$|^gastos$`)},
}

// sectionSide reads a line that heads a one-sided section: its side, 0 for any other
// line. The heading stands alone on its line, no figure in it; a total's line
// ("Total Deposits and Additions  $3,305.12") is none.
func sectionSide(l line) int {
	s := strings.Trim(strings.Join(strings.Fields(foldString(l.text)), " "), " :")
	if s == "" || len(s) > 60 || strings.ContainsAny(s, "0123456789") {
		return 0
	}
	for _, h := range sectionHeads {
		if h.re.MatchString(s) {
			return h.side
		}
	}
	return 0
}
