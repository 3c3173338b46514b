package config

import (
	"fmt"
	"testing"
)

func TestParseProxies(t *testing.T) {
	t.Parallel()
	got, err := ParseProxies(" 10.0.0.0/8, 192.0.2.1 ,2001:db8::/32,,::ffff:192.0.2.2")
	if err != nil {
		t.Fatal(err)
	}
	if want := "[10.0.0.0/8 192.0.2.1/32 2001:db8::/32 192.0.2.2/32]"; fmt.Sprint(got) != want {
		t.Errorf("got %v, want %s", got, want)
	}
	for _, bad := range []string{"10.0.0.0/33", "example.com", "10.0.0.1/8/8", "fe80::1%eth0", "*"} {
		if _, err := ParseProxies(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
