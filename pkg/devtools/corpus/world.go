package corpus

import (
	"math/rand/v2"
	"strings"
	"time"

	"github.com/doceval/doceval/pkg/testkit/samplepdf"
)

// world is everything true about one submission, from which its documents are
// printed.
type world struct {
	r    *rand.Rand
	now  time.Time
	lang string
	// country is where the applicant's payroll and bank are: "de", "uk" or "us"; it
	// sets the currency and the issuers' layouts of payslips and bank statements.
	country string
	// payoutCut is what the payroll deducts after the net pay every month (capital-
	// forming savings): the salary credit is the net pay less this.
	payoutCut int64
	tmpl      string
	scen      map[string]bool
	app       person
	other     person // whose name a mixed-up bank statement shows
	emp       employer
	job       job
	acct      account
	prop      *property
	fin       *financing
	focus     focus
}

// focus steers a case towards a part of the corpus, so that a small corpus still holds
// every layout family: case i of a corpus gets focus i mod focusCount.
type focus int

const (
	focusNone   focus = iota
	focusUK           // British payroll and bank
	focusUS           // American payroll and bank
	focusMerged       // an ID document, payslips and a bank statement in one scanned file
	focusPhoto        // the ID document and a payslip photographed
	focusCount
)

// docSpec is a document before rendering.
type docSpec struct {
	Doc
	layout samplepdf.Layout
	parts  []docSpec // the documents a merged upload holds, in page order
}

type employer struct {
	Name, Street, ZIP, City string
	BankText                string // how the salary transfer names the employer
}

type job struct {
	Start           time.Time
	ProbationMonths int
	ProbationEnd    time.Time // last day of probation
	FixedEnd        time.Time // zero: permanent
	Title           string
	TaxClass        int
	PersonnelNo     string
	Months          []payMonth // oldest first
	Base            int64      // monthly base salary
	Net             int64      // net pay of a month with only the base salary
}

type payMonth struct {
	Month       time.Time // the month of the pay date
	PayDate     time.Time // set for bi-weekly pay (United States): the pay date
	From, To    time.Time // set for bi-weekly pay: the pay period
	Gross       int64
	Lines       []payLine // earnings
	Deductions  []payLine
	Net         int64
	Garnishment int64 // a garnishment order's deduction
	Payout      int64 // what is paid out before savings deducted after the net pay
}

type payLine struct {
	Label [2]string // de, en
	Cents int64
}

type account struct {
	Bank, IBAN, BIC string
	// Number and Code are a British or American account's number and its sort code or
	// routing number; American accounts have no IBAN.
	Number, Code string
}

type property struct {
	House                      bool
	Street, ZIP, City          string
	Price, ExposePrice         int64 // purchase contract, exposé asking price
	Area, ContractArea, Expose float64
	Rooms                      float64
	Year                       int
	Plot                       int
	HeatingYear                int
}

type financing struct {
	Loan, Equity    int64
	Costs           int64 // purchase costs (tax, notary, agent)
	LTV             float64
	StateLTV        bool
	LendingValue    int64 // when the stated LTV refers to it
	FixedYears      int
	RatePercent     float64
	TermMonths      int // personal loans
	MonthlyInstallm int64
}

var employers = []employer{
	{Name: "Stadtwerke Lüneburg GmbH", Street: "Am Sande 12", ZIP: "21335", City: "Lüneburg", BankText: "STADTWERKE LUENEBURG GMBH"},
	{Name: "Müller & Söhne Maschinenbau GmbH & Co. KG", Street: "Industriestraße 4", ZIP: "33602", City: "Bielefeld", BankText: "MUELLER + SOEHNE MASCHINENBAU"},
	{Name: "Nordlicht Logistik AG", Street: "Hafenstraße 88", ZIP: "20095", City: "Hamburg", BankText: "Nordlicht Logistik AG"},
	{Name: "Rheinische Präzisionstechnik GmbH", Street: "Deutzer Freiheit 5", ZIP: "50667", City: "Köln", BankText: "RHEIN. PRAEZISIONSTECHNIK GMBH"},
	{Name: "Klinikum Würzburg Süd gGmbH", Street: "Klinikstraße 1", ZIP: "97070", City: "Würzburg", BankText: "KLINIKUM WUERZBURG SUED"},
	{Name: "Brightwater Analytics Ltd", Street: "Friedrichstraße 68", ZIP: "10115", City: "Berlin", BankText: "BRIGHTWATER ANALYTICS LTD"},
	{Name: "Bäckerei Groß KG", Street: "Marktplatz 3", ZIP: "48143", City: "Münster", BankText: "BAECKEREI GROSS KG"},
	{Name: "Softwarehaus Südwest GmbH", Street: "Königstraße 20", ZIP: "70173", City: "Stuttgart", BankText: "SOFTWAREHAUS SUEDWEST GMBH"},
	{Name: "Hansa Spedition GmbH", Street: "Überseering 7", ZIP: "28195", City: "Bremen", BankText: "Hansa Spedition GmbH"},
	{Name: "Northwind Trading SE", Street: "Maximilianstraße 30", ZIP: "80331", City: "München", BankText: "NORTHWIND TRADING SE"},
	{Name: "Elektro Köhler e.K.", Street: "Lange Straße 9", ZIP: "04109", City: "Leipzig", BankText: "ELEKTRO KOEHLER EK"},
}

var jobTitles = [][2]string{
	{"Sachbearbeiterin/Sachbearbeiter", "Clerk"}, {"Softwareentwickler/in", "Software Engineer"},
	{"Projektleiter/in", "Project Manager"}, {"Pflegefachkraft", "Registered Nurse"},
	{"Industriemechaniker/in", "Industrial Mechanic"}, {"Kaufmann/Kauffrau", "Sales Associate"},
}

var banks = []struct {
	Name, BLZ, BIC string
}{
	{"Sparkasse KölnBonn", "37050198", "COLSDE33XXX"}, {"Commerzbank AG", "20040000", "COBADEFFXXX"},
	{"Deutsche Bank", "10070000", "DEUTDEBBXXX"}, {"ING-DiBa AG", "50010517", "INGDDEFFXXX"},
	{"DKB Deutsche Kreditbank AG", "12030000", "BYLADEM1001"}, {"Volksbank Lüneburger Heide eG", "24060300", "GENODEF1NBU"},
	{"Postbank", "44010046", "PBNKDEFFXXX"}, {"Stadtsparkasse München", "70150000", "SSKMDEMMXXX"},
}

// newWorld draws the applicant, employment, account, property and financing of a
// case, shaped by its scenarios.
func newWorld(r *rand.Rand, now time.Time, f focus) *world {
	w := &world{r: r, now: now, lang: "de", tmpl: TemplateRealEstate, focus: f}
	if chance(r, 0.4) {
		w.lang = "en"
	}
	if chance(r, 0.3) {
		w.tmpl = TemplateLoan
	}
	w.country = "de"
	if w.lang == "en" {
		w.country = pick(r, []string{"de", "uk", "us"})
	}
	switch f {
	case focusUK:
		w.lang, w.country = "en", "uk"
	case focusUS:
		w.lang, w.country = "en", "us"
	}
	w.scen = drawScenarios(r, w.tmpl)
	if f == focusMerged {
		w.scen[scenMergedUpload] = true
		delete(w.scen, scenMissingDoc)
		delete(w.scen, scenMultiPayslipDoc)
	}
	w.app = newPerson(r, now)
	w.other = newPerson(r, now)
	for w.other.Surname == w.app.Surname {
		w.other = newPerson(r, now)
	}
	w.emp = pick(r, employers)
	switch w.country {
	case "uk":
		w.emp = pick(r, employersUK)
		b := pick(r, banksUK)
		w.acct = account{Bank: b.Name, BIC: b.BIC, Number: digits(r, 8), Code: b.Code}
		w.acct.IBAN = iban("GB", b.BIC[:4]+strings.ReplaceAll(b.Code, "-", "")+w.acct.Number)
	case "us":
		w.emp = pick(r, employersUS)
		b := pick(r, banksUS)
		w.acct = account{Bank: b.Name, Number: digits(r, 10), Code: b.Code}
	default:
		b := pick(r, banks)
		w.acct = account{Bank: b.Name, BIC: b.BIC, IBAN: germanIBAN(b.BLZ, r)}
	}
	w.newJob()
	if w.tmpl == TemplateRealEstate {
		w.newProperty()
	}
	w.newFinancing()
	return w
}

func (w *world) newJob() {
	r, now := w.r, w.now
	j := &w.job
	j.Title = pick(r, jobTitles)[0]
	if w.lang == "en" {
		j.Title = pick(r, jobTitles)[1]
	}
	j.TaxClass = pick(r, []int{1, 1, 3, 4, 4, 5})
	j.PersonnelNo = itoa(10000 + r.IntN(89999))
	if w.scen[scenProbation] {
		j.Start = monthStart(now).AddDate(0, -1-r.IntN(4), 0)
	} else {
		j.Start = monthStart(now).AddDate(-1-r.IntN(14), -r.IntN(12), 0)
		if chance(r, 0.2) {
			j.Start = j.Start.AddDate(0, 0, 14) // a start on the 15th
		}
	}
	j.ProbationMonths = pick(r, []int{3, 6, 6, 6})
	j.ProbationEnd = j.Start.AddDate(0, j.ProbationMonths, -1)
	if w.scen[scenFixedTerm] {
		j.FixedEnd = monthEnd(now.AddDate(0, 4+r.IntN(20), 0))
	}
	base := int64(2600+r.IntN(5800)) * 100
	base -= base % 5000
	j.Base = base
	j.Net = w.payMonth(monthStart(now), base).Net
	if w.country == "us" {
		// Bi-weekly pay: an annual salary in 26 payments, the pay date a Friday six
		// days after the two-week period ends.
		j.Base = base * 12 / 26
		j.Net = w.payMonth(monthStart(now), j.Base).Net
		for _, pd := range w.biweeklyPayDates() {
			pm := w.payMonth(monthStart(pd), j.Base)
			pm.PayDate, pm.To = pd, pd.AddDate(0, 0, -6)
			pm.From = pm.To.AddDate(0, 0, -13)
			j.Months = append(j.Months, pm)
		}
		return
	}
	months := w.payslipMonths()
	for _, m := range months {
		j.Months = append(j.Months, w.payMonth(m, base))
	}
}

// biweeklyPayDates are the pay dates of the pay stubs submitted, oldest first: the
// last Fridays before the submission date, every other week.
func (w *world) biweeklyPayDates() []time.Time {
	last := w.now.AddDate(0, 0, -3-w.r.IntN(7))
	for last.Weekday() != time.Friday {
		last = last.AddDate(0, 0, -1)
	}
	if w.scen[scenOldPayslips] {
		last = last.AddDate(0, 0, -14*(5+w.r.IntN(3)))
	}
	n := 3
	if w.scen[scenTwoPayslips] {
		n = 2
	}
	var out []time.Time
	for i := n - 1; i >= 0; i-- {
		pd := last.AddDate(0, 0, -14*i)
		if !pd.Before(w.job.Start.AddDate(0, 0, 20)) {
			out = append(out, pd)
		}
	}
	return out
}

// payslipMonths are the months of the payslips submitted, oldest first.
func (w *world) payslipMonths() []time.Time {
	newest := monthStart(w.now).AddDate(0, -1, 0)
	if w.now.Day() >= 28 && chance(w.r, 0.3) {
		newest = monthStart(w.now) // this month's payslip is already out
	}
	if w.scen[scenOldPayslips] {
		newest = monthStart(w.now).AddDate(0, -3-w.r.IntN(3), 0)
	}
	ms := []time.Time{newest.AddDate(0, -2, 0), newest.AddDate(0, -1, 0), newest}
	switch {
	case w.scen[scenTwoPayslips]:
		ms = ms[1:]
	case w.scen[scenPayslipGap]:
		ms = []time.Time{newest.AddDate(0, -3, 0), newest.AddDate(0, -2, 0), newest}
	}
	for len(ms) > 0 && ms[0].Before(monthStart(w.job.Start)) {
		ms = ms[1:] // no payslips before the job began
	}
	return ms
}

func (w *world) payMonth(m time.Time, base int64) payMonth {
	r := w.r
	pm := payMonth{Month: m}
	pm.Lines = []payLine{{[2]string{"Gehalt", "Basic salary"}, base}}
	if chance(r, 0.3) {
		pm.Lines = append(pm.Lines, payLine{[2]string{"Vermögenswirksame Leistungen", "Capital-forming benefits"}, 4000})
	}
	if chance(r, 0.25) {
		pm.Lines = append(pm.Lines, payLine{[2]string{"Überstundenvergütung", "Overtime pay"}, int64(5000 + r.IntN(40000))})
	}
	if chance(r, 0.15) {
		pm.Lines = append(pm.Lines, payLine{[2]string{"Fahrtkostenzuschuss", "Travel allowance"}, int64(3000 + r.IntN(6000))})
	}
	for _, l := range pm.Lines {
		pm.Gross += l.Cents
	}
	pct := func(p float64) int64 { return int64(float64(pm.Gross) * p / 100) }
	switch w.country {
	case "uk":
		pm.Deductions = []payLine{
			{[2]string{"", "PAYE Tax"}, max(0, (pm.Gross-104750)*20/100)},
			{[2]string{"", "National Insurance"}, max(0, (pm.Gross-104800)*8/100)},
			{[2]string{"", "Pension"}, pct(5)},
		}
	case "us":
		pm.Deductions = []payLine{
			{[2]string{"", "Federal Income Tax"}, pct(11 + float64(r.IntN(400))/100)},
			{[2]string{"", "Social Security Tax"}, pct(6.2)},
			{[2]string{"", "Medicare Tax"}, pct(1.45)},
			{[2]string{"", pick(r, []string{"NY State Income Tax", "CA State Income Tax", "IL State Income Tax"})}, pct(4)},
		}
	}
	if w.country != "de" {
		// A British or American payroll deducts a garnishment order before the net pay.
		if w.scen[scenGarnishment] && w.garnishOnPayslip() {
			pm.Garnishment = int64(15000 + r.IntN(40000))
			pm.Deductions = append(pm.Deductions, payLine{[2]string{"", tern(w.country == "uk", "Attachment of Earnings", "Wage Garnishment")}, pm.Garnishment})
		}
		pm.Net = pm.Gross
		for _, d := range pm.Deductions {
			pm.Net -= d.Cents
		}
		pm.Payout = pm.Net
		return pm
	}
	taxRate := 9 + float64(pm.Gross)/100/420 + float64(r.IntN(200))/100
	if w.job.TaxClass == 3 {
		taxRate *= 0.6
	}
	tax := pct(taxRate)
	pm.Deductions = []payLine{
		{[2]string{"Lohnsteuer", "Income tax"}, tax},
		{[2]string{"Solidaritätszuschlag", "Solidarity surcharge"}, 0},
	}
	if chance(r, 0.5) {
		pm.Deductions = append(pm.Deductions, payLine{[2]string{"Kirchensteuer", "Church tax"}, tax * 9 / 100})
	}
	pm.Deductions = append(pm.Deductions,
		payLine{[2]string{"Krankenversicherung", "Health insurance"}, pct(8.55)},
		payLine{[2]string{"Pflegeversicherung", "Long-term care insurance"}, pct(1.8)},
		payLine{[2]string{"Rentenversicherung", "Pension insurance"}, pct(9.3)},
		payLine{[2]string{"Arbeitslosenversicherung", "Unemployment insurance"}, pct(1.3)},
	)
	pm.Net = pm.Gross
	for _, d := range pm.Deductions {
		pm.Net -= d.Cents
	}
	if w.scen[scenGarnishment] && w.garnishOnPayslip() {
		pm.Garnishment = int64(15000 + r.IntN(40000))
	}
	pm.Payout = pm.Net - pm.Garnishment
	return pm
}

// garnishOnPayslip: a garnishment shows as a payslip deduction, else on the bank
// statement (decided once per case).
func (w *world) garnishOnPayslip() bool {
	return w.scen[scenGarnishment+":payslip"]
}

func (w *world) newProperty() {
	r := w.r
	p := &property{House: chance(r, 0.35)}
	p.Street, p.ZIP, p.City = address(r)
	p.Area = float64(45+r.IntN(120)) + float64(r.IntN(4))*0.25
	if p.House {
		p.Area += 40
		p.Plot = 250 + r.IntN(700)
	}
	p.Rooms = float64(1+int(p.Area/28)) + float64(r.IntN(2))*0.5
	p.Year = 1900 + r.IntN(124)
	if chance(r, 0.5) {
		p.Year = 1960 + r.IntN(64)
	}
	p.HeatingYear = max(p.Year, 1995+r.IntN(29))
	perSqm := int64(2500 + r.IntN(5500))
	p.Price = int64(p.Area*float64(perSqm)) / 1000 * 1000 * 100
	p.ExposePrice, p.ContractArea, p.Expose = p.Price, p.Area, p.Area
	if chance(r, 0.3) || w.scen[scenPropertyTolerance] {
		// Negotiated down a little from the asking price.
		p.ExposePrice = p.Price * int64(1000+10+r.IntN(25)) / 1000 / 100000 * 100000
	}
	if w.scen[scenPropertyTolerance] {
		p.Expose = roundQuarter(p.Area * (1 + float64(1+r.IntN(3))/100))
	}
	if w.scen[scenPriceMismatch] {
		p.ExposePrice = p.Price * int64(1080+r.IntN(150)) / 1000 / 100000 * 100000
	}
	if w.scen[scenAreaMismatch] {
		p.Expose = roundQuarter(p.Area * (1.08 + float64(r.IntN(12))/100))
	}
	w.prop = p
}

func roundQuarter(v float64) float64 { return float64(int(v*4+0.5)) / 4 }

func (w *world) newFinancing() {
	r := w.r
	f := &financing{}
	if w.prop == nil {
		f.Loan = int64(5+r.IntN(46)) * 1000 * 100
		f.TermMonths = pick(r, []int{36, 48, 60, 72, 84, 96, 120})
		f.RatePercent = 4.9 + float64(r.IntN(400))/100
		f.MonthlyInstallm = f.Loan/int64(f.TermMonths) + f.Loan*int64(f.RatePercent*100)/10000/24
		w.fin = f
		return
	}
	price := w.prop.Price
	ltv := 45 + float64(r.IntN(3500))/100 // up to 80
	switch {
	case w.scen[scenLTV100]:
		ltv = 101 + float64(r.IntN(900))/100
	case w.scen[scenLTV80]:
		ltv = 81.5 + float64(r.IntN(1700))/100
	}
	f.Loan = int64(float64(price)*ltv/100) / 100000 * 100000
	f.Costs = price * int64(85+r.IntN(40)) / 1000 / 100 * 100
	f.Equity = max(0, price+f.Costs-f.Loan)
	f.LTV = float64(int(float64(f.Loan)/float64(price)*1000+0.5)) / 10
	f.StateLTV = chance(r, 0.6)
	if f.StateLTV && chance(r, 0.2) && !w.scen[scenLTV100] && !w.scen[scenLTV80] {
		// The bank's lending value, below the price: the stated ratio is higher.
		f.LendingValue = price * int64(88+r.IntN(8)) / 100 / 100000 * 100000
		f.LTV = float64(int(float64(f.Loan)/float64(f.LendingValue)*1000+0.5)) / 10
	}
	f.FixedYears = pick(r, []int{5, 10, 10, 15, 15, 20})
	f.RatePercent = 3.1 + float64(r.IntN(150))/100
	f.MonthlyInstallm = f.Loan * int64((f.RatePercent+2)*100) / 10000 / 12
	w.fin = f
}

// germanIBAN builds a valid German IBAN (ISO 13616 check digits) for the bank code.
func germanIBAN(blz string, r *rand.Rand) string {
	acct := ""
	for range 10 {
		acct += string(rune('0' + r.IntN(10)))
	}
	bban := blz + acct
	// Check digits: 98 − (BBAN + "DE00" as digits) mod 97; D=13, E=14.
	rem := 0
	for _, c := range bban + "131400" {
		rem = (rem*10 + int(c-'0')) % 97
	}
	check := 98 - rem
	return "DE" + string(rune('0'+check/10)) + string(rune('0'+check%10)) + bban
}

// iban builds an IBAN (ISO 13616) for the country and basic bank account number:
// letters count as 10–35, the check digits make the whole number 1 modulo 97.
func iban(country, bban string) string {
	rem := 0
	for _, c := range bban + country + "00" {
		switch {
		case c >= '0' && c <= '9':
			rem = (rem*10 + int(c-'0')) % 97
		default:
			rem = (rem*100 + int(c-'A') + 10) % 97
		}
	}
	check := 98 - rem
	return country + string(rune('0'+check/10)) + string(rune('0'+check%10)) + bban
}

func digits(r *rand.Rand, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('0' + r.IntN(10))
	}
	return string(b)
}

var employersUK = []employer{
	{Name: "Harbourside Engineering Ltd", Street: "14 Quay Street", ZIP: "BS1 4DJ", City: "Bristol", BankText: "HARBOURSIDE ENG LTD"},
	{Name: "Pennine Health Services Ltd", Street: "2 Wellington Road", ZIP: "LS1 4AP", City: "Leeds", BankText: "PENNINE HEALTH SVCS"},
	{Name: "Thames Valley Software plc", Street: "30 Broad Street", ZIP: "RG1 2AP", City: "Reading", BankText: "THAMES VALLEY SOFTWA"},
}

var employersUS = []employer{
	{Name: "Lakeshore Logistics Inc.", Street: "200 W Adams St", ZIP: "IL 60606", City: "Chicago", BankText: "LAKESHORE LOGISTICS PAYROLL"},
	{Name: "Cascade Medical Group LLC", Street: "1200 5th Ave", ZIP: "WA 98101", City: "Seattle", BankText: "CASCADE MEDICAL GRP DIR DEP"},
	{Name: "Bluebonnet Energy Corp.", Street: "811 Main St", ZIP: "TX 77002", City: "Houston", BankText: "BLUEBONNET ENERGY PAYROLL"},
}

var banksUK = []struct{ Name, BIC, Code string }{
	{"Barclays Bank UK PLC", "BUKBGB22", "20-45-77"}, {"Lloyds Bank plc", "LOYDGB2L", "30-94-57"}, {"NatWest", "NWBKGB2L", "60-16-13"},
}

var banksUS = []struct{ Name, Code string }{
	{"First Lakes National Bank", "071000013"}, {"Pacific Crest Bank, N.A.", "125000024"}, {"Lone Star Community Bank", "111000025"},
}
