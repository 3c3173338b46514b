// Package blob stores uploaded documents. It is a thin seam over gocloud.dev/blob, the
// Go Cloud Development Kit's portable bucket API (well kept, streaming writers and
// readers, one URL to switch providers): local files by default (file:///path), any
// S3-compatible store in production (s3://bucket?region=…&endpoint=…).
package blob

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"gocloud.dev/blob"
	_ "gocloud.dev/blob/fileblob" // file:// URLs
	_ "gocloud.dev/blob/s3blob"   // s3:// URLs
	"gocloud.dev/gcerrors"
)

// ErrNotFound is returned when a key does not exist.
var ErrNotFound = errors.New("blob not found")

// Store is a bucket of documents.
type Store struct {
	bucket *blob.Bucket
}

// Open opens the bucket at url. A file:// URL's directory is created when missing.
func Open(ctx context.Context, rawURL string) (*Store, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("blob URL: %w", err)
	}
	if u.Scheme == "file" {
		if err := os.MkdirAll(filepath.FromSlash(u.Path), 0o750); err != nil {
			return nil, fmt.Errorf("blob directory: %w", err)
		}
		// Content type and checksum live in PostgreSQL: no sidecar attribute files (and
		// no MD5 over every byte); temporary files next to their final name, so the
		// closing rename never crosses file systems.
		q := u.Query()
		if q.Get("metadata") == "" {
			q.Set("metadata", "skip")
		}
		if q.Get("no_tmp_dir") == "" {
			q.Set("no_tmp_dir", "1")
		}
		u.RawQuery = q.Encode()
		rawURL = u.String()
	}
	b, err := blob.OpenBucket(ctx, rawURL)
	if err != nil {
		return nil, fmt.Errorf("open blob store %s: %w", u.Redacted(), err)
	}
	return &Store{bucket: b}, nil
}

// FileURL is the URL of a local directory bucket.
func FileURL(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()
}

// Close releases the bucket.
func (s *Store) Close() error { return s.bucket.Close() }

// Writer streams a new object; it becomes visible when Close returns nil. Canceling ctx
// before Close discards it.
func (s *Store) Writer(ctx context.Context, key, contentType string) (io.WriteCloser, error) {
	return s.bucket.NewWriter(ctx, key, &blob.WriterOptions{ContentType: contentType})
}

// Reader streams an object.
func (s *Store) Reader(ctx context.Context, key string) (io.ReadCloser, error) {
	r, err := s.bucket.NewReader(ctx, key, nil)
	if gcerrors.Code(err) == gcerrors.NotFound {
		return nil, ErrNotFound
	}
	return r, err
}

// Delete removes an object; a missing one is not an error (deletes are retried).
func (s *Store) Delete(ctx context.Context, key string) error {
	err := s.bucket.Delete(ctx, key)
	if gcerrors.Code(err) == gcerrors.NotFound {
		return nil
	}
	return err
}

// Exists reports whether key exists.
func (s *Store) Exists(ctx context.Context, key string) (bool, error) {
	return s.bucket.Exists(ctx, key)
}

// DeletePrefix removes every object whose key starts with prefix.
func (s *Store) DeletePrefix(ctx context.Context, prefix string) error {
	return s.List(ctx, prefix, func(obj Object) error { return s.Delete(ctx, obj.Key) })
}

// Object is one stored object as a listing shows it.
type Object struct {
	Key string
	// ModTime is when the object was last written, by the store's clock.
	ModTime time.Time
	Size    int64
}

// List calls each for every object whose key starts with prefix, in key order, until
// each returns an error (which List returns). Objects written or deleted meanwhile may
// or may not be seen.
func (s *Store) List(ctx context.Context, prefix string, each func(Object) error) error {
	it := s.bucket.List(&blob.ListOptions{Prefix: prefix})
	for {
		obj, err := it.Next(ctx)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if obj.IsDir {
			continue
		}
		if err := each(Object{Key: obj.Key, ModTime: obj.ModTime, Size: obj.Size}); err != nil {
			return err
		}
	}
}
