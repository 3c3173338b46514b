package mrz

import "testing"

func TestMRZCheckDigits(t *testing.T) {
	t.Parallel()
	// The specimen documents of ICAO 9303.
	td1 := "I<UTOD231458907<<<<<<<<<<<<<<<\n7408122F1204159UTO<<<<<<<<<<<6\nERIKSSON<<ANNA<MARIA<<<<<<<<<<"
	td3 := "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<\nL898902C36UTO7408122F1204159ZE184226B<<<<<10"
	for name, tc := range map[string]struct {
		text            string
		valid, complete bool
	}{
		"td1":               {td1, true, true},
		"td3":               {td3, true, true},
		"td1 wrong number":  {"I<UTOD231458908<<<<<<<<<<<<<<<\n7408122F1204159UTO<<<<<<<<<<<6\nERIKSSON<<ANNA<MARIA<<<<<<<<<<", false, true},
		"td3 wrong expiry":  {"P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<\nL898902C36UTO7408122F1204169ZE184226B<<<<<10", false, true},
		"spaces tolerated":  {"I<UTO D23145890 7<<<<<<<<<<<<<<<\n7408122F1204159UTO<<<<<<<<<<<6\nERIKSSON<<ANNA<MARIA<<<<<<<<<<", true, true},
		"ocr damage":        {"I<UTOD23145890«<<<<<<<<<<<<<<<\n7408122F1204159UTO<<<<<<<<<<<6", false, false},
		"truncated":         {"I<UTOD231458907<<<<<<<\n7408122F1204159", false, false},
		"not an mrz at all": {"Gültig bis 01.02.2030", false, false},
	} {
		valid, complete := Verify(Lines(tc.text))
		if valid != tc.valid || complete != tc.complete {
			t.Errorf("%s: valid %v complete %v, want %v %v", name, valid, complete, tc.valid, tc.complete)
		}
	}
	if CheckDigit("L898902C3") != '6' || CheckDigit("740812") != '2' {
		t.Error("check digits of the ICAO specimen")
	}
}
