package corpus

import (
	"fmt"
	"strings"
	"time"
)

const idAlphabet = "CFGHJKLMNPRTVWXYZ0123456789"

func (w *world) idNumber(first string) string {
	no := first
	for len(no) < 9 {
		no += string(idAlphabet[w.r.IntN(len(idAlphabet))])
	}
	return no
}

func (w *world) idExpiry() time.Time {
	if w.scen[scenExpiredID] {
		return w.now.AddDate(0, 0, -1-w.r.IntN(400))
	}
	return w.now.AddDate(0, 1+w.r.IntN(24), 0).AddDate(w.r.IntN(8), 0, 0)
}

// idCard is the German Personalausweis, front and back on one page as copies show it.
func (w *world) idCard() docSpec {
	r, p := w.r, w.app
	no := w.idNumber(string("LMNPRTVWXY"[r.IntN(10)]))
	expiry := w.idExpiry()
	issued := expiry.AddDate(-10, 0, 1)
	if p.DOB.AddDate(24, 0, 0).After(issued) {
		issued = expiry.AddDate(-6, 0, 1)
	}
	mrz := td1("ID", no, "D", "D", p, expiry)
	if w.scen[scenBadMRZ] {
		mrz = spoilCheckDigit(mrz)
	}
	surname, given := upper(p.Surname), upper(strings.Join(p.Given, " "))
	var s sheet
	layout := pick(r, []string{"classic", "two_column", "back_first", "card2021", "card2021", "card2021"})
	if layout == "card2021" {
		return w.idCard2021(no, expiry, issued, mrz)
	}
	front := func() {
		s.add(bold+"BUNDESREPUBLIK DEUTSCHLAND\tFEDERAL REPUBLIC OF GERMANY",
			"PERSONALAUSWEIS  IDENTITY CARD  CARTE D'IDENTITÉ\t\t"+no)
		if layout == "two_column" {
			s.add("Name/Surname/Nom\t"+surname, "Vornamen/Given names/Prénoms\t"+given,
				"Geburtstag/Date of birth\t"+p.DOB.Format("02.01.2006"),
				"Geburtsort/Place of birth\t"+upper(p.City),
				"Staatsangehörigkeit/Nationality\tDEUTSCH",
				"Gültig bis/Date of expiry\t"+expiry.Format("02.01.2006"))
			return
		}
		s.add(small+"Name/Surname/Nom", surname, small+"Vornamen/Given names/Prénoms", given,
			small+"Geburtstag/Date of birth/Date de naissance\tStaatsangehörigkeit/Nationality",
			p.DOB.Format("02.01.2006")+"\tDEUTSCH",
			small+"Geburtsort/Place of birth/Lieu de naissance", upper(p.City),
			small+"Gültig bis/Date of expiry/Date d'expiration", expiry.Format("02.01.2006"))
	}
	back := func() {
		s.add(small+"Anschrift/Address/Adresse", p.ZIP+" "+upper(p.City), upper(p.Street),
			small+"Augenfarbe/Colour of eyes\tGröße/Height",
			pick(r, []string{"BLAU", "BRAUN", "GRÜN", "GRAU"})+"\t"+fmt.Sprint(158+r.IntN(38))+" cm",
			small+"Ausstellungsdatum/Date of issue\tBehörde/Authority",
			issued.Format("02.01.2006")+"\tSTADT "+upper(p.City))
		s.add("", mono+bold+large+mrz[0], mono+bold+large+mrz[1], mono+bold+large+mrz[2])
	}
	if layout == "back_first" {
		back()
		s.add("")
		front()
	} else {
		front()
		s.add("")
		back()
	}
	_, truth := p.name(nameStyle{Middle: true})
	d := docSpec{Doc: Doc{Types: []string{"id_card"}, Language: "de", Layout: "id_card/" + layout,
		Fields: map[string]any{
			"applicant_full_name": truth, "applicant_date_of_birth": p.DOB,
			"id_document_number": no, "id_document_expiry_date": expiry,
		},
		Names: []string{truth}, MRZ: mrz, MRZValid: ValidMRZ(mrz)}}
	d.Pages = s.pages
	d.layout = layoutFor(r, 240, -520)
	d.layout.FontSize = 11 + float64(r.IntN(3))
	d.layout.Leading = d.layout.FontSize * 1.35
	return d
}

// passport is a German Reisepass or, in English cases, sometimes a British passport.
func (w *world) passport() docSpec {
	r, p := w.r, w.app
	expiry := w.idExpiry()
	issued := expiry.AddDate(-10, 0, 1)
	british := w.lang == "en" && chance(r, 0.5)
	var no, country, nat, natWord string
	surname, given := upper(p.Surname), upper(strings.Join(p.Given, " "))
	dateFmt := func(t time.Time) string { return t.Format("02.01.2006") }
	if british {
		no = fmt.Sprintf("%09d", 100000000+r.IntN(899999999))
		country, nat, natWord = "GBR", "GBR", "BRITISH CITIZEN"
		surname, given = upper(transliterate(p.Surname)), upper(transliterate(strings.Join(p.Given, " ")))
		dateFmt = func(t time.Time) string { return strings.ToUpper(t.Format("02 Jan 2006")) }
	} else {
		no = w.idNumber(string("CFGHJK"[r.IntN(6)]))
		country, nat, natWord = "D", "D", "DEUTSCH"
	}
	mrz := td3(no, country, nat, p, expiry)
	if w.scen[scenBadMRZ] {
		mrz = spoilCheckDigit(mrz)
	}
	sex := "M"
	if p.Female {
		sex = "F"
	}
	var s sheet
	if british {
		s.add(bold+"PASSPORT  PASSEPORT", "UNITED KINGDOM OF GREAT BRITAIN AND NORTHERN IRELAND",
			small+"Type/Type\tCode/Code\tPassport No./Passeport No.", "P\tGBR\t"+no,
			small+"Surname/Nom (1)", surname, small+"Given names/Prénoms (2)", given,
			small+"Nationality/Nationalité (3)", natWord,
			small+"Date of birth/Date de naissance (4)", dateFmt(p.DOB),
			small+"Sex/Sexe (5)\t\tPlace of birth/Lieu de naissance (6)", sex+"\t\t"+upper(transliterate(p.City)),
			small+"Date of issue/Date de délivrance (7)\t\tAuthority/Autorité (8)", dateFmt(issued)+"\t\tHMPO",
			small+"Date of expiry/Date d'expiration (9)", dateFmt(expiry))
	} else {
		s.add(bold+"REISEPASS  PASSPORT  PASSEPORT", "BUNDESREPUBLIK DEUTSCHLAND",
			small+"Typ/Type/Type\tKode/Code/Code\tPass-Nr./Passport No./Passeport No.", "P\tD\t"+no,
			small+"1. Name/Surname/Nom", surname, small+"2. Vornamen/Given names/Prénoms", given,
			small+"3. Staatsangehörigkeit/Nationality/Nationalité", natWord,
			small+"4. Geburtstag/Date of birth/Date de naissance", dateFmt(p.DOB),
			small+"5. Geschlecht/Sex/Sexe\t\t6. Geburtsort/Place of birth", sex+"\t\t"+upper(p.City),
			small+"7. Ausstellungsdatum/Date of issue\t\t8. Behörde/Authority", dateFmt(issued)+"\t\tSTADT "+upper(p.City),
			small+"9. Gültig bis/Date of expiry/Date d'expiration", dateFmt(expiry))
	}
	s.add("", mono+bold+large+mrz[0], mono+bold+large+mrz[1])
	truth := strings.Join(p.Given, " ") + " " + p.Surname
	if british {
		truth = transliterate(truth)
	}
	d := docSpec{Doc: Doc{Types: []string{"passport"}, Layout: "passport/" + country,
		Fields: map[string]any{
			"applicant_full_name": truth, "applicant_date_of_birth": p.DOB,
			"id_document_number": no, "id_document_expiry_date": expiry,
		},
		Names: []string{truth}, MRZ: mrz, MRZValid: ValidMRZ(mrz)}}
	if british {
		d.Language = "en"
	} else {
		d.Language = "de"
	}
	d.Pages = s.pages
	d.layout = layoutFor(r, 110, 250)
	d.layout.FontSize = 11 + float64(r.IntN(2))
	d.layout.Leading = d.layout.FontSize * 1.35
	return d
}
