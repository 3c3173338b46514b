package corpus

import (
	"fmt"
	"strings"
	"time"
)

// Layouts of identity documents modelled on the issuers' own: the German identity card
// since 2010/2021 with its trilingual labels, each value printed below its label, front
// and back on two pages; and the German electronic residence permit.

// idCard2021 prints the front (photo on the left, so the fields start at a column)
// and the back (address, issue data, TD1 machine-readable zone).
func (w *world) idCard2021(no string, expiry, issued time.Time, mrz []string) docSpec {
	r, p := w.r, w.app
	can := digits(r, 6) // the card access number: six digits that are no date and no ID
	surname, given := upper(p.Surname), upper(strings.Join(p.Given, " "))
	var s sheet
	s.add(bold+"\tBUNDESREPUBLIK DEUTSCHLAND", small+"\tFEDERAL REPUBLIC OF GERMANY · RÉPUBLIQUE FÉDÉRALE D'ALLEMAGNE",
		"\tPERSONALAUSWEIS · IDENTITY CARD · CARTE D'IDENTITÉ", "\t\t"+no, "")
	s.add(small+"\tName / Surname / Nom", "\t"+surname)
	if chance(r, 0.3) {
		s.add(small+"\tGeburtsname / Name at birth / Nom de naissance", "\t"+upper(pick(r, surnames)))
	}
	s.add(small+"\tVornamen / Given names / Prénoms", "\t"+given, "")
	s.add(small+"\tGeburtstag / Date of birth / Date de naissance\tStaatsangehörigkeit / Nationality / Nationalité",
		"\t"+p.DOB.Format("02.01.2006")+"\tDEUTSCH")
	s.add(small+"\tGeburtsort / Place of birth / Lieu de naissance", "\t"+upper(p.City))
	s.add(small+"\tGültig bis / Date of expiry / Date d'expiration\tZugangsnummer / Card access number",
		"\t"+expiry.Format("02.01.2006")+"\t"+can)
	s.newPage()
	s.add(small+"\tAnschrift / Address / Adresse", "\t"+p.ZIP+" "+upper(p.City), "\t"+upper(p.Street), "")
	s.add(small+"\tAugenfarbe / Colour of eyes / Couleur des yeux\tGröße / Height / Taille",
		"\t"+pick(r, []string{"BLAU", "BRAUN", "GRÜN", "GRAU"})+"\t"+fmt.Sprint(158+r.IntN(38))+" cm")
	s.add(small+"\tAusstellungsdatum / Date of issue / Date de délivrance\tBehörde / Authority / Autorité",
		"\t"+issued.Format("02.01.2006")+"\tSTADT "+upper(p.City), "")
	s.add(mono+bold+large+mrz[0], mono+bold+large+mrz[1], mono+bold+large+mrz[2])
	return w.cardSpec("id_card/card2021", no, expiry, mrz, s)
}

// residencePermit is the German electronic residence permit (Aufenthaltstitel): an
// identity document of a foreign national, TD1 with document code "AR".
func (w *world) residencePermit() docSpec {
	r, p := w.r, w.app
	no := w.idNumber(string("YZ"[r.IntN(2)]))
	expiry := w.idExpiry()
	nat := pick(r, []string{"TUR", "POL", "ITA", "UKR", "IND"})
	mrz := td1("AR", no, "D", nat, p, expiry)
	if w.scen[scenBadMRZ] {
		mrz = spoilCheckDigit(mrz)
	}
	surname, given := upper(p.Surname), upper(strings.Join(p.Given, " "))
	var s sheet
	s.add(bold+"\tAUFENTHALTSTITEL / RESIDENCE PERMIT / TITRE DE SÉJOUR", "\tBUNDESREPUBLIK DEUTSCHLAND", "\t\t"+no, "")
	s.add(small+"\tName / Surname / Nom", "\t"+surname, small+"\tVornamen / Given names / Prénoms", "\t"+given, "")
	s.add(small+"\tGültig bis / Valid until / Valable jusqu'au\tArt des Titels / Type of permit / Type de titre",
		"\t"+expiry.Format("02.01.2006")+"\t"+pick(r, []string{"AUFENTH.-ERL.", "NIEDERLASSUNGSERL.", "BLAUE KARTE EU"}))
	s.add(small+"\tAnmerkungen / Remarks / Remarques", "\tERWERBSTÄTIGKEIT ERLAUBT", "")
	s.add(small+"\tGeburtstag / Date of birth / Date de naissance\tStaatsangehörigkeit / Nationality / Nationalité",
		"\t"+p.DOB.Format("02.01.2006")+"\t"+nat)
	s.newPage()
	s.add(small+"\tAnschrift / Address / Adresse", "\t"+p.ZIP+" "+upper(p.City), "\t"+upper(p.Street), "")
	s.add(small+"\tAusstellungsort, Datum / Place of issue, date", "\tAUSLÄNDERBEHÖRDE "+upper(p.City)+", "+expiry.AddDate(-3, 0, 1).Format("02.01.2006"), "")
	s.add(mono+bold+large+mrz[0], mono+bold+large+mrz[1], mono+bold+large+mrz[2])
	return w.cardSpec("id_card/residence_permit", no, expiry, mrz, s)
}

// cardSpec is an identity card of the applicant (TD1 size, small print): its truth is
// what the card prints, the name in full with middle names.
func (w *world) cardSpec(layout, no string, expiry time.Time, mrz []string, s sheet) docSpec {
	_, truth := w.app.name(nameStyle{Middle: true})
	d := docSpec{Doc: Doc{Types: []string{"id_card"}, Language: "de", Layout: layout,
		Fields: map[string]any{
			"applicant_full_name": truth, "applicant_date_of_birth": w.app.DOB,
			"id_document_number": no, "id_document_expiry_date": expiry,
		},
		Names: []string{truth}, MRZ: mrz, MRZValid: ValidMRZ(mrz)}}
	d.Pages = s.pages
	d.layout = layoutFor(w.r, 100, 330)
	d.layout.FontSize = 10
	d.layout.Leading = 14
	return d
}
