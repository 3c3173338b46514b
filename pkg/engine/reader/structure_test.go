package reader

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/doceval/doceval/pkg/engine/evidence"
	"github.com/doceval/doceval/pkg/engine/parse"
)

// ocrDocument is document with every page's text from OCR.
func ocrDocument(slot string, pages ...string) *evidence.Document {
	d := document(slot, pages...)
	for i := range d.Pages {
		d.Pages[i].OCR = true
	}
	return d
}

// OCR's garbled labels match word by word within a tolerance that grows with the
// word's length; a short word must be exact, and a phrase is not matched by another
// phrase that shares its long word ("a statement" is no "bank statement").
func TestFuzzyMatch(t *testing.T) {
	t.Parallel()
	for spec, line := range map[string]string{
		"geburtstag":                 "Geburstag/Date ot birth",
		"delivree le":                "délivrée le: 16.09.1994",
		"date of birth":              "date of birtn",
		"nettoverdienst|gross pay":   "Nettoverdlenst 2.345,67",
		"kontoauszug|bank statement": "KONTOAUSZUC Nr. 3",
	} {
		_, _, edits, ok := fuzzyMatchWords(spec, wordsOf(foldString(line)))
		require.True(t, ok, "%s in %q", spec, line)
		require.LessOrEqual(t, edits, 2)
	}
	for spec, line := range map[string]string{
		"bank statement": "This form is a statement of final loan terms",
		"#nom#":          "Nam: Martin",
		"saldo":          "Salat",
		"date of expiry": "date of entry",
	} {
		_, _, _, ok := fuzzyMatchWords(spec, wordsOf(foldString(line)))
		require.False(t, ok, "%s in %q", spec, line)
	}
}

// On an OCR page a label OCR garbled is still found, and the value read after it is
// less sure than after a label spelled right; on a text layer nothing is guessed.
func TestFuzzyLabelLowersConfidence(t *testing.T) {
	t.Parallel()
	conf := func(d *evidence.Document) float64 {
		for _, f := range Facts(d, []string{"id_card"}) {
			if f.Key == "id_document_expiry_date" {
				require.Equal(t, time.Date(2031, 5, 3, 0, 0, 0, 0, time.UTC), f.Value)
				return f.Confidence
			}
		}
		return -1
	}
	exact := conf(ocrDocument("id_card", "PERSONALAUSWEIS\nGültig bis\n03.05.2031"))
	garbled := conf(ocrDocument("id_card", "PERSONALAUSWEIS\nGultiq bis\n03.05.2031"))
	require.Greater(t, exact, 0.0)
	require.Greater(t, garbled, 0.0)
	require.Less(t, garbled, exact)
	require.Equal(t, -1.0, conf(document("id_card", "PERSONALAUSWEIS\nGultiq bis\n03.05.2031")))
}

// A ledger is dated rows with amounts in order; balances that follow from each other
// by the row's amount make it surer. Rows out of order or too few are none.
func TestLedgerShape(t *testing.T) {
	t.Parallel()
	lines := func(s ...string) []line {
		var out []line
		for _, l := range s {
			out = append(out, line{text: l, f: fold(l)})
		}
		return out
	}
	ledger := lines(
		"22 Oct 2013 Faster Payment Amazon 132.30 1,671.60",
		"24 Oct 2013 BACS Tebay Trading Co. 515.22 1,156.38",
		"25 Oct 2013 Card Morrisons 80.00 1,076.38",
		"27 Oct 2013 ATM High Street 100.00 976.38",
		"01 Nov 2013 Salary ACME 2,000.00 2,976.38",
	)
	rows, adding := ledgerShape(ledger)
	require.Equal(t, 5, rows)
	require.Equal(t, 4, adding)

	shuffled := lines(
		"03.05. Miete 950,00", "28.01. Strom 80,00", "14.09. Gehalt 2.100,00", "02.02. Kino 12,00", "30.11. Bahn 39,90", "01.04. Buch 9,99")
	rows, _ = ledgerShape(shuffled)
	require.Zero(t, rows, "days out of order are no ledger")
	rows, _ = ledgerShape(ledger[:4])
	require.Zero(t, rows, "four rows are too few")
}

// Structure decides the type where the words are in another language or garbled: a
// ledger with an English balance cue is a bank statement, an energy figure per square
// metre and year an energy certificate.
func TestStructureClassifies(t *testing.T) {
	t.Parallel()
	statement := document("", `Royal Bank
Previous Balance £1,803.90
22 Oct 2013 Faster Payment Amazon 132.30 1,671.60
24 Oct 2013 BACS Tebay Trading Co. 515.22 1,156.38
25 Oct 2013 Card Morrisons 80.00 1,076.38
27 Oct 2013 ATM High Street 100.00 976.38
01 Nov 2013 Salary ACME 2,000.00 2,976.38`)
	require.Equal(t, "bank_statement", Classify(statement)[0].Type)

	energy := document("", "Certificat\nConsommation énergétique 182 kWh/m².an\nÉmissions 12 kg CO2/m².an\nLogement économe")
	s := scorePage(newText(energy)).scores
	require.Equal(t, float64(energyWeight), s["energy_certificate"])
}

// Titles in the languages of the EU type a document as the German and English ones do.
func TestTitlesInOtherLanguages(t *testing.T) {
	t.Parallel()
	for text, want := range map[string]string{
		"BULLETIN DE PAIE\nPériode du 01/03/2024 au 31/03/2024\nSalaire brut 3\u00a0200,00\nNet à payer 2\u00a0480,00": "salary_statement",
		"RELEVÉ DE COMPTE\nAncien solde 1\u00a0200,00\nNouveau solde 1 450,00":                                         "bank_statement",
		"ESTRATTO CONTO\nSaldo iniziale 1.200,00":                                                                      "bank_statement",
		"GRUNDBUCH\nKATASTRALGEMEINDE 73518 Zlapp EINLAGEZAHL 221":                                                     "land_register_extract",
		"DOCUMENTO NACIONAL DE IDENTIDAD\nAPELLIDOS\nGARCIA":                                                           "id_card",
	} {
		require.Equal(t, want, Classify(document("", text))[0].Type, text)
	}
}

// The back of an identity card without a zone (address, validity, issuing authority)
// is an ID card by its labelled fields; a card called a passport card is a card; a
// long form asking for a person's data is neither.
func TestIdentityStructureClassifies(t *testing.T) {
	t.Parallel()
	back := ocrDocument("", "Adresse: 104 RUE DES FLEURS\n92100 BOULOGNE\nCarte valable jusqu'au : 15 09 2004\ndélivrée te: 16.09.1994\nSignature de l'autorité :")
	require.Equal(t, "id_card", Classify(back)[0].Type)
	f := factsByKey(Facts(back, []string{"id_card"}))
	require.Equal(t, []any{time.Date(2004, 9, 15, 0, 0, 0, 0, time.UTC)}, f["id_document_expiry_date"])

	card := ocrDocument("", "UNITED STATES\nPASSPORT CARD\nSurname\nTRAVELER\nGiven Names\nHAPPY\nDate of Birth\n1 JAN 1981\nExpires On\n29 NOV 2019\nNationality\nUSA")
	require.Equal(t, "id_card", Classify(card)[0].Type)

	form := "Selbstauskunft\n"
	for range 70 {
		form += "Name Vorname Geburtsdatum Staatsangehörigkeit Ausweis gültig bis ausgestellt am Behörde\n"
	}
	require.NotEqual(t, "id_card", Classify(document("", form))[0].Type)
}

// Without a zone an expiry is checked against the issue and birth dates printed beside
// it: before issue, or beyond any validity a state gives, it is not sure.
func TestExpiryPlausibility(t *testing.T) {
	t.Parallel()
	expiry := func(page string) evidence.Fact {
		for _, f := range Facts(document("id_card", page), []string{"id_card"}) {
			if f.Key == "id_document_expiry_date" {
				return f
			}
		}
		t.Fatalf("no expiry in %q", page)
		return evidence.Fact{}
	}
	require.Equal(t, 0.9, expiry("Date of issue: 16.09.2014\nDate of expiry: 15.09.2024").Confidence)
	require.Equal(t, 0.4, expiry("Date of issue: 16.09.2014\nDate of expiry: 15.09.2004").Confidence)
	require.Equal(t, 0.4, expiry("Date of issue: 16.09.1994\nDate of expiry: 15.09.2024").Confidence)
	require.Equal(t, 0.4, expiry("Date of birth: 01.01.1990\nDate of expiry: 15.09.1984").Confidence)
	d, ok := documentDateIn(parse.DayFirst)("15 09 2004")
	require.True(t, ok)
	require.Equal(t, time.Date(2004, 9, 15, 0, 0, 0, 0, time.UTC), d)
	_, ok = documentDateIn(parse.DayFirst)("15 13 2004")
	require.False(t, ok)
}

// A statement whose printed summary does not add up (opening + paid in − paid out is
// not the closing balance) gives no account balance; one that adds up does.
func TestContradictorySummaryGivesNoBalance(t *testing.T) {
	t.Parallel()
	page := func(closing string) string {
		return `Bank Statement
Previous Balance £1,803.90
Paid Out £2,684.10
Paid In £2,180.40
New Balance £` + closing + `
Date Description Paid In Paid Out Balance
22 Oct 2023 Faster Payment Amazon 132.30 1,671.60`
	}
	f := factsByKey(Facts(document("bank_statement", page("300.20")), []string{"bank_statement"}))
	require.Empty(t, f["account_balance"])
	f = factsByKey(Facts(document("bank_statement", page("1,300.20")), []string{"bank_statement"}))
	require.Len(t, f["account_balance"], 1)
}

// An address a form prints in labelled parts is put together: street, then postcode
// and city in one cell, in two, or under labels of their own.
func TestAddressFromLabelledParts(t *testing.T) {
	t.Parallel()
	for page, want := range map[string]string{
		"Energieausweis für Wohngebäude\nStraße          Musterstraße 17          Katastralgemeinde   Eisenstadt\nPLZ/Ort         7000 Eisenstadt          KG-Nr.              30003": "Musterstraße 17, 7000 Eisenstadt",
		"Energieausweis für Wohngebäude\nStraße          Musterstraße 1           Katastralgemeinde   Bregenz\nPLZ, Ort        6900       Bregenz       KG-Nummer           91103":    "Musterstraße 1, 6900 Bregenz",
		"Energieausweis für Wohngebäude\nStraße:   Breitenfurter Straße 535-537\nOrt:      Wien-Liesing\nPostleitzahl:   1230":                                                        "Breitenfurter Straße 535-537, 1230 Wien-Liesing",
	} {
		f := factsByKey(Facts(document("energy_certificate", page), []string{"energy_certificate"}))
		require.Equal(t, []any{want}, f["property_address"], page)
	}
	// A street without postcode and city is no address.
	f := factsByKey(Facts(document("energy_certificate", "Energieausweis für Wohngebäude\nStraße   Musterstraße 17\nBaujahr 2016"), []string{"energy_certificate"}))
	require.Empty(t, f["property_address"])
}

// A letterhead's company name runs to the end of its cell when a trade name follows the
// legal form; an address or more words after it are not the name.
func TestLetterheadName(t *testing.T) {
	t.Parallel()
	require.Equal(t, "Now Corp Retail", letterheadName("   Now Corp Retail          Period Beginning: 03/30/2015", "Now Corp"))
	require.Equal(t, "ACME GmbH", letterheadName("ACME GmbH Niederlassung Köln Süd West", "ACME GmbH"))
	require.Equal(t, "ACME Inc.", letterheadName("ACME Inc.", "ACME Inc."))
}

// A US driver licence has no zone: its type from its title, its fields after their
// abbreviated labels, its dates month first.
func TestDriverLicence(t *testing.T) {
	t.Parallel()
	dl := ocrDocument("", "CALIFORNIA\nDRIVER LICENSE\nDL I1234568\nEXP 08/01/2014\nLN CARDHOLDER\nFN IMA\n2570 24TH STREET\nANYTOWN, CA 95818\nDOB 03/04/1977\nISS 08/01/2009")
	require.Equal(t, "id_card", Classify(dl)[0].Type)
	f := factsByKey(Facts(dl, []string{"id_card"}))
	require.Equal(t, []any{"Ima Cardholder"}, f["applicant_full_name"])
	require.Equal(t, []any{time.Date(1977, 3, 4, 0, 0, 0, 0, time.UTC)}, f["applicant_date_of_birth"])
	require.Equal(t, []any{time.Date(2014, 8, 1, 0, 0, 0, 0, time.UTC)}, f["id_document_expiry_date"])
	require.Equal(t, []any{"I1234568"}, f["id_document_number"])
}

// A residence permit is "other", yet its zone names its holder, birth date, number and
// expiry as an ID card's does.
func TestResidencePermitRead(t *testing.T) {
	t.Parallel()
	permit := document("", "AUFENTHALTSTITEL\nRESIDENCE PERMIT\n"+
		"ARD<<T220001293<<<<<<<<<<<<<<<\n8706180F3005143UTO<<<<<<<<<<<2\nERIKSSON<<ANNA<MARIA<<<<<<<<<<")
	types := Classify(permit)
	require.Equal(t, "other", types[0].Type)
	f := factsByKey(Facts(permit, []string{"other"}))
	require.Equal(t, []any{time.Date(1987, 6, 18, 0, 0, 0, 0, time.UTC)}, f["applicant_date_of_birth"])
	require.Equal(t, []any{time.Date(2030, 5, 14, 0, 0, 0, 0, time.UTC)}, f["id_document_expiry_date"])
	require.Equal(t, []any{"T22000129"}, f["id_document_number"])
	require.Len(t, f["applicant_full_name"], 1)
}

// An employer that prints no legal form is read from the letterhead's address block
// (name, street, town with postcode), less sure; a person's address block there, or a
// title, is no employer.
func TestLetterheadOrganization(t *testing.T) {
	t.Parallel()
	stub := func(first string) string {
		return first + "        Pay Begin Date:   07/10/2017\n103 South Building, Campus Box 9100       Pay End Date:   07/23/2017\nChapel Hill, NC 27599-9100\n\nEmployee Name\nNet Pay 1,040.23\nTotal Gross 1,627.74"
	}
	f := Facts(document("salary_statement", stub("The University of North Carolina at Chapel Hill")), []string{"salary_statement"})
	var got []evidence.Fact
	for _, x := range f {
		if x.Key == "employer_name" {
			got = append(got, x)
		}
	}
	require.Len(t, got, 1)
	require.Equal(t, "The University of North Carolina at Chapel Hill", got[0].Value)
	require.Equal(t, letterheadOrgConfidence, got[0].Confidence)
	for _, first := range []string{"Amis Smith", "Earnings Statement"} {
		require.Empty(t, factsByKey(Facts(document("salary_statement", stub(first)), []string{"salary_statement"}))["employer_name"], first)
	}
}

// The visual zone and the machine-readable zone disagree on a date: the zone's reading,
// confirmed by its check digit, is given, less sure, and the citation quotes both.
func TestZonesDisagreeReported(t *testing.T) {
	t.Parallel()
	page := `PASSPORT
Surname
ERIKSSON
Given names
ANNA MARIA
Date of birth
13.08.1974
P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<
L898902C36UTO7408122F1204159ZE184226B<<<<<10`
	for _, f := range Facts(document("passport", page), []string{"passport"}) {
		if f.Key != "applicant_date_of_birth" {
			continue
		}
		require.Equal(t, time.Date(1974, 8, 12, 0, 0, 0, 0, time.UTC), f.Value)
		require.Equal(t, zonesDisagree, f.Confidence)
		require.Contains(t, f.Citation.Excerpt, "13.08.1974")
		require.Contains(t, f.Citation.Excerpt, "7408122")
		return
	}
	t.Fatal("no birth date")
}

// A residence permit's labelled fields speak for the kind its zone's code names, not
// for an ID card, even in the ID slot.
func TestResidencePermitFieldsFollowTheZone(t *testing.T) {
	t.Parallel()
	permit := document("id_card", "AUFENTHALTSTITEL\nName/Surname\nERIKSSON\nVornamen/Given names\nANNA MARIA\nGeburtsdatum/Date of birth\n18.06.1987\nGültig bis/Valid until\n14.05.2030\nBehörde/Authority\nSTADT KÖLN\nStaatsangehörigkeit/Nationality\nUTO\nGeburtsort/Place of birth\nUPSALA\nAusstellungsdatum/Date of issue\n14.05.2020\nAnschrift/Address\nHEIDESTRASSE 17, 51147 KÖLN\n"+
		"ARD<<T220001293<<<<<<<<<<<<<<<\n8706180F3005143UTO<<<<<<<<<<<2\nERIKSSON<<ANNA<MARIA<<<<<<<<<<")
	require.Equal(t, "other", Classify(permit)[0].Type)
}

// A label's keys are runs of letters its pattern matches only as themselves; a line
// without any key is passed over, and the keys never hide a line the pattern matches.
func TestLabelKeys(t *testing.T) {
	t.Parallel()
	require.Equal(t, []string{"fuehrerschelnnetherg", "attestato"}, labelKeys("fuehrerschein netherg|attestato"), "i read as l, white space dropped")
	require.Equal(t, []string{"urnr"}, labelKeys("ur-nr"), "a hyphen may go missing")
	require.Equal(t, []string{"netto"}, labelKeys("ab\\-netto"), "an escaped character breaks the key")
	require.Nil(t, labelKeys("#nom#|ab"), "ab has no key of three characters")
	require.Nil(t, labelKeys("gültig"[:2]), "gü breaks at the umlaut")
	require.Nil(t, labelKeys(`re:\bsaldo\b`))
	for _, spec := range []string{"gültig bis|date of expiry", "bulletin de paie|net a payer", "kontoauszug|account statement", "#prenom#|vornamen", "ur-nr|total gross", "pass-nr|passport no"} {
		k := keyed(spec)
		for _, s := range []string{"Gu1tig bis 12.03.2030", "Gültig  bis", "BULLETIN DE PA IE", "Net à payer 2\u00a0480,00", "K0ntoauszug Nr. 3", "Account   Statement", "Prénom: Marie", "Vornamen / Given names", "Datum 12.03.2030", "Nettoverdienst", "UR Nr. 123", "T0TAL GR0SS 1,627.74", "Pass-Nr.: C01X00T47", "Passport N0. X"} {
			l := line{text: s, f: fold(s), bare: bareOf(s)}
			require.Equal(t, k.re.MatchString(l.f.s), k.match(l), "%s on %q", spec, s)
		}
	}
}

// The visual zone labels another number than the zone's checked one: the zone's is
// given, less sure, citing both.
func TestZonesDisagreeOnNumber(t *testing.T) {
	t.Parallel()
	page := "PASSPORT\nPassport No. L898902C9\nP<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<\nL898902C36UTO7408122F1204159ZE184226B<<<<<10"
	for _, f := range Facts(document("passport", page), []string{"passport"}) {
		if f.Key == "id_document_number" {
			require.Equal(t, "L898902C3", f.Value)
			require.Equal(t, zonesDisagree, f.Confidence)
			require.Contains(t, f.Citation.Excerpt, "L898902C9")
			return
		}
	}
	t.Fatal("no number")
}

// A land register lists the land, then its owners with their addresses: an owner's
// address is no property address.
func TestLandRegisterOwnersAddressIsNoProperty(t *testing.T) {
	t.Parallel()
	extract := "GRUNDBUCH\nKATASTRALGEMEINDE 73518 Zlapp EINLAGEZAHL 221\nGST-NR NUTZUNG FLÄCHE\n1143/2 Alpen 911\n1 ANTEIL: 1/1\nSektion Wuppertal e.V.\nADR: Badische Straße 76, 42389 Wuppertal"
	require.Empty(t, factsByKey(Facts(document("land_register_extract", extract), []string{"land_register_extract"}))["property_address"])
	before := "GRUNDBUCH\nLage: Lindenstraße 12, 50667 Köln\n1 ANTEIL: 1/1\nADR: Badische Straße 76, 42389 Wuppertal"
	require.Equal(t, []any{"Lindenstraße 12, 50667 Köln"}, factsByKey(Facts(document("land_register_extract", before), []string{"land_register_extract"}))["property_address"])
}

// A pay stub's cheque names the employee after "Pay to the order of".
func TestPayeeIsTheEmployee(t *testing.T) {
	t.Parallel()
	stub := "Earnings Statement\nGross Pay 707.75\nNet Pay 532.76\nPay to the\norder of     AMIS SMITH\nThis Amount: FIVE HUNDRED THIRTY TWO AND 76/100 DOLLARS"
	require.Equal(t, []any{"Amis Smith"}, factsByKey(Facts(document("salary_statement", stub), []string{"salary_statement"}))["applicant_full_name"])
}

// An extract's parcel address column ("GST-ADRESSE") gives the property's street, with
// no postcode needed.
func TestLandRegisterParcelAddress(t *testing.T) {
	t.Parallel()
	extract := "GRUNDBUCH\nKATASTRALGEMEINDE 73518 Zlapp EINLAGEZAHL 221\nGST-ADRESSE\nWinkl 41\n1 ANTEIL: 1/1"
	require.Equal(t, []any{"Winkl 41"}, factsByKey(Facts(document("land_register_extract", extract), []string{"land_register_extract"}))["property_address"])
}

// A statement's holder stands alone with a salutation in its head when OCR put another
// column under the name: read, unsure. A heading with a salutation-like start is none.
func TestTitledHolderName(t *testing.T) {
	t.Parallel()
	head := "Account Number: 1111111\nStatement Sort Code: 16-10-00\nMr Robot Roboto\nCURRENT ACCOUNT\nRBS Silicon Valley Previous Balance £1803.90"
	name, _, ok := titledName(newText(document("bank_statement", head)), false)
	require.True(t, ok)
	require.Equal(t, "Robot Roboto", name)
	for _, s := range []string{"Mr Robot Roboto Previous Balance £1803.90", "Dr Statement Summary", "Robot Roboto"} {
		_, _, ok := titledName(newText(document("bank_statement", "Bank Statement\n"+s)), false)
		require.False(t, ok, s)
	}
}

// Whatever OCR makes of a page, the classifier and every reader (the OCR-tolerant label
// search, the structure detectors, the identity reader) end without a panic, and every
// value they read cites text on the page.
func FuzzReadOCRPage(f *testing.F) {
	f.Add("Geburstag/Date ot brin\n12.03.1980\nP<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<\nL898902C36UTO7408122F1204159ZE184226B<<<<<10")
	f.Add("22 Oct 2013 Faster Payment 132.30 1,671.60\n24 Oct 2013 BACS 515.22 1,156.38\nPaid In £2,180.40\nPaid Out £2,684.10\nNew Balance £300.20")
	f.Add("Straße  Musterstraße 17\nPLZ/Ort  7000 Eisenstadt\n182 kWh/m²a\nDL I1234568 EXP 08/01/2014 LN CARDHOLDER FN IMA")
	f.Add("Brutto  Netto  Datum\n3.000,00  1.980,12 EUR  150356\nNetto:   2 100,00 €")
	f.Fuzz(func(t *testing.T, page string) {
		doc := ocrDocument("", page)
		types := Classify(doc)
		require.NotEmpty(t, types)
		all := []string{"id_card", "passport", "salary_statement", "bank_statement", "energy_certificate", "land_register_extract", "other"}
		for _, fact := range Facts(doc, append([]string{types[0].Type}, all...)) {
			require.True(t, doc.Verify(fact.Citation), "%s cites %q", fact.Key, fact.Citation.Excerpt)
		}
		// Read from OCR's words as they stand (the statement laid out from their boxes),
		// every value still cites the OCR text.
		ocrWords := withWords(ocrDocument("", page))
		for _, fact := range Facts(ocrWords, []string{"bank_statement", "salary_statement"}) {
			require.True(t, ocrWords.Verify(fact.Citation), "%s cites %q", fact.Key, fact.Citation.Excerpt)
		}
		// A custom field read by its label from the page's pairs cites the page too.
		laidOut := withWords(document("", page))
		for _, format := range []string{"", "currency", "date"} {
			if fact, ok := LabelledValue([]*evidence.Document{laidOut}, "Netto", format); ok {
				require.True(t, laidOut.Verify(fact.Citation), "cites %q", fact.Citation.Excerpt)
			}
		}
	})
}

// A French payslip and a French statement are read by their own labels: monthly gross
// and net of a month's pay period, a statement's opening and closing balances (their
// thousands grouped by a no-break space, as French software prints them).
func TestFrenchPayslipAndStatement(t *testing.T) {
	t.Parallel()
	slip := document("", "BULLETIN DE PAIE\nEmployeur : ACME SAS\nPériode du 01/03/2024 au 31/03/2024\nDate d'entrée : 01/09/2019\nSalaire brut                 3\u00a0200,00 €\nNet à payer avant impôt      2\u00a0480,00 €\nNet payé                     2\u00a0310,00 €")
	require.Equal(t, "salary_statement", Classify(slip)[0].Type)
	f := factsByKey(Facts(slip, []string{"salary_statement"}))
	require.NotEmpty(t, f["gross_monthly_income"])
	require.Equal(t, "320000 EUR", moneyString(f["gross_monthly_income"][0]))
	require.NotEmpty(t, f["net_monthly_income"])
	require.Equal(t, "248000 EUR", moneyString(f["net_monthly_income"][0]))
	require.Equal(t, []any{time.Date(2019, 9, 1, 0, 0, 0, 0, time.UTC)}, f["employment_start_date"])

	statement := document("", "RELEVÉ DE COMPTE\nTitulaire du compte : Claire Martin\nAncien solde au 01/03/2024          1\u00a0200,00 €\n05/03/2024 Virement salaire ACME     2\u00a0310,00 €\nNouveau solde au 31/03/2024         3\u00a0510,00 €")
	require.Equal(t, "bank_statement", Classify(statement)[0].Type)
	f = factsByKey(Facts(statement, []string{"bank_statement"}))
	require.NotEmpty(t, f["account_balance"])
	require.Equal(t, "351000 EUR", moneyString(f["account_balance"][0]))
}

func moneyString(v any) string {
	switch m := v.(type) {
	case parse.Money:
		return fmt.Sprintf("%d %s", m.Cents, m.Currency)
	case *parse.Money:
		return fmt.Sprintf("%d %s", m.Cents, m.Currency)
	}
	return fmt.Sprintf("%T %v", v, v)
}

// An expiry that nothing printed beside it can check, or a price read after a label OCR
// garbled, is no ground for a critical verdict: below the checks' 0.6.
func TestUncheckedValuesBelowVerdict(t *testing.T) {
	t.Parallel()
	conf := func(d *evidence.Document, typ, key string) float64 {
		for _, f := range Facts(d, []string{typ}) {
			if f.Key == key {
				return f.Confidence
			}
		}
		t.Fatalf("no %s", key)
		return 0
	}
	require.Equal(t, belowVerdict, conf(document("id_card", "IDENTITY CARD\nDate of expiry\n03.05.2031"), "id_card", "id_document_expiry_date"))
	require.Equal(t, 0.9, conf(document("id_card", "IDENTITY CARD\nDate of birth\n01.02.1980\nDate of expiry\n03.05.2031"), "id_card", "id_document_expiry_date"))
	require.LessOrEqual(t, conf(ocrDocument("purchase_contract", "KAUFVERTRAG\nNotar Dr. Weber\nKaufpre1s betraqt 450.000,00 EUR"), "purchase_contract", "purchase_price"), belowVerdict)
}

// A form of no builtin type gives the applicant's name, the employer and a price after
// labels that say whose they are, less surely; a bare "Name" label gives nothing.
func TestOtherFormFields(t *testing.T) {
	t.Parallel()
	urla := document("", "Uniform Residential Loan Application\nName (First, Middle, Last, Suffix) Social Security Number\nGwen Stacy (or Individual Taxpayer Identification Number)\nEmployer or Business Name Spider Web Corp. Phone (390) 353-2474\nSale Price $1,800,000.00")
	got := Facts(urla, []string{"other"})
	f := factsByKey(got)
	require.Equal(t, []any{"Gwen Stacy"}, f["applicant_full_name"])
	require.Equal(t, []any{"Spider Web Corp."}, f["employer_name"])
	require.Len(t, f["purchase_price"], 1)
	for _, x := range got {
		require.LessOrEqual(t, x.Confidence, formConfidence, x.Key)
		if x.Key == "purchase_price" {
			require.LessOrEqual(t, x.Confidence, belowVerdict)
		}
	}
	letter := document("", "Sehr geehrte Damen und Herren,\nName: Jürgen Müller\nwir bestätigen den Eingang Ihres Schreibens.")
	require.Empty(t, factsByKey(Facts(letter, []string{"other"}))["applicant_full_name"])
}

// A label is a word of its own, not the head of a longer compound: "Kaufpreis" is not
// found in "Kaufpreisnebenkosten", while a short ending ("Nettobezüge" for "nettobezug")
// is still the label.
func TestLabelsAreWholeWords(t *testing.T) {
	t.Parallel()
	tx := newText(document("", "Kaufpreisnebenkosten 45.000,00 EUR\nKaufpreis 450.000,00 EUR\nNettobezüge 2.100,00"))
	hits := tx.find("kaufpreis")
	require.Len(t, hits, 1)
	require.Equal(t, "Kaufpreis 450.000,00 EUR", hits[0].l.text)
	require.Len(t, tx.find("nettobezug"), 1)
	contract := document("", "KAUFVERTRAG\nNotar Dr. Weber\nKaufpreisnebenkosten 45.000,00 EUR\nDer Kaufpreis beträgt 450.000,00 EUR.")
	f := factsByKey(Facts(contract, []string{"purchase_contract"}))
	require.Len(t, f["purchase_price"], 1)
	require.Equal(t, "45000000 EUR", moneyString(f["purchase_price"][0]))
}

// An amount shows its cents whatever marker follows it: a currency, a side, a bracket.
func TestHasCents(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]bool{"1,234.56": true, "80,00 €": true, "(12.50)": true, "250.00 CR": true, "1.234,56 H": true, "1803.9": false, "450 €": false, "12.345": false} {
		require.Equal(t, want, hasCents(s), s)
	}
}
