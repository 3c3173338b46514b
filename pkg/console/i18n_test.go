package console

import (
	"io/fs"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Every message a template or handler names exists in English and German (loadCatalog
// already refuses a key that only one language has).
func TestMessagesExist(t *testing.T) {
	msgs, err := loadCatalog()
	if err != nil {
		t.Fatal(err)
	}
	uses := regexp.MustCompile(`\bt "([a-z_.]+)"|"((?:error|login|decision|clients|keys|viewer|sso|events|queue)\.[a-z_.]+)"`)
	prefixes := regexp.MustCompile(`\btk "([a-z_.]+\.)"`)
	var sources []string
	_ = fs.WalkDir(templateFS, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := fs.ReadFile(templateFS, p)
			sources = append(sources, string(b))
		}
		return nil
	})
	goFiles, _ := filepath.Glob("*.go")
	for _, f := range goFiles {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sources = append(sources, string(b))
	}
	checked := 0
	for _, src := range sources {
		for _, m := range uses.FindAllStringSubmatch(src, -1) {
			key := m[1] + m[2]
			if strings.HasSuffix(key, ".") {
				continue // a prefix built on in code
			}
			checked++
			for lang := range msgs {
				if _, ok := msgs[lang][key]; !ok {
					t.Errorf("%s lacks %q", lang, key)
				}
			}
		}
		for _, m := range prefixes.FindAllStringSubmatch(src, -1) {
			found := false
			for k := range msgs["en"] {
				found = found || strings.HasPrefix(k, m[1])
			}
			if !found {
				t.Errorf("no message starts with %q", m[1])
			}
		}
	}
	if checked < 100 {
		t.Fatalf("only %d message uses found: the scan is broken", checked)
	}
	// The known values of every enum the pages translate have a message.
	for prefix, values := range map[string][]string{
		"status.": submissionStatuses, "outcome.": outcomes, "recommendation.": recommendations, "risk.": riskBands, "age.": ages,
	} {
		for _, v := range values {
			if _, ok := msgs["en"][prefix+v]; !ok {
				t.Errorf("no message %s%s", prefix, v)
			}
		}
	}
}

func TestRequestLanguage(t *testing.T) {
	for _, tc := range []struct{ accept, cookie, want string }{
		{"", "", "en"},
		{"de-DE,de;q=0.9,en;q=0.8", "", "de"},
		{"fr-FR,fr;q=0.9", "", "en"},
		{"en-GB", "de", "de"},
		{"de", "en", "en"},
		{"de", "xx", "de"},
	} {
		r := httptest.NewRequest("GET", "/", nil)
		r.Header.Set("Accept-Language", tc.accept)
		if tc.cookie != "" {
			r.Header.Set("Cookie", langCookie+"="+tc.cookie)
		}
		if got := requestLang(r); got != tc.want {
			t.Errorf("Accept-Language %q, cookie %q: %s, want %s", tc.accept, tc.cookie, got, tc.want)
		}
	}
}

// Redirects after sign-in or a language switch never leave the console.
func TestLocalPath(t *testing.T) {
	for in, want := range map[string]string{
		"/queue?status=completed": "/queue?status=completed",
		"":                        "/",
		"https://evil.example/":   "/",
		"//evil.example/":         "/",
		"/\\evil.example":         "/",
		"queue":                   "/",
		"/ok\r\nSet-Cookie: x=y":  "/",
		"javascript:alert(1)":     "/",
		"/./\\evil.example":       "/",
		"/\t/evil.example":        "/",
		"/%09/evil.example":       "/%09/evil.example",
		"/a/../../b":              "/a/../../b",
		"/.//evil.example":        "/.//evil.example",
		"/ok path":                "/",
	} {
		if got := localPath(in, "/"); got != want {
			t.Errorf("localPath(%q) = %q, want %q", in, got, want)
		}
	}
}

// X-Forwarded-For is believed only from trusted proxies, read from the right.
func TestClientIP(t *testing.T) {
	proxies, err := parseProxies("10.0.0.0/8, 192.0.2.7")
	if err != nil {
		t.Fatal(err)
	}
	a := &app{proxies: proxies}
	for _, tc := range []struct{ peer, xff, want string }{
		{"203.0.113.9:5000", "", "203.0.113.9"},
		{"203.0.113.9:5000", "198.51.100.1", "203.0.113.9"},          // an untrusted peer's header is ignored
		{"10.1.2.3:5000", "198.51.100.1", "198.51.100.1"},            // the ingress names the client
		{"10.1.2.3:5000", "6.6.6.6, 198.51.100.1", "198.51.100.1"},   // a forged hop further left is not read
		{"10.1.2.3:5000", "198.51.100.1, 192.0.2.7", "198.51.100.1"}, // two trusted proxies
		{"10.1.2.3:5000", "garbage, 10.9.9.9", "10.9.9.9"},           // nothing left of a malformed hop
		{"[::ffff:10.1.2.3]:5000", "198.51.100.1", "198.51.100.1"},   // IPv4-mapped peer
	} {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = tc.peer
		if tc.xff != "" {
			r.Header.Set("X-Forwarded-For", tc.xff)
		}
		if got := a.clientIP(r); got != tc.want {
			t.Errorf("peer %s, X-Forwarded-For %q: %s, want %s", tc.peer, tc.xff, got, tc.want)
		}
	}
	if _, err := parseProxies("10.0.0.0/33"); err == nil {
		t.Error("a bad CIDR is accepted")
	}
	if got := cleanText("ab\x00c\xffdé", 6); got != "abc\uFFFD" {
		t.Errorf("cleanText: %q", got)
	}
}
