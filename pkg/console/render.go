package console

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"path"
	"strings"
	"time"

	"github.com/doceval/doceval/pkg/store"
)

//go:embed templates
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// view is what every page template gets: the page's own data in .Data, and what the
// layout needs (who is signed in, the form token, the language).
type view struct {
	Page string
	Lang string
	Op   *store.Operator
	CSRF string
	Path string
	Data any
}

// IsAdmin says whether the signed-in operator is an admin (for the navigation).
func (v view) IsAdmin() bool { return v.Op != nil && v.Op.Role == store.RoleAdmin }

// parsePages parses every page (templates/*.html other than layout.html and the
// partials partial_*.html) with the layout and the partials, once per language: t in a template
// translates into that language.
func parsePages(msgs catalog) (map[string]map[string]*template.Template, error) {
	files, err := fs.Glob(templateFS, "templates/*.html")
	if err != nil {
		return nil, err
	}
	shared := []string{"templates/layout.html"}
	var pages []string
	for _, f := range files {
		switch base := path.Base(f); {
		case base == "layout.html":
		case strings.HasPrefix(base, "partial_"):
			shared = append(shared, f)
		default:
			pages = append(pages, f)
		}
	}
	out := map[string]map[string]*template.Template{}
	for lang := range msgs {
		out[lang] = map[string]*template.Template{}
		base, err := template.New("layout.html").Funcs(templateFuncs(msgs, lang)).ParseFS(templateFS, shared...)
		if err != nil {
			return nil, err
		}
		for _, p := range pages {
			t, err := template.Must(base.Clone()).ParseFS(templateFS, p)
			if err != nil {
				return nil, err
			}
			out[lang][strings.TrimSuffix(path.Base(p), ".html")] = t
		}
	}
	return out, nil
}

func templateFuncs(msgs catalog, lang string) template.FuncMap {
	return template.FuncMap{
		"t": func(key string, args ...any) string { return msgs.translate(lang, key, args...) },
		// tk translates a key built from a prefix and a value (an enum), falling back to
		// the value itself for values the catalog does not know (open enums).
		"tk": func(prefix, value string) string {
			if msg, ok := msgs[lang][prefix+value]; ok {
				return msg
			}
			return value
		},
		"time": func(t any) string {
			switch v := t.(type) {
			case time.Time:
				return formatTime(v, lang)
			case *time.Time:
				if v == nil {
					return "—"
				}
				return formatTime(*v, lang)
			}
			return ""
		},
		"percent": func(f float64) string { return fmt.Sprintf("%.0f %%", f*100) },

		"indentJSON": func(raw []byte) string {
			var b bytes.Buffer
			if json.Indent(&b, raw, "", "  ") != nil {
				return string(raw)
			}
			return b.String()
		},
		"contains": func(list []string, s string) bool {
			for _, x := range list {
				if x == s {
					return true
				}
			}
			return false
		},
		"deref": func(s *string) string {
			if s == nil {
				return ""
			}
			return *s
		},
		// dict passes several values to a partial: dict "Key" value "Key2" value2.
		"dict": func(kv ...any) (map[string]any, error) {
			if len(kv)%2 != 0 {
				return nil, fmt.Errorf("dict: odd number of arguments")
			}
			m := map[string]any{}
			for i := 0; i < len(kv); i += 2 {
				k, ok := kv[i].(string)
				if !ok {
					return nil, fmt.Errorf("dict: key %v is not a string", kv[i])
				}
				m[k] = kv[i+1]
			}
			return m, nil
		},
	}
}

func formatTime(t time.Time, lang string) string {
	if t.IsZero() {
		return "—"
	}
	t = t.UTC()
	if lang == "de" {
		return t.Format("02.01.2006 15:04") + " UTC"
	}
	return t.Format("2006-01-02 15:04") + " UTC"
}

// render writes a page. Pages are never cached: they show live state and, for keys,
// secrets shown once.
func (a *app) render(w http.ResponseWriter, r *http.Request, status int, page string, data any) {
	lang := requestLang(r)
	v := view{Page: page, Lang: lang, Path: r.URL.Path, Data: data}
	if rs := stateOf(r.Context()); rs != nil {
		v.Op, v.CSRF = &rs.op, rs.sess.CSRFToken
	}
	t, ok := a.pages[lang][page]
	if !ok {
		http.Error(w, "no page "+page, http.StatusInternalServerError)
		return
	}
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, "layout.html", v); err != nil {
		a.log.Error("render page", "page", page, "error", err)
		http.Error(w, http.StatusText(http.StatusInternalServerError), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// staticHandler serves the embedded stylesheet and scripts.
func staticHandler() http.Handler {
	sub, _ := fs.Sub(staticFS, "static")
	files := http.FileServer(http.FS(sub))
	return http.StripPrefix("/static/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=3600")
		files.ServeHTTP(w, r)
	}))
}
