package mrz

import (
	"slices"
	"strings"
)

// Reading a zone from OCR text. OCR damages a zone in known ways: fillers come out as
// K, S, C, E, X, L, «, €, spaces; digits and letters that look alike swap (O/0/D/Q,
// I/1/L, B/8, S/5, Z/2, G/6); junk stands before or after a line; the lines come in
// another order. The reader anchors each zone on its most regular part, the dates with
// their check digits, and reads every field by its position from there with the
// field's own alphabet, choosing among the readings OCR may have confused by the
// field's check digit. A field whose check digit holds is confirmed even when another
// field's fails.

// Format names a zone's layout.
const (
	TD1  = "TD1"  // ID cards: 3 lines of 30
	TD2  = "TD2"  // ID cards and residence permits: 2 lines of 36
	TD3  = "TD3"  // passports: 2 lines of 44
	MRVA = "MRVA" // visas, 2 lines of 44
	MRVB = "MRVB" // visas, 2 lines of 36
	// FRID is the French national identity card of 1994–2021: 2 lines of 36, the
	// number of 12 characters and the given names on the second line.
	FRID = "FRID"
)

// Zone is a machine-readable zone read from OCR text.
type Zone struct {
	Format string
	// Lines are the zone's lines as repaired: fields in their alphabet, each line at
	// its format's length.
	Lines []string
	// First and Last are the indexes of the input lines the zone was read from.
	First, Last int
	// Code is the document code (P, I, ID, AR, V, …), Issuer and Nationality the
	// three-letter codes ("D" and "<<" padded as printed).
	Code, Issuer, Nationality string
	Surname, Given            string // the names, words separated by spaces
	// Names is the name field's words when it shows no given names, as when OCR lost
	// the "<<" between surname and given names ("ROSSIKCKKELENA"): another source (the
	// visual zone) may split them.
	Names  string
	Number string // the document number without fillers
	// NumberRead and NumberCheck are the number field (fillers included) and its check
	// digit as OCR read them; NumberCost how far Number is from that reading (see
	// Variants). Another source (the visual zone) may choose among Variants.
	NumberRead    string
	NumberCheck   byte
	NumberCost    int
	Birth, Expiry string // YYMMDD
	Sex           string // M, F, X or "<"
	// NumberOK, BirthOK and ExpiryOK: the field's own check digit holds. CompositeOK:
	// the zone's overall check digit holds too.
	NumberOK, BirthOK, ExpiryOK, CompositeOK bool
}

// Kind is what the document code says the document is: "passport", "id_card",
// "residence_permit", "visa" or "".
func (z Zone) Kind() string {
	code := z.Code + "<"
	switch {
	case z.Format == MRVA || z.Format == MRVB || code[0] == 'V':
		return "visa"
	case code[0] == 'P':
		return "passport"
	case strings.ContainsRune("IAC", rune(code[0])) && code[1] == 'R':
		return "residence_permit"
	case strings.ContainsRune("IAC", rune(code[0])):
		return "id_card"
	}
	return ""
}

// Confirmed counts the fields whose check digit holds.
func (z Zone) Confirmed() int {
	n := 0
	for _, ok := range []bool{z.NumberOK, z.BirthOK, z.ExpiryOK} {
		if ok {
			n++
		}
	}
	return n
}

// fillerLike are the characters OCR reads a filler '<' as.
const fillerLike = "<KSCEXLIZ"

// Clean turns an OCR line into MRZ characters: capitals, spaces dropped, the
// guillemets and other marks OCR reads fillers as turned into '<'. Characters that
// cannot stand in a zone are kept as '?' so that positions stay where they were.
func Clean(s string) string {
	s = strings.NewReplacer("«", "<<", "‹", "<", "€", "<", "£", "<", "(", "<", "[", "<", "{", "<", "‘", "", "’", "", "'", "", "`", "").Replace(s)
	var b strings.Builder
	for _, r := range strings.ToUpper(s) {
		switch {
		case r == ' ' || r == '\t':
		case r == '<' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9':
			b.WriteRune(r)
		default:
			b.WriteByte('?')
		}
	}
	return b.String()
}

// digitOf maps what OCR reads a digit as back to the digit; 0 when it is no digit.
func digitOf(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c
	case c == 'O' || c == 'Q' || c == 'D' || c == 'U':
		return '0'
	case c == 'I' || c == 'L' || c == 'T' || c == 'J':
		return '1'
	case c == 'Z':
		return '2'
	case c == 'A':
		return '4'
	case c == 'S':
		return '5'
	case c == 'G' || c == 'b':
		return '6'
	case c == 'B':
		return '8'
	case c == 'g':
		return '9'
	}
	return 0
}

// letterOf maps what OCR reads a letter of a country code as back to the letter.
func letterOf(c byte) byte {
	switch {
	case c >= 'A' && c <= 'Z' || c == '<':
		return c
	case c == '0':
		return 'O'
	case c == '1':
		return 'I'
	case c == '2':
		return 'Z'
	case c == '5':
		return 'S'
	case c == '8':
		return 'B'
	case c == '6':
		return 'G'
	}
	return 0
}

// digits reads s as digits; ok false when a character cannot be one.
func digits(s string) (string, bool) {
	b := []byte(s)
	for i, c := range b {
		if b[i] = digitOf(c); b[i] == 0 {
			return "", false
		}
	}
	return string(b), true
}

// checkDigitOf reads a check digit as printed: a digit or '<' (an empty field's zero);
// 0 when it is neither.
func checkDigitOf(c byte) byte {
	if c == '<' {
		return c
	}
	return digitOf(c)
}

// digitReadings lists, for a letter OCR read in a field of digits, the digits it may
// stand for beyond digitOf's first choice (an OCR-B 8 reads as S or B, a 7 as Z).
var digitReadings = map[byte]string{'S': "8", 'B': "3", 'Z': "7", 'G': "8"}

// dateField reads a date of six digits and its check digit at s[i:i+7]. Where a letter
// may stand for two digits, the reading whose check digit holds is taken when it is the
// only one.
func dateField(s string, i int) (string, bool, bool) {
	if i < 0 || i+7 > len(s) {
		return "", false, false
	}
	d, ok := digits(s[i : i+6])
	if !ok || !plausibleDate(d) {
		return "", false, false
	}
	c := checkDigitOf(s[i+6])
	if c != 0 && digitOK(d, c) {
		return d, true, true
	}
	if c == 0 {
		return d, true, false
	}
	readings := []string{d}
	for k := 0; k < 6; k++ {
		alt := digitReadings[s[i+k]]
		for _, r := range readings {
			for j := 0; j < len(alt); j++ {
				b := []byte(r)
				b[k] = alt[j]
				readings = append(readings, string(b))
			}
		}
	}
	held := ""
	for _, r := range readings[1:] {
		if plausibleDate(r) && digitOK(r, c) {
			if held != "" {
				return d, true, false
			}
			held = r
		}
	}
	if held != "" {
		return held, true, true
	}
	return d, true, false
}

// plausibleDate: YYMMDD with a month and day that exist in some year.
func plausibleDate(d string) bool {
	m := int(d[2]-'0')*10 + int(d[3]-'0')
	day := int(d[4]-'0')*10 + int(d[5]-'0')
	return m >= 1 && m <= 12 && day >= 1 && day <= 31
}

// confusable lists, for a character of an alphanumeric field, what else OCR may have
// read it as.
var confusable = map[byte]string{
	'0': "OD", 'O': "0D", 'D': "0O", 'Q': "0O",
	'1': "I", 'I': "1", 'L': "1",
	'8': "B", 'B': "8", '5': "S", 'S': "5", '2': "Z", 'Z': "2", '6': "G", 'G': "6",
}

// maxVariants bounds the readings tried for one field.
const maxVariants = 4096

// Variant is a reading of a field whose check digit holds, with its cost: how far it is
// from what OCR read (a letter read for a digit costs 1, the other confusions 3).
type Variant struct {
	Text string
	Cost int
}

// Variants lists the readings of an alphanumeric field (fillers included) whose check
// digit holds, cheapest first: the field as read (cost 0) and those that swap
// characters OCR confuses, up to four swaps.
func Variants(field string, check byte) []Variant {
	field = strings.ReplaceAll(field, "?", "<")
	check = checkDigitOf(check)
	if check == 0 {
		return nil
	}
	var pos []int
	for i := 0; i < len(field); i++ {
		if confusable[field[i]] != "" {
			pos = append(pos, i)
		}
	}
	var out []Variant
	budget := maxVariants
	var try func(b []byte, k, cost, swaps int)
	try = func(b []byte, k, cost, swaps int) {
		if budget <= 0 {
			return
		}
		if k == len(pos) {
			budget--
			if digitOK(string(b), check) {
				out = append(out, Variant{string(b), cost})
			}
			return
		}
		i := pos[k]
		orig := b[i]
		try(b, k+1, cost, swaps)
		if swaps < 4+len(pos)/3 {
			for _, alt := range []byte(confusable[orig]) {
				b[i] = alt
				// OCR reads a digit of a number as a letter far more often than
				// the other way round.
				c := 3
				if alt >= '0' && alt <= '9' && (orig < '0' || orig > '9') {
					c = 1
				}
				try(b, k+1, cost+c, swaps+1)
			}
		}
		b[i] = orig
	}
	try([]byte(field), 0, 0, 0)
	slices.SortStableFunc(out, func(a, b Variant) int { return a.Cost - b.Cost })
	return out
}

// maxSureCost is the most a reading may differ from OCR's and still count as confirmed
// by its check digit alone: with more swaps, some wrong reading holds by chance (one in
// ten does), and only another source (the visual zone) can tell.
const maxSureCost = 2

// fillers reads an optional field that OCR gave nothing but filler-like characters as
// empty (all '<'); any other field stays as read.
func fillers(s string) string {
	if strings.Trim(s, fillerLike+"?") == "" {
		return strings.Repeat("<", len(s))
	}
	return s
}

// checkedField chooses the reading of an alphanumeric field whose check digit holds:
// the cheapest (see Variants), when no other is as cheap and it is at most maxSureCost
// from OCR's reading. An issuer whose numbers have an alphabet of their own (alphabet
// not empty) rules out the readings outside it, and then a reading further from OCR's
// counts too: the alphabet is a second witness. ok false: no single reading holds, and
// the field comes back as read.
func checkedField(field string, check byte, alphabet string) (string, bool) {
	var vs []Variant
	for _, v := range Variants(field, check) {
		if alphabet == "" || strings.Trim(strings.TrimRight(v.Text, "<"), alphabet) == "" {
			vs = append(vs, v)
		}
	}
	most := maxSureCost
	if alphabet != "" {
		most = 2*maxSureCost + 2
	}
	if len(vs) == 0 || len(vs) > 1 && vs[1].Cost == vs[0].Cost || vs[0].Cost > most {
		return strings.ReplaceAll(field, "?", "<"), false
	}
	return vs[0].Text, true
}

// numberAlphabets are the characters some issuers' document numbers are made of, by
// issuing state: German ID card and passport numbers have no vowels and no letter that
// reads like a digit.
var numberAlphabets = map[string]string{"D<<": "CFGHJKLMNPRTVWXYZ0123456789"}

// candidate is one input line as MRZ characters.
type candidate struct {
	index int
	text  string
}

// zoneLine: a line that may belong to a zone: mostly MRZ characters, 20 to 50 of
// them, with fillers or a run of digits.
func zoneLine(s string) bool {
	if len(s) < 20 || len(s) > 64 {
		return false
	}
	bad := strings.Count(s, "?")
	digitsN := 0
	for i := 0; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			digitsN++
		}
	}
	return bad*8 <= len(s) && (strings.Count(s, "<") >= 2 || digitsN >= 12)
}

// Find reads every machine-readable zone in lines (a page's text, line by line). The
// zones come in the order their data lines stand.
func Find(lines []string) []Zone {
	var cands []candidate
	for i, l := range lines {
		if c := Clean(l); zoneLine(c) {
			cands = append(cands, candidate{i, c})
		}
	}
	var zones []Zone
	used := map[int]bool{}
	for k := range cands {
		if used[k] {
			continue
		}
		z, others, ok := readDataLine(cands, k)
		if !ok {
			continue
		}
		z.NumberCost = cost(z.NumberRead, z.Number)
		used[k] = true
		for _, o := range others {
			used[o] = true
		}
		zones = append(zones, z)
	}
	return zones
}

// neighbour returns the candidate next to k (step -1 before, +1 after) when it stands
// within two input lines of it and is not used.
func neighbour(cands []candidate, k, step int) (int, bool) {
	j := k + step
	if j < 0 || j >= len(cands) {
		return 0, false
	}
	gap := cands[j].index - cands[k].index
	if gap < 0 {
		gap = -gap
	}
	return j, gap <= 2
}

// readDataLine tries cands[k] as the line holding the dates: line 2 of TD1, TD2, TD3
// and visas, or line 2 of the French card. It returns the zone and the other
// candidates it took.
func readDataLine(cands []candidate, k int) (Zone, []int, bool) {
	s := cands[k].text
	best, bestScore, bestOthers := Zone{}, 0, []int(nil)
	consider := func(z Zone, others []int) {
		score := 3*z.Confirmed() + boolInt(z.CompositeOK)
		if z.Surname != "" {
			score++
		}
		if score > bestScore {
			best, bestScore, bestOthers = z, score, others
		}
	}
	// The dates: birth (6 + check), sex, expiry (6 + check), anywhere on the line.
	for p := 0; p+15 <= len(s); p++ {
		birth, okB, chkB := dateField(s, p)
		if !okB || !strings.ContainsRune("MFX<?", rune(s[p+7])) && letterOf(s[p+7]) != 'M' {
			continue
		}
		expiry, okE, chkE := dateField(s, p+8)
		if !okE || !chkB && !chkE {
			continue
		}
		sex := string(s[p+7])
		if sex == "?" {
			sex = "<"
		}
		// TD2, TD3 and visas: number (9 + check) and nationality (3) before the dates.
		if p >= 13 {
			z := Zone{Birth: birth, BirthOK: chkB, Expiry: expiry, ExpiryOK: chkE, Sex: sex}
			z.Nationality = letters(s[p-3 : p])
			z.Format = TD3
			width := 44
			if len(s)-(p-13) < 40 {
				z.Format, width = TD2, 36
			}
			// The line as repaired: each field in its alphabet.
			line := func(num string) string {
				rest := fit(s[p+15:], width-28)
				if len(s[p+15:]) > len(rest) {
					// The overall check digit ends the line: OCR adds fillers before it.
					rest = rest[:len(rest)-1] + s[len(s)-1:]
				}
				rest = fillers(rest[:len(rest)-2]) + string(repairedCheck(rest[len(rest)-2])) + string(repairedCheck(rest[len(rest)-1]))
				if width == 36 {
					rest = fillers(rest[:len(rest)-1]) + string(repairedCheck(rest[len(rest)-1]))
				}
				return num + string(repairedCheck(s[p-4])) + z.Nationality + birth + string(repairedCheck(s[p+6])) + sex +
					expiry + string(repairedCheck(s[p+14])) + rest
			}
			var numField string
			numField, z.NumberOK = checkedField(s[p-13:p-4], s[p-4], numberAlphabets[z.Nationality])
			z.CompositeOK = compositeTD23(line(numField))
			z.NumberRead, z.NumberCheck = s[p-13:p-4], s[p-4]
			z.Number = numField
			line2 := line(numField)
			others := []int{}
			if j, ok := neighbour(cands, k, -1); ok && firstLineLike(cands[j].text) {
				z.readNameLine(cands[j].text, 5, width)
				others = append(others, j)
			} else if j, ok := neighbour(cands, k, 1); ok && firstLineLike(cands[j].text) {
				// OCR put the lines out of order.
				z.readNameLine(cands[j].text, 5, width)
				others = append(others, j)
			}
			if z.Code != "" && z.Code[0] == 'V' {
				z.Format = map[string]string{TD3: MRVA, TD2: MRVB}[z.Format]
				z.CompositeOK = false
			}
			z.Number = strings.TrimRight(z.Number, "<")
			z.Lines = append(z.Lines, line2)
			z.First, z.Last = cands[k].index, cands[k].index
			for _, o := range others {
				z.First, z.Last = min(z.First, cands[o].index), max(z.Last, cands[o].index)
			}
			consider(z, others)
		}
		// TD1: the dates open line 2; line 1 holds code, issuer and number, line 3 the
		// names.
		if p <= 3 {
			z := Zone{Format: TD1, Birth: birth, BirthOK: chkB, Expiry: expiry, ExpiryOK: chkE, Sex: sex}
			if p+18 <= len(s) {
				z.Nationality = letters(s[p+15 : p+18])
			}
			line2 := fit(s[p:], 30)
			var others []int
			if j, ok := neighbour(cands, k, -1); ok {
				l1 := cands[j].text
				if q := codeStart(l1); q >= 0 && q+15 <= len(l1) {
					l1 = fit(l1[q:], 30)
					z.Code = docCode(l1[0:2])
					z.Issuer = letters(l1[2:5])
					l2 := fit(s[p:], 30)
					composite := func(num string) bool {
						// The overall check digit ends the line: OCR adds and drops fillers
						// before it.
						last := l2[29]
						if len(s)-p >= 30 {
							last = s[len(s)-1]
						}
						return digitOK(num+string(repairedCheck(l1[14]))+fillers(l1[15:30])+birth+string(repairedCheck(l2[6]))+expiry+string(repairedCheck(l2[14]))+fillers(l2[18:29]), repairedCheck(last))
					}
					z.Number, z.NumberOK = checkedField(l1[5:14], l1[14], numberAlphabets[z.Issuer])
					z.CompositeOK = composite(z.Number)
					z.NumberRead, z.NumberCheck = l1[5:14], l1[14]
					// A number longer than nine characters goes on in the optional
					// field, its check digit after it.
					if l1[14] == '<' {
						if ext := strings.IndexByte(l1[15:], '<'); ext > 1 {
							z.NumberRead, z.NumberCheck = l1[5:14]+l1[15:15+ext-1], l1[15+ext-1]
							z.Number, z.NumberOK = checkedField(z.NumberRead, z.NumberCheck, "")
						}
					}
					// The line as repaired, so that its check digits can be verified again.
					l1 = l1[:5] + fit(z.Number, 9) + string(repairedCheck(l1[14])) + fillers(l1[15:30])
					if len(z.Number) > 9 {
						l1 = l1[:5] + fit(z.NumberRead, 9) + l1[14:]
					}
					z.Number = strings.TrimRight(z.Number, "<")
					z.Lines = append(z.Lines, l1)
					others = append(others, j)
				}
			}
			line2 = birth + string(repairedCheck(line2[6])) + sex + expiry + string(repairedCheck(line2[14])) + line2[15:18] + fillers(line2[18:29]) + string(repairedCheck(line2[29]))
			z.Lines = append(z.Lines, line2)
			if j, ok := neighbour(cands, k, 1); ok {
				z.readNames(cands[j].text)
				z.Lines = append(z.Lines, fit(cands[j].text, 30))
				others = append(others, j)
			}
			z.First, z.Last = cands[k].index, cands[k].index
			for _, o := range others {
				z.First, z.Last = min(z.First, cands[o].index), max(z.Last, cands[o].index)
			}
			consider(z, others)
		}
	}
	if z, others, ok := frenchCard(cands, k); ok {
		consider(z, others)
	}
	// A zone needs two confirmed fields, or one with the document's code line beside it.
	if bestScore < 4 || best.Confirmed() < 2 && best.Code == "" {
		return Zone{}, nil, false
	}
	return best, bestOthers, true
}

// frenchCard reads the French identity card's zone: line 1 "IDFRA" + surname (25) +
// office (6), line 2 number (12) + check + given names (14) + birth (6) + check + sex +
// overall check.
func frenchCard(cands []candidate, k int) (Zone, []int, bool) {
	j, ok := neighbour(cands, k, -1)
	if !ok {
		return Zone{}, nil, false
	}
	l1 := cands[j].text
	q := strings.Index(l1, "IDFRA")
	if q < 0 {
		return Zone{}, nil, false
	}
	l1 = fit(l1[q:], 36)
	s := cands[k].text
	for p := 0; p+36 <= len(s)+1 && p <= 3; p++ {
		l2 := fit(s[p:], 36)
		birth, okB, chkB := dateField(l2, 27)
		if !okB {
			continue
		}
		z := Zone{Format: FRID, Code: "ID", Issuer: "FRA", Nationality: "FRA", Birth: birth, BirthOK: chkB, Sex: string(l2[34])}
		z.NumberRead, z.NumberCheck = l2[0:12], l2[12]
		z.Number, z.NumberOK = checkedField(z.NumberRead, z.NumberCheck, "")
		z.Surname = nameWords(strings.SplitN(strings.TrimLeft(unfill(l1[5:30]), "<"), "<<", 2)[0])
		z.Given = nameWords(strings.ReplaceAll(l2[13:27], "<<", "<"))
		// The French number is digits: its all-digit reading wins when its check digit
		// holds too.
		if n, ok := digits(l2[0:12]); ok && z.NumberOK && CheckDigit(n) == checkDigitOf(z.NumberCheck) {
			z.Number = n
		}
		z.CompositeOK = digitOK(l1+l2[:35], l2[35])
		if !z.NumberOK && !z.BirthOK {
			continue
		}
		z.Lines = []string{l1, l2}
		z.First, z.Last = cands[j].index, cands[k].index
		return z, []int{j}, true
	}
	return Zone{}, nil, false
}

// firstLineLike: a line that opens a TD2/TD3 zone or a visa's: a document code, then a
// country code.
func firstLineLike(s string) bool { return codeStart(s) >= 0 }

// codeStart finds where a first line's document code stands (within its first four
// characters): P, V, I, A or C, then a letter or filler, then three letters or fillers.
func codeStart(s string) int {
	for q := 0; q <= 3 && q+5 <= len(s); q++ {
		if !strings.ContainsRune("PVIAC"+misreadI, rune(s[q])) {
			continue
		}
		ok := true
		for i := q + 1; i < q+5; i++ {
			if letterOf(s[i]) == 0 {
				ok = false
			}
		}
		if ok {
			return q
		}
	}
	return -1
}

// misreadI are what OCR reads a document code's I as.
const misreadI = "T1L"

// docCode reads a document code (two characters, fillers dropped), OCR's misread I
// mapped back.
func docCode(s string) string {
	if strings.ContainsRune(misreadI, rune(s[0])) {
		s = "I" + s[1:]
	}
	return strings.TrimRight(s, "<")
}

// readNameLine reads the first line of a TD2/TD3 zone: code, issuer, names.
func (z *Zone) readNameLine(s string, namesAt, width int) {
	q := codeStart(s)
	if q < 0 {
		return
	}
	l := fit(s[q:], width)
	z.Code = docCode(l[0:2])
	z.Issuer = letters(l[2:5])
	z.readNames(l[namesAt:])
	z.Lines = append([]string{l}, z.Lines...)
}

// readNames reads a name field: surname, "<<", given names separated by '<', fillers.
func (z *Zone) readNames(field string) {
	field = unfill(field)
	sn, gn, ok := strings.Cut(strings.TrimLeft(field, "<"), "<<")
	if n := nameWords(field); (!ok || strings.Trim(gn, "<") == "") && !strings.ContainsAny(n, "0123456789") {
		z.Names = n
	}
	if !ok {
		return
	}
	z.Surname = nameWords(sn)
	gn = strings.TrimLeft(gn, "<")
	if end := strings.Index(gn, "<<"); end >= 0 {
		gn = gn[:end]
	}
	// What follows the given names, read as letters, are fillers when nothing but
	// filler-like characters follow: "NATACHA<S<SSS<SSS" is NATACHA.
	words := strings.Split(gn, "<")
	for i := 1; i < len(words); i++ {
		if strings.Trim(strings.Join(words[i:], "<"), fillerLike) == "" && (len(words[i]) <= 2 || strings.ContainsAny(words[i], "KX")) {
			words = words[:i]
			break
		}
	}
	z.Given = nameWords(strings.Join(words, "<"))
	if strings.ContainsAny(z.Surname+z.Given, "0123456789") {
		z.Surname, z.Given = "", ""
	}
}

// unfill undoes OCR's damage to a name field's fillers: unreadable characters and a
// filler-like letter between two fillers ("<K<", "<S<S<") become fillers again; a name
// of one letter between fillers is rarer than OCR's misreading.
func unfill(field string) string {
	field = strings.ReplaceAll(field, "?", "<")
	for {
		next := field
		for _, c := range fillerLike[1:] {
			next = strings.ReplaceAll(next, "<"+string(c)+"<", "<<<")
		}
		if next == field {
			return field
		}
		field = next
	}
}

// cost is how far reading is from read (see Variants); fillers at the end do not count.
func cost(read, reading string) int {
	read = strings.TrimRight(strings.ReplaceAll(read, "?", "<"), "<")
	c := 0
	for i := 0; i < len(read) && i < len(reading); i++ {
		switch {
		case read[i] == reading[i]:
		case reading[i] >= '0' && reading[i] <= '9' && (read[i] < '0' || read[i] > '9'):
			c++
		default:
			c += 3
		}
	}
	return c
}

// nameWords turns a name field's '<' into spaces.
func nameWords(s string) string {
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool { return r == '<' }), " ")
}

// letters reads a country code: letters and fillers, OCR's digits mapped back.
func letters(s string) string {
	b := []byte(s)
	for i, c := range b {
		if b[i] = letterOf(c); b[i] == 0 {
			b[i] = '<'
		}
	}
	return string(b)
}

// fit cuts or pads a line with fillers to width.
func fit(s string, width int) string {
	if len(s) >= width {
		return s[:width]
	}
	return s + strings.Repeat("<", width-len(s))
}

// compositeTD23 checks the overall check digit of a TD2 or TD3 second line (as
// repaired); the optional field's own check digit is part of it on TD3.
func compositeTD23(l string) bool {
	n := len(l)
	if n != 44 && n != 36 {
		return false
	}
	opt := strings.Map(func(r rune) rune {
		if r == '?' {
			return '<'
		}
		return r
	}, l[28:n-1])
	if n == 36 {
		opt = l[21:35]
		return digitOK(l[0:10]+l[13:20]+opt, l[35])
	}
	return digitOK(l[0:10]+l[13:20]+l[21:28]+opt, l[43])
}

// repairedCheck is a check digit as OCR read it, mapped to a digit ('<' stays, what is
// neither becomes '?').
func repairedCheck(c byte) byte {
	if d := checkDigitOf(c); d != 0 {
		return d
	}
	return '?'
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
