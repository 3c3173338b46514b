package console

import (
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"path"
	"sort"
	"strings"

	"golang.org/x/text/language"
)

// The UI speaks English and German. The language is the browser's (Accept-Language)
// until the operator picks one (the lang cookie). Messages live in locales/<lang>/*.json,
// one file per part of the console; a key defined twice, or in one language only, stops
// the console from starting (and fails its tests).

//go:embed locales
var localeFS embed.FS

var languages = []language.Tag{language.English, language.German}

var langMatcher = language.NewMatcher(languages)

const langCookie = "doceval_lang"

// catalog maps a language ("en", "de") to its messages.
type catalog map[string]map[string]string

func loadCatalog() (catalog, error) {
	c := catalog{}
	for _, tag := range languages {
		lang := tag.String()
		msgs := map[string]string{}
		files, err := fs.Glob(localeFS, path.Join("locales", lang, "*.json"))
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			b, err := localeFS.ReadFile(f)
			if err != nil {
				return nil, err
			}
			var part map[string]string
			if err := json.Unmarshal(b, &part); err != nil {
				return nil, fmt.Errorf("%s: %w", f, err)
			}
			for k, v := range part {
				if _, dup := msgs[k]; dup {
					return nil, fmt.Errorf("%s: message %q defined twice", f, k)
				}
				msgs[k] = v
			}
		}
		c[lang] = msgs
	}
	var missing []string
	for lang, msgs := range c {
		for other, otherMsgs := range c {
			for k := range otherMsgs {
				if _, ok := msgs[k]; !ok {
					missing = append(missing, fmt.Sprintf("%s lacks %q (defined in %s)", lang, k, other))
				}
			}
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return nil, fmt.Errorf("locales: %s", strings.Join(missing, "; "))
	}
	return c, nil
}

// translate returns the message for key in lang, formatted with args (fmt verbs); an
// unknown key comes back as itself, marked, so a missing message shows in the page
// and in tests rather than silently.
func (c catalog) translate(lang, key string, args ...any) string {
	msg, ok := c[lang][key]
	if !ok {
		return "!" + key
	}
	if len(args) > 0 {
		return fmt.Sprintf(msg, args...)
	}
	return msg
}

// requestLang picks the request's language: the cookie, else Accept-Language, else English.
func requestLang(r *http.Request) string {
	if c, err := r.Cookie(langCookie); err == nil && (c.Value == "en" || c.Value == "de") {
		return c.Value
	}
	tags, _, _ := language.ParseAcceptLanguage(r.Header.Get("Accept-Language"))
	_, i, _ := langMatcher.Match(tags...)
	return languages[i].String()
}
