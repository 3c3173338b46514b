package extract

import (
	"bytes"
	"strconv"
	"strings"
)

// fastBBox reads pdftotext -bbox-layout's XHTML in the one form poppler writes it, a
// line per element, as parseBBox reads it (the same pages, through bboxBuilder) at a
// tenth of encoding/xml's cost. Where b departs from that form in anything (a
// character xmlSafe would replace, an entity other than XML's five, a line break or
// carriage return in a word, another element or attribute, a nesting other than
// html > body > doc > page > flow > block > line > word), ok is false and nothing is
// read: parseBBox reads it then.
func fastBBox(b []byte, maxPages int) (pages []bboxPage, ok bool) {
	if len(b) == 0 || &xmlSafe(b)[0] != &b[0] {
		return nil, false
	}
	rest, ok := bytes.CutPrefix(b, []byte(bboxPreamble))
	if !ok {
		return nil, false
	}
	if rest, ok = skipBBoxHead(rest); !ok {
		return nil, false
	}
	bb := bboxBuilder{maxPages: maxPages}
	// open is the nesting of the open elements below doc: page, flow, block, line.
	open := make([]string, 0, 4)
	for len(rest) > 0 {
		line, next, found := bytes.Cut(rest, []byte("\n"))
		if !found {
			return nil, false
		}
		rest = next
		tag := string(bytes.TrimLeft(line, " "))
		if strings.HasPrefix(tag, "</") {
			name := strings.TrimSuffix(strings.TrimPrefix(tag, "</"), ">")
			if tag != "</"+name+">" {
				return nil, false
			}
			if name == "doc" && len(open) == 0 {
				if string(rest) != "</body>\n</html>\n" {
					return nil, false
				}
				return bb.end(), true
			}
			if len(open) == 0 || open[len(open)-1] != name {
				return nil, false
			}
			open = open[:len(open)-1]
			if name == "line" {
				bb.ln.end(bb.cur)
			}
			continue
		}
		name, attrs, ok := strings.Cut(strings.TrimPrefix(tag, "<"), " ")
		if tag == "<flow>" {
			name, attrs, ok = "flow", ">", true
		}
		var want []string // the element's attributes, in poppler's order
		switch name {
		case "page":
			want = []string{"width", "height"}
		case "block", "line", "word":
			want = []string{"xMin", "yMin", "xMax", "yMax"}
		}
		// Each element stands one level below the one before: page in doc, flow in
		// page, block in flow, line in block, word in line.
		if !ok || !strings.HasPrefix(tag, "<") || len(open) >= len(bboxNesting) || bboxNesting[len(open)] != name {
			return nil, false
		}
		values := make([]float64, len(want))
		for i, a := range want {
			v, after, found := strings.Cut(strings.TrimPrefix(attrs, a+`="`), `"`)
			if !found || !strings.HasPrefix(attrs, a+`="`) || strings.ContainsAny(v, "&<") {
				return nil, false
			}
			if f, err := strconv.ParseFloat(v, 64); err == nil {
				values[i] = f // as attrFloat reads it
			}
			attrs = strings.TrimPrefix(after, " ")
			if i < len(want)-1 && len(after) > 0 && after[0] != ' ' {
				return nil, false
			}
		}
		if name == "word" {
			text, ok := bboxWordText(attrs)
			if !ok {
				return nil, false
			}
			if len(text) > maxWordBytes {
				text = ""
			}
			bb.word(text, values[0], values[1], values[2], values[3])
			continue
		}
		if attrs != ">" {
			return nil, false
		}
		open = append(open, name)
		switch name {
		case "page":
			if !bb.page(values[0], values[1]) {
				return bb.pages, true
			}
		case "flow":
			bb.flow++
		case "line":
			bb.startLine()
		}
	}
	return nil, false
}

// bboxNesting: the element each level below doc holds.
var bboxNesting = []string{"page", "flow", "block", "line", "word"}

// bboxPreamble is how poppler's bbox XHTML begins.
const bboxPreamble = `<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd"><html xmlns="http://www.w3.org/1999/xhtml">` + "\n<head>\n"

// skipBBoxHead passes over the head after bboxPreamble: title and meta elements, each
// on lines of its own, whose text has only XML's five entities and no markup, then
// the body's start; ok is false where the head is in any other form.
func skipBBoxHead(b []byte) (rest []byte, ok bool) {
	for {
		if rest, ok = bytes.CutPrefix(b, []byte("</head>\n<body>\n<doc>\n")); ok {
			return rest, true
		}
		var text []byte
		switch {
		case bytes.HasPrefix(b, []byte("<title>")):
			text, b, ok = bytes.Cut(b[len("<title>"):], []byte("</title>\n"))
		case bytes.HasPrefix(b, []byte(`<meta name="`)):
			var name []byte
			name, b, ok = bytes.Cut(b[len(`<meta name="`):], []byte(`" content="`))
			if !ok || !plainName(name) {
				return nil, false
			}
			text, b, ok = bytes.Cut(b, []byte("\"/>\n"))
		default:
			return nil, false
		}
		if !ok || bytes.ContainsAny(text, `<>"`) {
			return nil, false
		}
		if _, ok := unescapeXML(string(text)); !ok {
			return nil, false
		}
	}
}

func plainName(b []byte) bool {
	for _, c := range b {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			return false
		}
	}
	return len(b) > 0
}

// bboxWordText is the text of a word element from after its attributes (">TEXT</word>"),
// its entities replaced; ok is false for any other form, or a carriage return, which
// XML reads as a line break.
func bboxWordText(s string) (string, bool) {
	text, ok := strings.CutPrefix(s, ">")
	if !ok {
		return "", false
	}
	if text, ok = strings.CutSuffix(text, "</word>"); !ok || strings.ContainsAny(text, "<\r") {
		return "", false
	}
	return unescapeXML(text)
}

// unescapeXML replaces XML's five entities in s; ok is false for any other "&".
func unescapeXML(s string) (string, bool) {
	if !strings.Contains(s, "&") {
		return s, true
	}
	var b strings.Builder
	for {
		before, after, found := strings.Cut(s, "&")
		b.WriteString(before)
		if !found {
			return b.String(), true
		}
		name, rest, found := strings.Cut(after, ";")
		r, known := xmlEntities[name]
		if !found || !known {
			return "", false
		}
		b.WriteString(r)
		s = rest
	}
}

var xmlEntities = map[string]string{"amp": "&", "lt": "<", "gt": ">", "quot": `"`, "apos": "'"}
