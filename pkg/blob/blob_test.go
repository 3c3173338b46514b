package blob_test

import (
	"context"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/doceval/doceval/pkg/blob"
)

func openFiles(t *testing.T) (*blob.Store, string) {
	t.Helper()
	dir := t.TempDir()
	s, err := blob.Open(context.Background(), blob.FileURL(dir))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, dir
}

// openS3 opens a bucket of an in-process S3 server (gofakes3) through the s3:// driver
// production uses, with the server's clock in the test's hand.
func openS3(t *testing.T) (*blob.Store, gofakes3.TimeSourceAdvancer) {
	t.Helper()
	clock := gofakes3.FixedTimeSource(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	backend := s3mem.New(s3mem.WithTimeSource(clock))
	if err := backend.CreateBucket("doceval"); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(gofakes3.New(backend, gofakes3.WithTimeSource(clock)).Server())
	t.Cleanup(srv.Close)
	q := url.Values{"region": {"eu-central-1"}, "endpoint": {srv.URL}, "use_path_style": {"true"}, "anonymous": {"true"}}
	s, err := blob.Open(context.Background(), "s3://doceval?"+q.Encode())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, clock
}

// backends are the stores production opens: files and S3.
var backends = map[string]func(t *testing.T) *blob.Store{
	"files": func(t *testing.T) *blob.Store { s, _ := openFiles(t); return s },
	"s3":    func(t *testing.T) *blob.Store { s, _ := openS3(t); return s },
}

func put(t *testing.T, s *blob.Store, key, body string) {
	t.Helper()
	w, err := s.Writer(context.Background(), key, "application/octet-stream")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write([]byte(body)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

func list(t *testing.T, s *blob.Store, prefix string) []blob.Object {
	t.Helper()
	var out []blob.Object
	if err := s.List(context.Background(), prefix, func(o blob.Object) error { out = append(out, o); return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}

func keys(objs []blob.Object) []string {
	var out []string
	for _, o := range objs {
		out = append(out, o.Key)
	}
	return out
}

// List shows every object under a prefix, in key order, with its size and the time it
// was written; the orphan sweep judges an object's age by that time.
func TestListOnFiles(t *testing.T) {
	t.Parallel()
	s, dir := openFiles(t)
	put(t, s, "clients/a/files/2", "two")
	put(t, s, "clients/a/files/1", "1")
	put(t, s, "clients/a/rendered/x/1-110.png", "png")
	put(t, s, "clients/b/files/1", "other")
	old := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := os.Chtimes(filepath.Join(dir, "clients", "a", "files", "1"), old, old); err != nil {
		t.Fatal(err)
	}

	got := list(t, s, "clients/a/")
	if want := []string{"clients/a/files/1", "clients/a/files/2", "clients/a/rendered/x/1-110.png"}; !slices.Equal(keys(got), want) {
		t.Fatalf("listed %v, want %v", keys(got), want)
	}
	if !got[0].ModTime.Equal(old) || got[1].ModTime.Before(time.Now().Add(-time.Minute)) {
		t.Errorf("modification times %v, %v: want %v and now", got[0].ModTime, got[1].ModTime, old)
	}
	if got[1].Size != 3 {
		t.Errorf("size %d, want 3", got[1].Size)
	}
	if got := list(t, s, "clients/c/"); len(got) != 0 {
		t.Errorf("an empty prefix listed %v", keys(got))
	}
}

// On S3 an object's time is its LastModified, set by the server when the write ended.
func TestListOnS3(t *testing.T) {
	t.Parallel()
	s, clock := openS3(t)
	start := clock.Now()
	put(t, s, "clients/a/files/1", "1")
	clock.Advance(2 * time.Hour)
	put(t, s, "clients/a/files/2", "two")
	put(t, s, "clients/b/files/1", "other")

	got := list(t, s, "clients/a/")
	if want := []string{"clients/a/files/1", "clients/a/files/2"}; !slices.Equal(keys(got), want) {
		t.Fatalf("listed %v, want %v", keys(got), want)
	}
	if !got[0].ModTime.Equal(start) || !got[1].ModTime.Equal(start.Add(2*time.Hour)) {
		t.Errorf("modification times %v, %v: want %v and two hours later", got[0].ModTime, got[1].ModTime, start)
	}
	if got[1].Size != 3 {
		t.Errorf("size %d, want 3", got[1].Size)
	}
}

// An error from the callback ends the listing and is returned.
func TestListStopsOnError(t *testing.T) {
	t.Parallel()
	for name, open := range backends {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := open(t)
			put(t, s, "k/1", "1")
			put(t, s, "k/2", "2")
			stop := context.Canceled
			seen := 0
			err := s.List(context.Background(), "k/", func(blob.Object) error { seen++; return stop })
			if err != stop || seen != 1 {
				t.Errorf("List = %v after %d objects, want %v after 1", err, seen, stop)
			}
		})
	}
}

// DeletePrefix removes the objects under a prefix and nothing else; deleting a missing
// object is no error (deletes are retried).
func TestDeletePrefix(t *testing.T) {
	t.Parallel()
	for name, open := range backends {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := open(t)
			put(t, s, "clients/a/rendered/x/1-110.png", "png")
			put(t, s, "clients/a/rendered/x/2-110.png", "png")
			put(t, s, "clients/a/rendered/xy/1-110.png", "png")
			if err := s.DeletePrefix(context.Background(), "clients/a/rendered/x/"); err != nil {
				t.Fatal(err)
			}
			if got := keys(list(t, s, "")); !slices.Equal(got, []string{"clients/a/rendered/xy/1-110.png"}) {
				t.Errorf("left %v", got)
			}
			if err := s.Delete(context.Background(), "clients/a/rendered/x/1-110.png"); err != nil {
				t.Errorf("delete of a missing object: %v", err)
			}
		})
	}
}
