// Package blobkey is the layout of doceval's objects in the blob store, in one place:
// the api stores an upload's bytes, the console caches the pages it renders, ingest
// purges a submission's objects and sweeps those no row names, all by these keys.
//
//	clients/{client}/submissions/{submission}/files/{file id}           an upload's bytes
//	clients/{client}/submissions/{submission}/rendered/{upload}/{page}-{dpi}.png
//
// A submission's objects share its prefix, so a purge removes them with one prefix
// delete; an upload's rendered pages share theirs, deleted with the upload.
package blobkey

import (
	"fmt"
	"strings"

	"github.com/google/uuid"
)

// Root is where doceval stores objects: every key under it is named by an upload row
// (its bytes) or derived from one (its rendered pages).
const Root = "clients/"

// Submission is the prefix of a submission's objects.
func Submission(client, submission uuid.UUID) string {
	return fmt.Sprintf("%s%s/submissions/%s/", Root, client, submission)
}

// UploadFile is where an upload's bytes are stored; file is the id the api gives the
// file when it receives it.
func UploadFile(client, submission, file uuid.UUID) string {
	return Submission(client, submission) + "files/" + file.String()
}

// RenderedPages is the prefix of the pages the console rendered from an upload.
func RenderedPages(client, submission, upload uuid.UUID) string {
	return fmt.Sprintf("%srendered/%s/", Submission(client, submission), upload)
}

// RenderedPage is one page of an upload rendered at dpi.
func RenderedPage(client, submission, upload uuid.UUID, page, dpi int) string {
	return fmt.Sprintf("%s%d-%d.png", RenderedPages(client, submission, upload), page, dpi)
}

// RenderedUpload is the upload whose rendered pages key lies under (RenderedPages),
// and false when key is no rendered page.
func RenderedUpload(key string) (uuid.UUID, bool) {
	if !strings.HasPrefix(key, Root) {
		return uuid.Nil, false
	}
	// {client}/submissions/{submission}/rendered/{upload}/{page}
	parts := strings.Split(strings.TrimPrefix(key, Root), "/")
	if len(parts) < 6 || parts[1] != "submissions" || parts[3] != "rendered" {
		return uuid.Nil, false
	}
	id, err := uuid.Parse(parts[4])
	return id, err == nil
}
