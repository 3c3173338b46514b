package corpus

import (
	"github.com/doceval/doceval/pkg/engine/mrz"

	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestCheckDigit(t *testing.T) {
	t.Parallel()
	// ICAO 9303 specimen values.
	require.Equal(t, byte('6'), mrz.CheckDigit("L898902C3"))
	require.Equal(t, byte('2'), mrz.CheckDigit("740812"))
	p := person{Given: []string{"Jürgen"}, Surname: "Müller-Lüdenscheidt", DOB: day(1985, 3, 12)}
	lines := td1("L01X00T47", "D", "D", p, day(2031, 5, 11))
	require.Len(t, lines, 3)
	for _, l := range lines {
		require.Len(t, l, 30)
	}
	require.Equal(t, "MUELLER<LUEDENSCHEIDT<<JUERGEN", lines[2])
	require.True(t, ValidMRZ(lines))
	require.False(t, ValidMRZ(spoilCheckDigit(lines)))
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
