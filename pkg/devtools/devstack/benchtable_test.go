package devstack

import (
	"strings"
	"testing"
)

func TestBenchTable(t *testing.T) {
	in := `goos: linux
BenchmarkSubmissionWrite/direct_pgx-2         	    3000	    400000 ns/op	  2500 writes/s
BenchmarkSubmissionWrite/api-2                	    1000	   1000000 ns/op
PASS
`
	var out strings.Builder
	if err := BenchTable(strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{"direct_pgx", "baseline", "2500", "1000", "0.40x"} {
		if !strings.Contains(got, want) {
			t.Errorf("table lacks %q:\n%s", want, got)
		}
	}
	if err := BenchTable(strings.NewReader("PASS\n"), &out); err == nil {
		t.Error("no results: want an error")
	}
}

func TestEnvFileRoundTrip(t *testing.T) {
	path := t.TempDir() + "/dev.env"
	in := map[string]string{"DOCEVAL_BASE_URL": "http://127.0.0.1:8080", "DOCEVAL_API_KEY": "dek_x", "DATABASE_URL": "postgres://p@127.0.0.1:5/db?sslmode=disable", "NATS_URL": "nats://it's"}
	if err := writeEnvFile(path, in); err != nil {
		t.Fatal(err)
	}
	got := readEnvFile(path)
	for k, v := range in {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
}
