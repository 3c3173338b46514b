package blobkey_test

import (
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/doceval/doceval/pkg/blobkey"
)

func TestLayout(t *testing.T) {
	client, sub, up, file := uuid.New(), uuid.New(), uuid.New(), uuid.New()
	prefix := blobkey.Submission(client, sub)
	if want := "clients/" + client.String() + "/submissions/" + sub.String() + "/"; prefix != want {
		t.Errorf("Submission %q, want %q", prefix, want)
	}
	// Everything of a submission lies under its prefix (one prefix delete purges it), and
	// under Root (what the sweep lists).
	for _, key := range []string{blobkey.UploadFile(client, sub, file), blobkey.RenderedPage(client, sub, up, 2, 110)} {
		if !strings.HasPrefix(key, prefix) || !strings.HasPrefix(key, blobkey.Root) {
			t.Errorf("%q lies outside %q", key, prefix)
		}
	}
	page := blobkey.RenderedPage(client, sub, up, 2, 110)
	if !strings.HasPrefix(page, blobkey.RenderedPages(client, sub, up)) || !strings.HasSuffix(page, "/2-110.png") {
		t.Errorf("RenderedPage %q", page)
	}
	if id, ok := blobkey.RenderedUpload(page); !ok || id != up {
		t.Errorf("RenderedUpload(%q) = %v, %v; want %v", page, id, ok, up)
	}
	for _, key := range []string{
		blobkey.UploadFile(client, sub, file),
		"backups/" + strings.TrimPrefix(page, blobkey.Root),
		prefix + "rendered/not-a-uuid/1-110.png",
		prefix + "rendered",
	} {
		if id, ok := blobkey.RenderedUpload(key); ok {
			t.Errorf("RenderedUpload(%q) = %v: no rendered page", key, id)
		}
	}
}

// Keys come from listing the blob store: whatever is there, RenderedUpload answers
// without panicking, and only for a key under Root whose upload segment is the id.
func FuzzRenderedUpload(f *testing.F) {
	f.Add(blobkey.RenderedPage(uuid.New(), uuid.New(), uuid.New(), 1, 110))
	f.Add("clients//submissions//rendered//")
	f.Add("clients/x/submissions/y/files/z")
	f.Fuzz(func(t *testing.T, key string) {
		id, ok := blobkey.RenderedUpload(key)
		if !ok {
			return
		}
		parts := strings.Split(strings.TrimPrefix(key, blobkey.Root), "/")
		if !strings.HasPrefix(key, blobkey.Root) || len(parts) < 6 || uuid.MustParse(parts[4]) != id {
			t.Errorf("RenderedUpload(%q) = %v", key, id)
		}
	})
}
