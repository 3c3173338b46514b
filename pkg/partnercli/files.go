package partnercli

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/doceval/doceval/pkg/sdk"
)

func init() {
	groups["files"] = group{summary: "upload files to a submission", cmds: map[string]command{
		"upload": filesUpload,
	}}
}

// contentTypes are the formats the API accepts, by file extension.
var contentTypes = map[string]string{
	".pdf":  "application/pdf",
	".jpg":  "image/jpeg",
	".jpeg": "image/jpeg",
	".png":  "image/png",
	".docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
	".doc":  "application/msword",
}

// filesUpload streams one file. The external file id makes it idempotent: running the
// same upload again answers the known upload (200) instead of storing a second copy.
func filesUpload(ctx context.Context, a *app, args []string) error {
	fs := a.newFlagSet("files upload")
	externalID := fs.String("external-id", "", "your id for the file (default: the file name)")
	slot := fs.String("slot", "", "document slot id to upload into")
	contentType := fs.String("content-type", "", "MIME type (default: by extension)")
	pos, err := positionals(fs, args, "submission_id", "path")
	if err != nil {
		return err
	}
	submissionID, err := parseUUID("submission id", pos[0])
	if err != nil {
		return err
	}
	path := pos[1]
	params := sdk.UploadParams{ExternalFileID: *externalID, Filename: filepath.Base(path), ContentType: *contentType}
	if params.ExternalFileID == "" {
		params.ExternalFileID = params.Filename
	}
	if params.ContentType == "" {
		ct, ok := contentTypes[strings.ToLower(filepath.Ext(path))]
		if !ok {
			return usagef("files upload: cannot tell the content type of %q; pass --content-type", path)
		}
		params.ContentType = ct
	}
	if *slot != "" {
		slotID, err := parseUUID("slot id", *slot)
		if err != nil {
			return err
		}
		params.SlotID = &slotID
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return err
	}
	params.Body, params.Size = f, info.Size()

	c, err := a.client()
	if err != nil {
		return err
	}
	bar := newProgressBar(a.stderr, params.Filename)
	if bar != nil {
		params.Progress = bar.update
	}
	up, err := c.UploadFile(ctx, submissionID, params)
	bar.finish()
	if err != nil {
		return err
	}
	if a.opts.json {
		return a.printJSON(up)
	}
	return a.details("upload id", up.Id.String(), "file id", up.FileId.String(), "external file id", up.ExternalFileId,
		"filename", up.Filename, "content type", up.ContentType, "status", string(up.UploadStatus))
}
