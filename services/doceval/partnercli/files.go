package partnercli

import (
	"context"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/spf13/cobra"

	"github.com/doceval/doceval/gen/client"
	"github.com/doceval/doceval/pkg/sdk"
)

// contentTypes are the formats the API accepts, by file extension.
var contentTypes = map[string]string{
	".pdf":  "application/pdf",
	".jpg":  "image/jpeg",
	".jpeg": "image/jpeg",
	".png":  "image/png",
	".docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
	".doc":  "application/msword",
}

func (a *app) filesCommand() *cobra.Command {
	cmd := a.group("files", "Upload, list, move and delete a submission's files",
		`Files (uploads) are the documents of a submission, each assigned to a document slot or
unassigned. An upload is processed in the background; evaluations read the ready ones.`,
		"uploads", "file", "upload")
	cmd.AddCommand(a.filesList(), a.filesGet(), a.filesUpload(), a.filesMove(), a.filesDelete())
	return cmd
}

func (a *app) filesList() *cobra.Command {
	var list listFlags
	cmd := &cobra.Command{
		Use:     "list SUBMISSION_ID",
		Short:   "List a submission's uploads",
		Example: "  doceval files list 0190a1b2-…\n  doceval files list 0190a1b2-… -q",
		Args:    uuidArgs("submission id"),
		RunE: listRunE(a, &list,
			func(ctx context.Context, args []string, size *int) (iter.Seq2[*client.Upload, error], error) {
				return a.sdkClient.ListUploads(ctx, uuidAt(args, 0), &client.ListUploadsParams{Limit: size}), nil
			},
			columns[client.Upload]{
				id:     func(u *client.Upload) string { return u.Id.String() },
				header: []string{"ID", "EXTERNAL FILE ID", "FILENAME", "STATUS", "SLOT", "CREATED"},
				row: func(u *client.Upload) []any {
					return []any{u.Id.String(), u.ExternalFileId, u.Filename, string(u.UploadStatus), u.DocumentSlotId, u.CreatedAt}
				},
			}),
	}
	list.register(cmd)
	return calls(cmd, "listUploads")
}

func (a *app) filesGet() *cobra.Command {
	return calls(&cobra.Command{
		Use:     "get SUBMISSION_ID UPLOAD_ID",
		Short:   "Show an upload, with why it failed when it did",
		Example: "  doceval files get 0190a1b2-… 0190a1b3-…",
		Args:    uuidArgs("submission id", "upload id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ids := []uuid.UUID{uuidAt(args, 0), uuidAt(args, 1)}
			c := a.sdkClient
			up, err := c.GetUpload(cmd.Context(), ids[0], ids[1])
			if err != nil {
				return err
			}
			return a.printUpload(up)
		},
	}, "getUpload")
}

// filesUpload streams one file. The external file id makes it idempotent: running the
// same upload again answers the known upload (200) instead of storing a second copy.
func (a *app) filesUpload() *cobra.Command {
	var (
		externalID, slot, contentType string
		wait                          bool
		interval                      time.Duration
	)
	cmd := &cobra.Command{
		Use:   "upload SUBMISSION_ID PATH",
		Short: "Upload a file into a submission, unassigned or into a document slot",
		Long: `Streams the file to the submission (or into the document slot --slot, an id from
'submissions get'). The external file id (default: the file name) makes it safe to run
again: a repeat answers the existing upload. --wait waits until processing ends and
exits 1 when the file failed.`,
		Example: `  doceval files upload 0190a1b2-… payslip.pdf
  doceval files upload 0190a1b2-… scan.jpg --slot 0190a1b4-… --external-id id-front --wait`,
		Args: exactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			submissionID, err := parseUUID("submission id", args[0])
			if err != nil {
				return err
			}
			path := args[1]
			params := sdk.UploadParams{ExternalFileID: externalID, Filename: filepath.Base(path), ContentType: contentType}
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
			if slot != "" {
				slotID, err := parseUUID("slot id", slot)
				if err != nil {
					return err
				}
				params.SlotID = &slotID
			}
			if interval <= 0 {
				return usagef("files upload: --interval must be positive")
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

			c := a.sdkClient
			bar := newProgressBar(a.stderr, params.Filename)
			if bar != nil {
				params.Progress = bar.update
			}
			up, err := c.UploadFile(cmd.Context(), submissionID, params)
			bar.finish()
			if err != nil {
				return err
			}
			if !wait {
				return a.printUpload(up)
			}
			return a.waitForUpload(cmd, c, submissionID, up, interval)
		},
	}
	f := cmd.Flags()
	f.StringVar(&externalID, "external-id", "", "your id for the file (default: the file name)")
	f.StringVar(&slot, "slot", "", "document slot id to upload into")
	f.StringVar(&contentType, "content-type", "", "MIME type (default: by extension: .pdf .jpg .jpeg .png .doc .docx)")
	f.BoolVar(&wait, "wait", false, "wait until the file is processed (ready or failed)")
	f.DurationVar(&interval, "interval", 2*time.Second, "how often to poll with --wait")
	return calls(cmd, "createUpload", "createSlotUpload")
}

// waitForUpload polls until processing ended, prints the upload and fails when the
// file did.
func (a *app) waitForUpload(cmd *cobra.Command, c *sdk.Client, submissionID uuid.UUID, up *client.Upload, interval time.Duration) error {
	status := newStatusLine(a.stderr)
	ups, err := c.WaitForUploads(cmd.Context(), submissionID, []uuid.UUID{up.Id}, sdk.WaitUploadsOptions{
		Interval: interval,
		OnProgress: func(u *client.Upload) {
			status.show(fmt.Sprintf("%s: %s", u.Filename, u.UploadStatus))
		},
	})
	status.finish()
	if err != nil {
		return err
	}
	up = ups[0]
	if err := a.printUpload(up); err != nil {
		return err
	}
	if up.UploadStatus == client.UploadStatusFailed {
		return fmt.Errorf("upload %s failed", up.Id)
	}
	return nil
}

func (a *app) printUpload(up *client.Upload) error {
	return a.emit(up, []string{up.Id.String()}, func() error {
		pairs := []any{"upload id", up.Id.String(), "file id", up.FileId.String(), "external file id", up.ExternalFileId,
			"filename", up.Filename, "content type", up.ContentType, "status", string(up.UploadStatus), "slot", up.DocumentSlotId}
		if up.Failure != nil {
			pairs = append(pairs, "failure", string(up.Failure.Code), "message", up.Failure.Message)
		}
		return a.details(pairs...)
	})
}

func (a *app) filesMove() *cobra.Command {
	var (
		slot     string
		unassign bool
	)
	cmd := &cobra.Command{
		Use:   "move SUBMISSION_ID UPLOAD_ID (--slot SLOT_ID | --unassign)",
		Short: "Assign an upload to a document slot, or make it unassigned",
		Example: `  doceval files move 0190a1b2-… 0190a1b3-… --slot 0190a1b4-…
  doceval files move 0190a1b2-… 0190a1b3-… --unassign`,
		Args: uuidArgs("submission id", "upload id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ids := []uuid.UUID{uuidAt(args, 0), uuidAt(args, 1)}
			var req client.UpdateUploadRequest
			switch {
			case (slot == "") == !unassign:
				return usagef("files move: give either --slot or --unassign")
			case slot != "":
				slotID, err := parseUUID("slot id", slot)
				if err != nil {
					return err
				}
				req.DocumentSlotId = &slotID
			}
			c := a.sdkClient
			up, err := receive[client.Upload](c.API().UpdateUpload(cmd.Context(), ids[0], ids[1], req))
			if err != nil {
				return err
			}
			return a.printUpload(up)
		},
	}
	cmd.Flags().StringVar(&slot, "slot", "", "the document slot to assign the upload to")
	cmd.Flags().BoolVar(&unassign, "unassign", false, "make the upload unassigned")
	return calls(cmd, "updateUpload")
}

func (a *app) filesDelete() *cobra.Command {
	return calls(&cobra.Command{
		Use:     "delete SUBMISSION_ID UPLOAD_ID",
		Short:   "Delete an upload (its external file id becomes free again)",
		Example: "  doceval files delete 0190a1b2-… 0190a1b3-…",
		Args:    uuidArgs("submission id", "upload id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ids := []uuid.UUID{uuidAt(args, 0), uuidAt(args, 1)}
			c := a.sdkClient
			if err := c.DeleteUpload(cmd.Context(), ids[0], ids[1]); err != nil {
				return err
			}
			return a.done(ids[1].String(), "deleted", "upload "+ids[1].String()+" deleted")
		},
	}, "deleteUpload")
}
