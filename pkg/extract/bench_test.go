package extract

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

func benchPDF(pages int) []byte {
	var ps [][]string
	for i := range pages {
		ps = append(ps, []string{
			fmt.Sprintf("Kontoauszug Nr. %d / 2026", i+1),
			"Buchungstag  Verwendungszweck                      Betrag",
			"02.01.2026   Gehalt Januar Beispiel GmbH         3.250,00",
			"03.01.2026   Miete Wohnung Koeln                 -1.150,00",
			"05.01.2026   Lastschrift Stadtwerke                -84,20",
			fmt.Sprintf("Saldo neu                                        %d.120,55", 10+i),
		})
	}
	return makePDF(ps)
}

func run1(b *testing.B, name string, args ...string) {
	if out, err := exec.Command(name, args...).CombinedOutput(); err != nil {
		b.Fatalf("%s: %v %s", name, err, out)
	}
}

// BenchmarkTextPDF: a 20-page text PDF, one pdftotext -bbox-layout run directly (the
// baseline) versus the extractor, which reads text, boxes, page count and document
// information from one such run in the sandbox, the PDF handed on standard input to a
// sandbox made ahead of need. Between them: pdftotext -layout directly (the plain text
// alone), the -bbox-layout run in a sandbox made for it (what the confinement costs a
// run on its critical path), and the same run as the extractor makes it, from a
// sandbox made ahead (the extractor's floor).
func BenchmarkTextPDF(b *testing.B) {
	if err := CheckTools(); err != nil {
		b.Skip(err)
	}
	path := writeTemp(b, "text.pdf", benchPDF(20))
	b.Run("pdftotext_bbox_direct", func(b *testing.B) {
		for b.Loop() {
			run1(b, "pdftotext", "-bbox-layout", "-enc", "UTF-8", path, os.DevNull)
		}
	})
	b.Run("pdftotext_layout_direct", func(b *testing.B) {
		for b.Loop() {
			run1(b, "pdftotext", "-layout", "-enc", "UTF-8", path, os.DevNull)
		}
	})
	b.Run("pdftotext_bbox_sandbox_made_for_it", func(b *testing.B) {
		opt := Options{}.withDefaults()
		j, err := newJob(opt.TempDir, opt.Limits.withDefaults().Confinement)
		if err != nil {
			b.Fatal(err)
		}
		defer j.remove()
		in, err := j.copyIn(path)
		if err != nil {
			b.Fatal(err)
		}
		opt.job = j
		for b.Loop() {
			if _, err := run(context.Background(), opt, opt.MaxOutputBytes, "pdftotext", "-bbox-layout", "-enc", "UTF-8", in, "-"); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("pdftotext_bbox_sandboxed", func(b *testing.B) {
		opt := Options{}.withDefaults()
		for b.Loop() {
			if _, err := runOn(context.Background(), opt, opt.MaxOutputBytes, path, "pdftotext", "-bbox-layout", "-enc", "UTF-8", "-", "-"); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("extract", func(b *testing.B) {
		for b.Loop() {
			if _, err := File(context.Background(), path, PDF, Options{}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkScanPage: one scanned statement page at 200 dpi, one plain tesseract pass
// over its image (the baseline, as the extractor runs it: deu+eng, page segmentation
// 3, TSV) versus the extractor reading the same image, and the same page as a
// one-page scanned PDF (pdfinfo, pdftotext finding no text, rendering, then OCR). The
// OCR front end reads a page again only where its first reading is weak; a clean scan
// costs one pass.
func BenchmarkScanPage(b *testing.B) {
	if err := CheckTools(); err != nil {
		b.Skip(err)
	}
	jpegs, w, h := scanOf(b, benchPDF(1), 200)
	pdfPath := writeTemp(b, "scan.pdf", imagePDF(jpegs, w, h, 200))
	dir := b.TempDir()
	run1(b, "pdftoppm", "-r", "200", "-gray", "-png", "-singlefile", pdfPath, filepath.Join(dir, "page"))
	png := filepath.Join(dir, "page.png")
	b.Run("tesseract_direct", func(b *testing.B) {
		for b.Loop() {
			run1(b, "tesseract", png, "stdout", "-l", "deu+eng", "--psm", "3", "tsv")
		}
	})
	b.Run("extract_image", func(b *testing.B) {
		for b.Loop() {
			if _, err := File(context.Background(), png, PNG, Options{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("extract_scan_pdf", func(b *testing.B) {
		for b.Loop() {
			if _, err := File(context.Background(), pdfPath, PDF, Options{}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// frenchPDF is benchPDF's statement in French: its pages are read a second time with
// the French model.
func frenchPDF(pages int) []byte {
	var ps [][]string
	for i := range pages {
		ps = append(ps, []string{
			fmt.Sprintf("Releve de compte du mois de janvier %d", 2026-i),
			"Date        Libelle des operations                 Montant",
			"02.01.2026  Virement du salaire de la societe      3.250,00",
			"03.01.2026  Loyer pour le logement et les charges  -1.150,00",
			"05.01.2026  Prelevement sur le compte de la banque   -84,20",
			fmt.Sprintf("Nouveau solde au 31 janvier                      %d.120,55", 10+i),
		})
	}
	return makePDF(ps)
}

// BenchmarkScanPDF: a 3-page scan at 200 dpi, rendering and tesseract run directly
// versus the extractor (which renders and OCRs each page without a text layer); in
// German (one pass a page) and in French (a second pass with the French model).
func BenchmarkScanPDF(b *testing.B) {
	if err := CheckTools(); err != nil {
		b.Skip(err)
	}
	benchScan(b, benchPDF(3))
}

func BenchmarkScanPDFFrench(b *testing.B) {
	if err := CheckTools(); err != nil {
		b.Skip(err)
	}
	if !languageInstalled(context.Background(), "fra", Options{}) {
		b.Skip("tesseract has no French model (make tools installs it)")
	}
	benchScan(b, frenchPDF(3))
}

func benchScan(b *testing.B, pdf []byte) {
	jpegs, w, h := scanOf(b, pdf, 200)
	path := writeTemp(b, "scan.pdf", imagePDF(jpegs, w, h, 200))
	b.Run("tools_direct", func(b *testing.B) {
		for b.Loop() {
			dir := b.TempDir()
			run1(b, "pdftoppm", "-r", "200", "-gray", "-png", path, filepath.Join(dir, "p"))
			pages, _ := filepath.Glob(filepath.Join(dir, "p-*.png"))
			for _, p := range pages {
				run1(b, "tesseract", p, filepath.Join(dir, "out"), "-l", "deu+eng", "--psm", "3", "tsv")
			}
		}
	})
	b.Run("extract", func(b *testing.B) {
		for b.Loop() {
			if _, err := File(context.Background(), path, PDF, Options{}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkToolRun: what the sandbox adds to one tool run (a program that does
// nothing), against the same run unconfined.
func BenchmarkToolRun(b *testing.B) {
	for _, c := range []Confinement{Unconfined, Sandbox} {
		b.Run(string(c), func(b *testing.B) {
			opt := Options{Limits: Limits{Confinement: c}}.withDefaults()
			for b.Loop() {
				if _, err := run(context.Background(), opt, 1<<10, "true"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
