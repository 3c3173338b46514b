package blob_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

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

// An error from the callback ends the listing and is returned.
func TestListStopsOnError(t *testing.T) {
	t.Parallel()
	s, _ := openFiles(t)
	put(t, s, "k/1", "1")
	put(t, s, "k/2", "2")
	stop := context.Canceled
	seen := 0
	err := s.List(context.Background(), "k/", func(blob.Object) error { seen++; return stop })
	if err != stop || seen != 1 {
		t.Errorf("List = %v after %d objects, want %v after 1", err, seen, stop)
	}
}

// DeletePrefix removes the objects under a prefix and nothing else.
func TestDeletePrefixOnFiles(t *testing.T) {
	t.Parallel()
	s, _ := openFiles(t)
	put(t, s, "clients/a/rendered/x/1-110.png", "png")
	put(t, s, "clients/a/rendered/x/2-110.png", "png")
	put(t, s, "clients/a/rendered/xy/1-110.png", "png")
	if err := s.DeletePrefix(context.Background(), "clients/a/rendered/x/"); err != nil {
		t.Fatal(err)
	}
	if got := keys(list(t, s, "")); !slices.Equal(got, []string{"clients/a/rendered/xy/1-110.png"}) {
		t.Errorf("left %v", got)
	}
}
