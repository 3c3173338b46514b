package mrz

import (
	"strings"
	"testing"
)

// The ICAO 9303 specimens, as printed.
const (
	specimenTD1 = "I<UTOD231458907<<<<<<<<<<<<<<<\n7408122F1204159UTO<<<<<<<<<<<6\nERIKSSON<<ANNA<MARIA<<<<<<<<<<"
	specimenTD3 = "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<\nL898902C36UTO7408122F1204159ZE184226B<<<<<10"
)

// zoneOf builds a TD2 zone (2 lines of 36) with valid check digits.
func zoneOf(code, issuer, names, number, birth, sex, expiry string) []string {
	l1 := code + issuer + names
	l1 += strings.Repeat("<", 36-len(l1))
	num := number + strings.Repeat("<", 9-len(number))
	l2 := num + string(CheckDigit(num)) + issuer + birth + string(CheckDigit(birth)) + sex + expiry + string(CheckDigit(expiry)) + "<<<<<<<"
	l2 += string(CheckDigit(l2[0:10] + l2[13:20] + l2[21:35]))
	return []string{l1, l2}
}

func TestFindReadsDamagedZones(t *testing.T) {
	t.Parallel()
	td2 := zoneOf("I<", "UTO", "ERIKSSON<<ANNA<MARIA", "D23145890", "740812", "F", "120415")
	for name, tc := range map[string]struct {
		lines                    []string
		format, kind             string
		number, birth, expiry    string
		surname, given           string
		numberOK, birthOK, expOK bool
	}{
		"td3 as printed": {strings.Split(specimenTD3, "\n"), TD3, "passport", "L898902C3", "740812", "120415", "ERIKSSON", "ANNA MARIA", true, true, true},
		// Fillers read as K, S, « and €, junk and spaces around, the lines out of order.
		"td3 damaged": {[]string{
			"Passport/Passeport",
			"L898902C36UTO 7408122F1204159ZE184226B<<<<<10 ,",
			"P<UTOERIKSSON<K<ANNA<MARIA<S<SS<SS«KKK€ KKK <<",
		}, TD3, "passport", "L898902C3", "740812", "120415", "ERIKSSON", "ANNA MARIA", true, true, true},
		// Two letters OCR read for digits in the number: the check digit chooses.
		"td3 number swapped": {[]string{"P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<", "L8989O2C36UTO7408122F1204159ZE184226B<<<<<10"},
			TD3, "passport", "L898902C3", "740812", "120415", "ERIKSSON", "ANNA MARIA", true, true, true},
		// The document code's I read as T, an 8 read as S in the birth date, fillers
		// between the given names read as letters.
		"td1 damaged": {[]string{"T<UTOD231458907<<<<<<K<<<<<<<<", "74O8122F1204159UTO<<<<<<<<<<<6", "ERIKSSON<<ANNA<MARIA<S<SSS<SSS"},
			TD1, "id_card", "D23145890", "740812", "120415", "ERIKSSON", "ANNA MARIA", true, true, true},
		"td1 birth S for 8": {[]string{"I<UTOD231458907<<<<<<<<<<<<<<<", "74O81Z2F1204159UTO<<<<<<<<<<<6", "ERIKSSON<<ANNA<MARIA<<<<<<<<<<"},
			TD1, "id_card", "D23145890", "740812", "120415", "ERIKSSON", "ANNA MARIA", true, true, true},
		// The first line's fillers read as K and X: the second line alone carries it.
		"td2 fillers as letters": {[]string{strings.Replace(td2[0], "MARIA<<<<<<<", "MARIA<KXK<XKX", 1), td2[1]},
			TD2, "id_card", "D23145890", "740812", "120415", "ERIKSSON", "ANNA MARIA", true, true, true},
		// A wrong check digit: that field is not confirmed, the others are.
		"td3 wrong number check": {[]string{"P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<", "L898902C35UTO7408122F1204159ZE184226B<<<<<10"},
			TD3, "passport", "L898902C3", "740812", "120415", "ERIKSSON", "ANNA MARIA", false, true, true},
	} {
		zones := Find(tc.lines)
		if len(zones) != 1 {
			t.Errorf("%s: %d zones", name, len(zones))
			continue
		}
		z := zones[0]
		if z.Format != tc.format || z.Kind() != tc.kind || z.Number != tc.number || z.Birth != tc.birth || z.Expiry != tc.expiry ||
			z.Surname != tc.surname || z.Given != tc.given || z.NumberOK != tc.numberOK || z.BirthOK != tc.birthOK || z.ExpiryOK != tc.expOK {
			t.Errorf("%s: %+v", name, z)
		}
	}
}

// A number that OCR garbled in more places than the check digit can tell apart is not
// confirmed; its readings are all listed for another source to choose from.
func TestFindDoesNotGuessAFarNumber(t *testing.T) {
	t.Parallel()
	zones := Find([]string{"P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<", "LB9B9OZC36UTO7408122F1204159ZE184226B<<<<<10"})
	if len(zones) != 1 || zones[0].NumberOK {
		t.Fatalf("%+v", zones)
	}
	found := false
	for _, v := range Variants(zones[0].NumberRead, zones[0].NumberCheck) {
		found = found || v.Text == "L898902C3"
	}
	if !found {
		t.Error("the right reading is not among the variants")
	}
}

func TestFindKinds(t *testing.T) {
	t.Parallel()
	for code, kind := range map[string]string{"P<": "passport", "ID": "id_card", "AR": "residence_permit", "IR": "residence_permit", "V<": "visa", "C<": "id_card"} {
		zones := Find(zoneOf(code, "UTO", "ERIKSSON<<ANNA", "D23145890", "740812", "F", "120415"))
		if len(zones) != 1 || zones[0].Kind() != kind {
			t.Errorf("%s: %+v, want %s", code, zones, kind)
		}
	}
}

// The French identity card of 1994–2021 has a zone of its own: the number of twelve
// characters and the given names on the second line, no expiry.
func TestFindFrenchCard(t *testing.T) {
	t.Parallel()
	l1 := "IDFRADUPONT" + strings.Repeat("<", 20) + "750123"
	num, birth := "880575012345", "680203"
	l2 := num + string(CheckDigit(num)) + "MARIE<<<<<<<<<" + birth + string(CheckDigit(birth)) + "F"
	l2 += string(CheckDigit(l1 + l2))
	zones := Find([]string{strings.ReplaceAll(l1, "<<<<", "<S<C"), l2})
	if len(zones) != 1 {
		t.Fatalf("%d zones", len(zones))
	}
	z := zones[0]
	if z.Format != FRID || z.Kind() != "id_card" || z.Number != num || !z.NumberOK || z.Birth != birth || !z.BirthOK || z.Surname != "DUPONT" || z.Given != "MARIE" {
		t.Errorf("%+v", z)
	}
}

func TestFindIgnoresOtherText(t *testing.T) {
	t.Parallel()
	for _, text := range []string{
		"IBAN DE89 3704 0044 0532 0130 00 BIC COBADEFFXXX 31.10.2026",
		"<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<\n<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<",
		"Kontonummer 1234567890123456789012345678 Saldo 1.234,56",
	} {
		if zones := Find(strings.Split(text, "\n")); len(zones) != 0 {
			t.Errorf("%q: %+v", text, zones)
		}
	}
}

func FuzzFind(f *testing.F) {
	f.Add(specimenTD1)
	f.Add(specimenTD3)
	f.Add("IDFRADUPONT<<<<<<<<<<<<<<<<<<<<750123\n8805750123456MARIE<<<<<<<<<6802035F4")
	f.Fuzz(func(t *testing.T, text string) {
		for _, z := range Find(strings.Split(text, "\n")) {
			if z.First > z.Last || z.Last >= len(strings.Split(text, "\n")) {
				t.Fatalf("zone lines %d..%d", z.First, z.Last)
			}
			if z.NumberOK && CheckDigit(z.Number+strings.Repeat("<", max(0, len(z.NumberRead)-len(z.Number)))) != checkDigitOf(z.NumberCheck) &&
				checkDigitOf(z.NumberCheck) != '<' {
				t.Fatalf("number %q confirmed against %q", z.Number, z.NumberCheck)
			}
		}
	})
}
