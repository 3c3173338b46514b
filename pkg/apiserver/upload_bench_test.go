package apiserver_test

import (
	"bufio"
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/doceval/doceval/pkg/apiserver"
	"github.com/doceval/doceval/pkg/auth"
	"github.com/doceval/doceval/pkg/blob"
	"github.com/doceval/doceval/pkg/httpx"
	"github.com/doceval/doceval/pkg/store"
	"github.com/doceval/doceval/pkg/testkit/dbtest"
)

const benchUploadSize = 100 << 20

// procStatus reads a kB figure (VmRSS, VmHWM) of this process.
func procStatus(field string) int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return n << 10
		}
	}
	return 0
}

// resetPeakRSS makes VmHWM start again from the current RSS (Linux clear_refs 5).
func resetPeakRSS() { _ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

// BenchmarkUpload sends a 100 MiB PDF through the API (multipart over loopback HTTP,
// key check, an upload slot of the client, the read deadline moved as bytes arrive,
// type and magic checks, streaming to the file bucket while hashing, the upload row
// and its ingest job) against copying the same bytes to a file on the same disk in the
// same run. It reports the process's peak RSS growth during the uploads
// (client and server share the process; both stream).
func BenchmarkUpload(b *testing.B) {
	ctx := context.Background()
	dir := b.TempDir()
	src := filepath.Join(dir, "source.pdf")
	f, err := os.Create(src)
	if err != nil {
		b.Fatal(err)
	}
	f.WriteString("%PDF-1.7\n")
	if _, err := io.CopyN(f, rand.Reader, benchUploadSize-9); err != nil {
		b.Fatal(err)
	}
	f.Close()

	// The baseline copies through user space (read, write, 1 MiB at a time): bytes that
	// arrive over a socket must take that path. disk_copy_kernel shows, for reference,
	// what copy_file_range reaches when the kernel copies file to file.
	copyFile := func(b *testing.B, i int, kernel bool) {
		in, err := os.Open(src)
		if err != nil {
			b.Fatal(err)
		}
		defer in.Close()
		// Copies are kept, as uploads are: both sides pay for the page cache's writeback.
		out, err := os.Create(filepath.Join(dir, fmt.Sprintf("copy-%t-%d", kernel, i)))
		if err != nil {
			b.Fatal(err)
		}
		if kernel {
			_, err = io.Copy(out, in)
		} else {
			_, err = io.CopyBuffer(struct{ io.Writer }{out}, struct{ io.Reader }{in}, make([]byte, 1<<20))
		}
		if err != nil {
			b.Fatal(err)
		}
		if err := out.Close(); err != nil {
			b.Fatal(err)
		}
	}
	// Each side starts on a settled page cache: the copies written before it are removed
	// and the rest written back, so none pays for another's writeback (the side measured
	// last paid for all of them, and with 10 GB of copies that decided the ratio).
	settle := func(b *testing.B) {
		copies, _ := filepath.Glob(filepath.Join(dir, "copy-*"))
		for _, c := range copies {
			if err := os.Remove(c); err != nil {
				b.Fatal(err)
			}
		}
		syscall.Sync()
	}
	b.Run("disk_copy", func(b *testing.B) {
		settle(b)
		b.SetBytes(benchUploadSize)
		for i := 0; b.Loop(); i++ {
			copyFile(b, i, false)
		}
	})
	b.Run("disk_copy_kernel", func(b *testing.B) {
		settle(b)
		b.SetBytes(benchUploadSize)
		for i := 0; b.Loop(); i++ {
			copyFile(b, i, true)
		}
	})

	// api sends the uploads as the bench always did; api_idempotency_key sends each with
	// an Idempotency-Key, as the SDK does by default, which fingerprints the body too.
	api := func(b *testing.B, keyed bool) {
		st := store.New(dbtest.New(b))
		blobs, err := blob.Open(ctx, blob.FileURL(filepath.Join(dir, "blobs")))
		if err != nil {
			b.Fatal(err)
		}
		defer blobs.Close()
		_, _, key, err := st.CreateClient(ctx, "bench", auth.AllPermissions)
		if err != nil {
			b.Fatal(err)
		}
		e, err := apiserver.New(apiserver.Deps{
			Store: st, Blobs: blobs, Secrets: newSecrets(b), Log: slog.New(slog.DiscardHandler), Registry: prometheus.NewRegistry(),
			RateLimiter: httpx.NewRateLimiter(0, 1, nil), MaxUploadBytes: 2 * benchUploadSize,
			// As deployed (Tunables' defaults): an upload slot held, the read deadline moved
			// as bytes arrive.
			MaxConcurrentUploads: 16, UploadIdle: 30 * time.Second,
		})
		if err != nil {
			b.Fatal(err)
		}
		srv := httptest.NewServer(e)
		defer srv.Close()
		sub := createBenchSubmission(b, srv.URL, key)
		settle(b)
		b.SetBytes(benchUploadSize)
		resetPeakRSS()
		base := procStatus("VmRSS")
		for i := 0; b.Loop(); i++ {
			idempotencyKey := ""
			if keyed {
				idempotencyKey = fmt.Sprintf("bench-%d", i)
			}
			uploadStreaming(b, srv.URL+"/v1/submissions/"+sub+"/files", key, idempotencyKey, fmt.Sprintf("bench-%t-%d", keyed, i), src)
		}
		b.ReportMetric(float64(procStatus("VmHWM")-base)/(1<<20), "MiB-peak-rss-growth")
	}
	b.Run("api", func(b *testing.B) { api(b, false) })
	b.Run("api_idempotency_key", func(b *testing.B) { api(b, true) })
}

func createBenchSubmission(b *testing.B, base, key string) string {
	req, _ := http.NewRequest(http.MethodPost, base+"/v1/submissions", strings.NewReader(`{"external_submission_id": "bench"}`))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != 201 {
		b.Fatalf("create submission: %d %s", res.StatusCode, body)
	}
	_, rest, _ := strings.Cut(string(body), `"id":"`)
	id, _, _ := strings.Cut(rest, `"`)
	return id
}

// uploadStreaming posts a file as multipart without holding it in memory, with an
// Idempotency-Key unless it is "".
func uploadStreaming(b *testing.B, url, key, idempotencyKey, externalID, path string) {
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() {
		in, err := os.Open(path)
		if err != nil {
			pw.CloseWithError(err)
			return
		}
		defer in.Close()
		w, _ := mw.CreateFormField("external_file_id")
		io.WriteString(w, externalID)
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", `form-data; name="file"; filename="big.pdf"`)
		h.Set("Content-Type", "application/pdf")
		fw, _ := mw.CreatePart(h)
		if _, err := io.Copy(fw, in); err != nil {
			pw.CloseWithError(err)
			return
		}
		pw.CloseWithError(mw.Close())
	}()
	req, _ := http.NewRequest(http.MethodPost, url, pr)
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	if idempotencyKey != "" {
		req.Header.Set("Idempotency-Key", idempotencyKey)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusAccepted {
		b.Fatalf("upload: %d %s", res.StatusCode, body)
	}
}
