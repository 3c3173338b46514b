package corpus

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestCheckDigit(t *testing.T) {
	t.Parallel()
	// ICAO 9303 specimen values.
	require.Equal(t, byte('6'), checkDigit("L898902C3"))
	require.Equal(t, byte('2'), checkDigit("740812"))
	require.Equal(t, byte('9'), checkDigit("120415"))
	require.Equal(t, byte('0'), checkDigit("<<<<<<<<<<<<<<"))
	require.Equal(t, byte('?'), checkDigit("L898 02C3"))
	// The specimen passport of ICAO 9303 part 4.
	specimen := []string{"P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<", "L898902C36UTO7408122F1204159ZE184226B<<<<<10"}
	require.True(t, ValidMRZ(specimen))
	p := person{Given: []string{"Jürgen"}, Surname: "Müller-Lüdenscheidt", DOB: day(1985, 3, 12)}
	lines := td1("ID", "L01X00T47", "D", "D", p, day(2031, 5, 11))
	require.Len(t, lines, 3)
	for _, l := range lines {
		require.Len(t, l, 30)
	}
	require.Equal(t, "MUELLER<LUEDENSCHEIDT<<JUERGEN", lines[2])
	require.True(t, ValidMRZ(lines))
	require.False(t, ValidMRZ(spoilCheckDigit(lines)))
	require.False(t, ValidMRZ([]string{lines[0], lines[1]}))
	permit := td1("AR", "Y01X00T47", "D", "TUR", p, day(2031, 5, 11))
	require.Equal(t, "ARD", permit[0][:3])
	require.True(t, ValidMRZ(permit))
	pass := td3("C01X00T47", "D", "D", p, day(2031, 5, 11))
	require.Len(t, pass[1], 44)
	require.True(t, ValidMRZ(pass))
}

func TestSameName(t *testing.T) {
	t.Parallel()
	require.True(t, SameName("Jürgen Andreas Müller-Lüdenscheidt", "Juergen Mueller-Luedenscheidt"))
	require.True(t, SameName("Ömer Şahin", "Oemer Sahin"))
	require.False(t, SameName("Ömer Şahin", "Björn Weiß"))
}

// The same seed gives the same corpus, with truth for every case.
func TestGenerateDeterministic(t *testing.T) {
	t.Parallel()
	now := time.Date(2025, 11, 14, 0, 0, 0, 0, time.UTC)
	a, b := Generate(7, now, 1), Generate(7, now, 1)
	require.Len(t, a, 1)
	for i := range a {
		require.Equal(t, len(a[i].Docs), len(b[i].Docs))
		for j := range a[i].Docs {
			require.True(t, bytes.Equal(a[i].Docs[j].Bytes, b[i].Docs[j].Bytes), a[i].Docs[j].Name)
		}
		require.NotEmpty(t, a[i].Checks)
		require.NotEmpty(t, a[i].Fields)
		require.NoError(t, a[i].Write(t.TempDir()))
	}
}

// The corpus's truth must not come from the engine it measures: no package under
// pkg/engine may be among its dependencies.
func TestIndependentOfEngine(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-deps", ".", "../../../services/corpus").Output()
	require.NoError(t, err)
	for _, dep := range strings.Fields(string(out)) {
		require.False(t, strings.HasPrefix(dep, "github.com/doceval/doceval/pkg/engine"), "pkg/devtools/corpus depends on %s", dep)
	}
	// The test files too: a test helper importing the engine would let its rules creep back.
	out, err = exec.Command("go", "list", "-f", `{{join .TestImports " "}} {{join .XTestImports " "}}`, ".").Output()
	require.NoError(t, err)
	require.NotContains(t, string(out), "github.com/doceval/doceval/pkg/engine")
}

func TestIBAN(t *testing.T) {
	t.Parallel()
	// The example IBANs of the British and German registries.
	require.Equal(t, "GB82WEST12345698765432", iban("GB", "WEST12345698765432"))
	require.Equal(t, "DE89370400440532013000", iban("DE", "370400440532013000"))
}

func TestMoneyFormats(t *testing.T) {
	t.Parallel()
	require.Equal(t, "3.250,00", money(325000, "de"))
	require.Equal(t, "3,250.00", money(325000, "en"))
	require.Equal(t, "-0,05", money(-5, "de"))
	require.Equal(t, map[string]any{"a": map[string]string{"amount": "-0.05", "currency": "GBP"}, "b": "2025-03-01"},
		JSONValues(map[string]any{"a": Money{-5, "GBP"}, "b": day(2025, 3, 1)}))
}
