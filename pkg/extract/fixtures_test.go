package extract

import (
	"archive/zip"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/doceval/doceval/pkg/testkit/samplepdf"
)

func makePDF(pages [][]string) []byte { return samplepdf.Text(pages) }

func imagePDF(jpegs [][]byte, w, h, dpi int) []byte { return samplepdf.Scan(jpegs, w, h, dpi) }

// scanOf renders the pages of a text PDF to grayscale JPEGs at dpi, as a scanner would.
func scanOf(t testing.TB, pdfBytes []byte, dpi int) (jpegs [][]byte, w, h int) {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join(dir, "in.pdf")
	if err := os.WriteFile(src, pdfBytes, 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("pdftoppm", "-r", fmt.Sprint(dpi), "-gray", "-jpeg", src, filepath.Join(dir, "p")).CombinedOutput()
	if err != nil {
		t.Fatalf("pdftoppm: %v %s", err, out)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "p-*.jpg"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		jpegs = append(jpegs, b)
	}
	return jpegs, 612 * dpi / 72, 792 * dpi / 72
}

// makeDOCX writes a Word document: paragraphs, with a page break before each page
// after the first. The main part is found through _rels/.rels, so it is put in an
// unusual place to prove it.
func makeDOCX(t testing.TB, pages [][]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	add := func(name, body string) {
		w, err := z.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(body))
	}
	add("[Content_Types].xml", `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Override PartName="/word/main.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`)
	add("_rels/.rels", `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/main.xml"/></Relationships>`)
	var body strings.Builder
	for i, lines := range pages {
		for j, l := range lines {
			body.WriteString("<w:p>")
			if i > 0 && j == 0 {
				body.WriteString(`<w:r><w:br w:type="page"/></w:r>`)
			}
			fmt.Fprintf(&body, "<w:r><w:t>%s</w:t></w:r></w:p>", l)
		}
	}
	add("word/main.xml", `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>`+body.String()+`</w:body></w:document>`)
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func writeTemp(t testing.TB, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// inJob gives a test that calls the OCR steps directly what File gives them: a job
// (removed when the test ends) holding a copy of the file at path, and a scratch
// directory in it.
func inJob(t testing.TB, opt Options, path string) (_ Options, in, dir string) {
	t.Helper()
	j, err := newJob(opt.TempDir, opt.Limits.withDefaults().Confinement)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(j.remove)
	opt.job = j
	if in, err = j.copyIn(path); err != nil {
		t.Fatal(err)
	}
	if dir, err = opt.scratch(); err != nil {
		t.Fatal(err)
	}
	return opt, in, dir
}
